"""Post bytes -> text, the encoding sniffed from the content itself."""

from __future__ import annotations

import codecs
import re

from newsletter import lazy_re

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = lazy_re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENCODING = lazy_re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")
# A mail names its body's charset in its header ("Content-Type: text/plain; charset=iso-2022-jp"):
# the header is the run of "Name: value" lines (and their folded lines) the mail opens with.
_MAIL_HEADER = lazy_re.compile(rb"(?:[!-9;-~]+:[^\n]*\n|[ \t][^\n]*\n)*")
_MAIL_CHARSET = lazy_re.compile(rb"""^content-type:[^\n]*?charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""",
                                re.IGNORECASE | re.MULTILINE)
# ISO-2022-JP is 7-bit: its Japanese is shifted in by escapes ("ESC $ B") that no other text
# holds, and it passes for ASCII, and so for UTF-8, unless they are looked for.
_ISO_2022_ESCAPES = (b"\x1b$B", b"\x1b$@", b"\x1b$(D")
# A CJK post that names code at every turn ("`link-workspace-packages` 預設為 `false`",
# "（`a`、`b`）") mixes scripts within words, which the detector counts as mess: past its
# usual bar (0.2), no charset is left. A multi-byte CJK codec that reads every byte is
# evidence enough (random bytes break its sequences at once), so those codecs are tried
# again with a laxer bar.
_CJK_CODECS = ["big5", "gb18030", "shift_jis", "cp932", "euc_jp", "euc_kr", "cp949"]
_LAX_MESS = 0.5


def _codec(name: str | None) -> str | None:
    """The codec a declared charset names, if it is a text encoding ("rot13" is not)."""
    if not name:
        return None
    try:
        codec = codecs.lookup(name.strip().strip("\"'"))
    except (LookupError, ValueError):  # ValueError: a name with a NUL in it
        return None
    return codec.name if getattr(codec, "_is_text_encoding", True) else None


def decode(data: bytes, charset: str | None = None) -> str:
    """Bytes -> text: BOM, then the declared charset, then an HTML meta charset or a mail's
    Content-Type, then detection. Never raises; undecodable bytes become U+FFFD."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    head = data[:4096]
    found = _META_CHARSET.search(head) or _XML_ENCODING.search(head) or _MAIL_CHARSET.search(_mail_header(head))
    declared = _codec(charset) or _codec(found.group(1).decode("ascii") if found else None)
    if declared:
        return data.decode(declared, errors="replace")
    if any(escape in data for escape in _ISO_2022_ESCAPES):
        try:
            return data.decode("iso2022_jp_2")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # UTF-8 with a few stray bytes (a cut copy, one byte of another charset) stays UTF-8:
    # detection would read the whole text in some single-byte charset ("GrĂ¶Ăźe").
    text = data.decode("utf-8", errors="replace")
    stray = text.count("\ufffd")
    if sum(1 for ch in text if ch > "\x7f") - stray >= stray:
        return text
    # Imported here: most posts are UTF-8, and a build reading one new post would wait for it.
    import charset_normalizer

    best = charset_normalizer.from_bytes(data).best() or charset_normalizer.from_bytes(
        data, threshold=_LAX_MESS, cp_isolation=_CJK_CODECS).best()
    if best is not None and best.encoding:
        return data.decode(best.encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


def _mail_header(head: bytes) -> bytes:
    """The mail's header the text opens with, if it is a mail (else nothing, or little)."""
    header = _MAIL_HEADER.match(head)
    return header.group() if header else b""


# Characters XML 1.0 cannot carry: C0 controls other than tab, LF and CR, lone surrogates,
# U+FFFE and U+FFFF. Every post ends up in Atom and HTML, so they are removed on the way in.
NOT_XML = lazy_re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# A post that opens with this share of them and of undecodable bytes (U+FFFD) is binary data
# (an image, an archive) put among the posts by mistake; text never comes close.
_BINARY_SHARE = 0.1
_SNIFFED_CHARS = 65536


def looks_binary(text: str) -> bool:
    """Whether decoded `text` is binary data rather than a post."""
    head = text[:_SNIFFED_CHARS]
    return len(NOT_XML.findall(head)) + head.count("\ufffd") > len(head) * _BINARY_SHARE
