"""The floor for sending: one message to every subscriber over one smtplib connection,
with no outbox, no retry and no per-subscriber headers beyond To.

    python smtplib_baseline.py MESSAGE.eml PORT SUBSCRIBERS_FILE
"""

import email
import email.policy
import smtplib
import sys
from pathlib import Path


def main() -> None:
    message_path, port, subscribers_path = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    message = email.message_from_bytes(message_path.read_bytes(), policy=email.policy.SMTP)
    sender = message["From"]
    subscribers = subscribers_path.read_text(encoding="utf-8").split()
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        for address in subscribers:
            del message["To"]
            message["To"] = address
            smtp.send_message(message, sender, [address])


if __name__ == "__main__":
    main()
