"""A loopback SMTP sink that counts what it receives and keeps nothing.

    python smtp_sink.py PORT

Prints "ready" once it accepts connections. Each line "count" read on stdin is answered
with the number of messages and of recipients received since the previous "count".

It speaks the few SMTP commands a sender needs (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP,
QUIT) and reads a message's data in one call up to its terminating "." line. aiosmtpd,
which the tests use, reads the data a line at a time in Python: about 5 ms of CPU for a
68 KB digest, so it took at most ~200 messages a second on this machine, whoever sent them,
and a send benchmark against it measured the sink. This one costs a small fraction of that,
so the figure is the sender's.
"""

import asyncio
import sys
import threading

# The largest message read (asyncio's default buffer limit is 64 KB).
MAX_MESSAGE = 64 * 1024 * 1024


class Counting:
    def __init__(self):
        self.lock = threading.Lock()
        self.messages = self.recipients = 0

    def add(self, recipients: int) -> None:
        with self.lock:
            self.messages += 1
            self.recipients += recipients

    def take(self) -> tuple[int, int]:
        with self.lock:
            counts = (self.messages, self.recipients)
            self.messages = self.recipients = 0
        return counts


async def session(counts: Counting, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"220 sink ready\r\n")
    recipients = 0
    while line := await reader.readline():
        verb = line[:4].upper()
        if verb == b"EHLO":
            writer.write(b"250-sink\r\n250 8BITMIME\r\n")
        elif verb == b"MAIL":
            recipients = 0
            writer.write(b"250 OK\r\n")
        elif verb == b"RCPT":
            recipients += 1
            writer.write(b"250 OK\r\n")
        elif verb == b"DATA":
            writer.write(b"354 end with <CRLF>.<CRLF>\r\n")
            await writer.drain()
            await reader.readuntil(b"\r\n.\r\n")
            counts.add(recipients)
            recipients = 0
            writer.write(b"250 OK\r\n")
        elif verb == b"QUIT":
            writer.write(b"221 bye\r\n")
            break
        elif verb in (b"HELO", b"RSET", b"NOOP"):
            recipients = 0 if verb == b"RSET" else recipients
            writer.write(b"250 OK\r\n")
        else:
            writer.write(b"500 unknown command\r\n")
        await writer.drain()
    await writer.drain()
    writer.close()


def serve(counts: Counting, port: int, started: threading.Event) -> None:
    async def main() -> None:
        server = await asyncio.start_server(
            lambda r, w: session(counts, r, w), "127.0.0.1", port, limit=MAX_MESSAGE)
        started.set()
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def main() -> None:
    counts = Counting()
    started = threading.Event()
    threading.Thread(target=serve, args=(counts, int(sys.argv[1]), started), daemon=True).start()
    started.wait()
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "count":
            print(*counts.take(), flush=True)


if __name__ == "__main__":
    main()
