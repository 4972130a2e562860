"""Bytes -> text. (Placeholder until the summarizer's format sniffing lands.)"""

from __future__ import annotations


def decode(data: bytes, charset: str | None = None) -> str:
    for encoding in (charset, "utf-8-sig"):
        if encoding:
            try:
                return data.decode(encoding)
            except (LookupError, UnicodeDecodeError):
                pass
    return data.decode("utf-8", errors="replace")
