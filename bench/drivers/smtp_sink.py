"""A loopback SMTP sink (aiosmtpd) that counts what it receives and keeps nothing.

    python smtp_sink.py PORT

Prints "ready" once it accepts connections. Each line "count" read on stdin is answered
with the number of messages and of recipients received since the previous "count".
"""

import sys
import threading

from aiosmtpd.controller import Controller


class Counting:
    def __init__(self):
        self.lock = threading.Lock()
        self.messages = self.recipients = 0

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.messages += 1
            self.recipients += len(envelope.rcpt_tos)
        return "250 OK"

    def take(self) -> tuple[int, int]:
        with self.lock:
            counts = (self.messages, self.recipients)
            self.messages = self.recipients = 0
        return counts


def main() -> None:
    handler = Counting()
    controller = Controller(handler, hostname="127.0.0.1", port=int(sys.argv[1]))
    controller.start()
    print("ready", flush=True)
    try:
        for line in sys.stdin:
            if line.strip() == "count":
                print(*handler.take(), flush=True)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
