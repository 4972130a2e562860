"""The benchmarks. Each is one function `(bench, size) -> Row` that measures newsletter and,
where there is one, its peer at that size; every program runs as a child of this process.

newsletter is driven through its public interfaces only: the `newsletter` command
(`build`, `send`) and `newsletter.summarize.summarize`, so whatever code is in the
repository when the harness runs is what gets measured.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import corpus
from harness import BenchError, Env, FeedServer, Run, Sample, alternate, driver, run

# Pelican's feed and newsletter's posts.atom both hold the newest 50 posts.
FEED_SIZE = 50


@dataclass
class Bench:
    work: Path
    tool: Env
    # Peers; None when they are not to be run (--no-peers).
    pelican: Env | None
    rss2email: Env | None
    runs: int
    seed: int
    log: Callable[[str], None]

    def runs_at(self, size: int) -> int:
        # A full build of 10,000 posts takes minutes for either side: one run each.
        return 1 if size >= 10_000 else self.runs

    def fresh(self, name: str) -> Path:
        folder = self.work / "runs" / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder

    def corpus(self, form: str, posts: int) -> Path:
        """The first `posts` posts of the seed's corpus in `form`, generated once and kept."""
        stamp = hashlib.sha256(Path(corpus.__file__).read_bytes()).hexdigest()
        folder = self.work / "corpus" / f"{form}-{posts}-seed{self.seed}"
        done = folder / ".generated"
        if not (done.exists() and done.read_text() == stamp):
            self.log(f"writing {posts} {form} posts to {folder}")
            shutil.rmtree(folder, ignore_errors=True)
            corpus.write_corpus(folder, posts, seed=self.seed, form=form)
            done.write_text(stamp)
        return folder


@dataclass(frozen=True)
class Row:
    benchmark: str
    size: int
    # "s" (lower is better), "MB/s" or "msg/s" (higher is better).
    unit: str
    ours: Sample | None
    peer: Sample | None = None
    peer_name: str = ""
    # What was checked or seen along the way (statuses served, posts summarized), or the
    # reason the row could not be measured.
    detail: str = ""
    error: str = ""
    # When and at which commit, for a row kept from an earlier run of a subset (--only).
    measured: str = ""

    @property
    def ratio(self) -> float | None:
        """How many times better newsletter's figure is than the peer's."""
        if not (self.ours and self.peer):
            return None
        if self.unit == "s":
            return self.peer.median / self.ours.median
        return self.ours.median / self.peer.median

    def to_json(self) -> dict:
        return {
            "benchmark": self.benchmark, "size": self.size, "unit": self.unit,
            "ours": self.ours.to_json() if self.ours else None,
            "peer": self.peer.to_json() if self.peer else None,
            "peer_name": self.peer_name, "ratio": self.ratio,
            "detail": self.detail, "error": self.error, "measured": self.measured,
        }

    @classmethod
    def from_json(cls, data: dict) -> Row:
        return cls(
            data["benchmark"], data["size"], data["unit"], Sample.from_json(data["ours"]),
            Sample.from_json(data["peer"]), data["peer_name"], data["detail"], data["error"],
            data.get("measured", ""),
        )


# -- newsletter ------------------------------------------------------------------------------


def tool_config(folder: Path, sources: str, extra: str = "") -> Path:
    path = folder / "config.toml"
    path.write_text(
        '[site]\ntitle = "Bench digest"\nurl = "https://bench.example.org/"\nauthor = "Bench"\n\n'
        f'{sources}\n[archive]\ndir = "archive"\nfeed_size = {FEED_SIZE}\n\n'
        f'[state]\npath = "state.sqlite"\n\n{extra}',
        encoding="utf-8",
    )
    return path


def folder_source(posts: Path) -> str:
    return f'[[sources]]\nname = "posts"\nkind = "folder"\npath = "{posts}"\n'


def newsletter(bench: Bench, config: Path, *command: str):
    return run([str(bench.tool.python), "-m", "newsletter", "--config", str(config), *command], bench.tool)


def build_once(bench: Bench, folder: Path, posts: Path):
    """A first build of `posts` in `folder`, from nothing."""
    result = newsletter(bench, tool_config(folder, folder_source(posts)), "build")
    if not (folder / "archive" / "posts.atom").exists():
        raise BenchError("newsletter build wrote no posts.atom")
    return result


def link_posts(source: Path, target: Path) -> None:
    """A folder of hard links to the posts of `source`: a copy that costs nothing."""
    target.mkdir(parents=True)
    for post in source.glob("*.md"):
        os.link(post, target / post.name)


def build_report(stderr: str) -> str:
    """The build's closing line ("31 posts seen, 1 summarized, ..."), without the folder."""
    lines = stderr.strip().splitlines()
    return lines[-1].split("; archive:")[0] if lines else ""


# -- benchmarks ------------------------------------------------------------------------------


def summarizer_throughput(bench: Bench, size: int) -> Row:
    def engine(env: Env, name: str, folder: Path):
        def measure() -> tuple[float, int]:
            result = run([str(env.python), driver("throughput.py"), name, str(folder)], env)
            figures = json.loads(result.stdout)
            return figures["bytes"] / figures["seconds"] / 1e6, result.max_rss
        return measure

    ours = engine(bench.tool, "newsletter", bench.corpus("newsletter", size))
    peer = bench.pelican and engine(bench.pelican, "pelican", bench.corpus("pelican", size))
    ours_runs, peer_runs = alternate(bench.runs, ours, peer)
    return Row(
        "summarizer", size, "MB/s", Sample.of(ours_runs), Sample.of(peer_runs),
        "Pelican's Markdown reader",
    )


PELICAN_SETTINGS = """\
# Only the Atom feed of all posts: every other output Pelican allows to switch off is off.
SITENAME = "Bench digest"
SITEURL = "https://bench.example.org"
FEED_DOMAIN = SITEURL
TIMEZONE = "UTC"
PATH = {content!r}
FEED_ALL_ATOM = "feeds/all.atom.xml"
FEED_MAX_ITEMS = {feed_size}
FEED_ALL_RSS = FEED_ATOM = FEED_RSS = None
CATEGORY_FEED_ATOM = CATEGORY_FEED_RSS = TAG_FEED_ATOM = TAG_FEED_RSS = None
AUTHOR_FEED_ATOM = AUTHOR_FEED_RSS = TRANSLATION_FEED_ATOM = TRANSLATION_FEED_RSS = None
DIRECT_TEMPLATES = []
ARTICLE_SAVE_AS = ARTICLE_LANG_SAVE_AS = DRAFT_SAVE_AS = DRAFT_LANG_SAVE_AS = ""
PAGE_SAVE_AS = PAGE_LANG_SAVE_AS = DRAFT_PAGE_SAVE_AS = DRAFT_PAGE_LANG_SAVE_AS = ""
CATEGORY_SAVE_AS = TAG_SAVE_AS = AUTHOR_SAVE_AS = ARCHIVES_SAVE_AS = ""
PAGE_PATHS = []
STATIC_PATHS = []
THEME_STATIC_PATHS = []
CACHE_CONTENT = False
LOAD_CONTENT_CACHE = False
"""


def full_build(bench: Bench, size: int) -> list[Row]:
    """Two rows from the same runs: wall time (newsletter spreads posts over every core,
    Pelican uses one) and CPU time (the work itself)."""
    posts = bench.corpus("newsletter", size)
    pelican_posts = bench.corpus("pelican", size)

    def ours() -> Run:
        return build_once(bench, bench.fresh("full-newsletter"), posts)

    def pelican() -> Run:
        folder = bench.fresh("full-pelican")
        settings = folder / "pelicanconf.py"
        settings.write_text(PELICAN_SETTINGS.format(content=str(pelican_posts), feed_size=FEED_SIZE))
        result = run(
            [*bench.pelican.command("pelican"), str(pelican_posts), "-s", str(settings),
             "-o", str(folder / "output"), "-q"],
            bench.pelican,
        )
        feed = folder / "output" / "feeds" / "all.atom.xml"
        if not feed.exists() or feed.read_text(encoding="utf-8").count("<entry>") != min(size, FEED_SIZE):
            raise BenchError("pelican did not write the expected Atom feed")
        return result

    ours_runs, peer_runs = alternate(bench.runs_at(size), ours, bench.pelican and pelican)
    return [
        Row(benchmark, size, "s", Sample.of([measured(r) for r in ours_runs]),
            Sample.of([measured(r) for r in peer_runs]), "Pelican, Atom feed only")
        for benchmark, measured in (
            ("full_build", lambda run: run.measured), ("full_build_cpu", lambda run: run.cpu_measured))
    ]


def incremental_build(bench: Bench, size: int) -> Row:
    """One new post among `size` already built; the peer column is newsletter's own full
    build of the same posts (the build this one starts from)."""
    folder = bench.fresh("incremental")
    posts = folder / "posts"
    link_posts(bench.corpus("newsletter", size), posts)
    full = build_once(bench, folder, posts)
    # The full build's hundreds of megabytes reach the disk now: left in the page cache, the
    # first builds timed would wait for their writeback at their own first flush.
    os.sync()
    config = folder / "config.toml"
    runs = []
    for number in range(bench.runs):
        corpus.write_corpus(posts, 1, seed=bench.seed, form="newsletter", start=size + number)
        result = newsletter(bench, config, "build")
        runs.append(result.measured)
    return Row(
        "incremental", size, "s", Sample.of(runs), Sample.of([full.measured]),
        "newsletter full build", detail=build_report(result.stderr),
    )


RSS2EMAIL_CONFIG = """\
[DEFAULT]
to = reader@example.org
"""


def feed_makers(bench: Bench, sources: int) -> list:
    return [lambda url, n=n: corpus.atom_feed(bench.seed, n, url=url) for n in range(sources)]


def feed_sources(urls: list[str]) -> str:
    return "".join(f'[[sources]]\nname = "feed-{n}"\nkind = "feed"\nurl = "{url}"\n\n' for n, url in enumerate(urls))


def collect(bench: Bench, size: int) -> list[Row]:
    """Feed sources from a loopback server: a first run that fetches everything (200),
    then a second with nothing changed (304 where conditional requests are made)."""
    with FeedServer(feed_makers(bench, size)) as server:
        statuses: dict[str, list] = {}

        def ours() -> list[tuple[float, int]]:
            config = tool_config(bench.fresh("collect-newsletter"), feed_sources(server.urls))
            return twice("newsletter", lambda: newsletter(bench, config, "build"))

        def rss2email() -> list[tuple[float, int]]:
            folder = bench.fresh("collect-rss2email")
            config = folder / "rss2email.cfg"
            config.write_text(RSS2EMAIL_CONFIG + "".join(
                f"\n[feed.feed-{n}]\nurl = {url}\n" for n, url in enumerate(server.urls)
            ))
            # rss2email locks a file in XDG_RUNTIME_DIR; keep it inside the run's folder.
            env = dataclasses.replace(bench.rss2email, extra_env={"XDG_RUNTIME_DIR": str(folder)})
            command = [*env.command("r2e"), "-c", str(config), "-d", str(folder / "data.json"), "run", "--no-send"]
            measured = twice("rss2email", lambda: run(command, env))
            seen = sum(len(feed["seen"]) for feed in json.loads((folder / "data.json").read_text())["feeds"])
            if seen != 2 * size:
                raise BenchError(f"rss2email processed {seen} entries, not {2 * size}")
            return measured

        def twice(name: str, run_once) -> list[tuple[float, int]]:
            server.take_statuses()
            measured = []
            for phase in ("first", "second"):
                result = run_once()
                measured.append(result.measured)
                statuses[f"{name} {phase}"] = sorted(server.take_statuses().items())
            return measured

        ours_runs, peer_runs = alternate(bench.runs, ours, bench.rss2email and rss2email)
    rows = []
    for index, phase in enumerate(("first", "second")):
        seen = "; ".join(
            f"{name.split()[0]}: " + ", ".join(f"{count}x{status}" for status, count in counts)
            for name, counts in statuses.items() if name.endswith(phase)
        )
        rows.append(Row(
            f"collect_{phase}", size, "s", Sample.of([r[index] for r in ours_runs]),
            Sample.of([r[index] for r in peer_runs]), "rss2email run --no-send",
            detail=f"HTTP statuses served: {seen}",
        ))
    return rows


def startup(bench: Bench, size: int) -> Row:
    """The fixed cost under every command: start Python and import the program."""
    def version(env: Env, command: list[str]):
        return lambda: run([*command, "--version"], env).measured

    ours = version(bench.tool, [str(bench.tool.python), "-m", "newsletter"])
    peer = bench.pelican and version(bench.pelican, bench.pelican.command("pelican"))
    ours_runs, peer_runs = alternate(bench.runs, ours, peer)
    return Row("startup", size, "s", Sample.of(ours_runs), Sample.of(peer_runs), "pelican --version")


def profile(bench: Bench, size: int) -> dict:
    """pyinstrument profiles of a full build of `size` posts, of one new post among them,
    and of a first and a second collect of `size` feed sources (nothing changed between)."""
    reports = bench.work / "profiles"
    reports.mkdir(exist_ok=True)

    def profiled(name: str, config: Path, noun: str = "posts") -> tuple[str, dict]:
        report = reports / f"{name.replace(' ', '-')}-{size}.txt"
        result = run([str(bench.tool.python), driver("profile_build.py"), str(config), str(report)], bench.tool)
        return f"{name}, {size:,} {noun}", {**json.loads(result.stdout), "report": report.name}

    folder = bench.fresh("profile")
    posts = folder / "posts"
    link_posts(bench.corpus("newsletter", size), posts)
    config = tool_config(folder, folder_source(posts))
    profiles = [profiled("full build", config)]
    corpus.write_corpus(posts, 1, seed=bench.seed, form="newsletter", start=size)
    profiles.append(profiled("incremental build", config))

    with FeedServer(feed_makers(bench, size)) as server:
        config = tool_config(bench.fresh("profile-collect"), feed_sources(server.urls))
        profiles += [profiled("first collect", config, "sources"), profiled("second collect", config, "sources")]
    return dict(profiles)
