"""The mailing benchmarks: one digest sent to N subscribers over a loopback SMTP sink.

`send` compares newsletter with the floor, a bare smtplib loop. `send_slices` compares it
with itself: the subscribers spread over five slices (each message rendered from its slice,
one rendering per slice) against all of them in one slice. The ratio is what slicing costs
a mailing, or saves it: the five renderings are paid once, and a slice's message is smaller
than the whole digest, so each costs less to encode and hand over.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks import Bench, Row, folder_source, newsletter, tool_config
from harness import BenchError, Env, Sample, alternate, driver, run

EMAIL_CONFIG = """\
[email]
host = "127.0.0.1"
port = {port}
security = "none"
from = "Bench digest <digest@bench.example.org>"
subscribers_file = "subscribers.txt"
unsubscribe_mailto = "unsubscribe@bench.example.org"
unsubscribe_url = "https://bench.example.org/unsubscribe"
connections = 2
"""
# Slices the subscribers of `send_slices` are spread over.
SLICES = 5


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def send(bench: Bench, size: int) -> Row:
    """One digest to `size` subscribers; the peer column is the floor: the same message sent
    by a bare smtplib loop over one connection."""
    port = free_port()
    template = _mail_template(bench, "send-template", size, port)
    with _sink(port, size) as delivered:
        def ours() -> tuple[float, int]:
            return _send_copy(bench, template, "send-newsletter", size, delivered)

        def smtplib_loop() -> tuple[float, int]:
            message = sorted((template / "archive" / "digests").glob("*.eml"))[-1]
            result = run(
                [sys.executable, driver("smtplib_baseline.py"), str(message), str(port),
                 str(template / "subscribers.txt")],
                Env(Path(sys.executable)),
            )
            delivered()
            return size / result.seconds, result.max_rss

        ours_runs, peer_runs = alternate(bench.runs, ours, smtplib_loop)
    return Row("send", size, "msg/s", Sample.of(ours_runs), Sample.of(peer_runs), "bare smtplib loop")


def send_slices(bench: Bench, size: int) -> Row:
    """One digest to `size` subscribers spread over five slices, against the same subscribers
    all in one slice (the whole digest)."""
    port = free_port()
    whole = _mail_template(bench, "send-slices-whole", size, port)
    sliced = bench.fresh("send-slices-sliced")
    shutil.rmtree(sliced)
    shutil.copytree(whole, sliced)
    chosen = run([str(bench.tool.python), driver("give_slices.py"), str(sliced / "config.toml"), str(SLICES)],
                 bench.tool).stdout.strip()
    with _sink(port, size) as delivered:
        ours_runs, peer_runs = alternate(
            bench.runs,
            lambda: _send_copy(bench, sliced, "send-slices-5", size, delivered),
            lambda: _send_copy(bench, whole, "send-slices-1", size, delivered),
        )
    return Row("send_slices", size, "msg/s", Sample.of(ours_runs), Sample.of(peer_runs), "all in one slice",
               detail=f"slices: {chosen}")


def _mail_template(bench: Bench, name: str, size: int, port: int) -> Path:
    """A folder with a digest of 10 posts built and `size` subscribers to mail it to."""
    template = bench.fresh(name)
    (template / "subscribers.txt").write_text("".join(f"reader{n}@example.org\n" for n in range(size)))
    # Built with [email], as a list's digests are: the build keeps what slices are made of.
    config = tool_config(template, folder_source(bench.corpus("newsletter", 10)), EMAIL_CONFIG.format(port=port))
    newsletter(bench, config, "build")
    try:
        newsletter(bench, template / "config.toml", "send", "--help")
    except BenchError as exc:
        raise BenchError(f"`newsletter send` not available ({exc})") from None
    return template


def _send_copy(bench: Bench, template: Path, name: str, size: int, delivered: Callable[[], int]) -> tuple[float, int]:
    """`newsletter send` in a fresh copy of `template`: (messages a second, peak memory)."""
    folder = bench.work / "runs" / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(template, folder)
    result = newsletter(bench, folder / "config.toml", "send")
    delivered()
    return size / result.seconds, result.max_rss


@contextmanager
def _sink(port: int, size: int) -> Iterator[Callable[[], int]]:
    """A loopback SMTP sink on `port`; yields what says how many messages it received since
    last asked, checking they went to `size` recipients."""
    sink = subprocess.Popen(
        [sys.executable, driver("smtp_sink.py"), str(port)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert sink.stdin and sink.stdout
    stdin, stdout = sink.stdin, sink.stdout
    try:
        if stdout.readline().strip() != "ready":
            raise BenchError("the SMTP sink did not start")

        def delivered() -> int:
            stdin.write("count\n")
            stdin.flush()
            messages, recipients = map(int, stdout.readline().split())
            if recipients != size:
                raise BenchError(f"the sink received {recipients} recipients, not {size}")
            return messages

        yield delivered
    finally:
        stdin.close()
        sink.wait(timeout=30)
