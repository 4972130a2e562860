"""The metadata a post declares above its body: YAML (`---`) or TOML (`+++`) front matter, an
archived mail's headers, reST fields, Franklin "@def" lines, Markdown comment fields or an MDX export."""

from __future__ import annotations

import re
import tomllib
from datetime import date, datetime
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.utils import parseaddr

import yaml

from newsletter import lazy_re

# YAML may close its block with the document end marker "..." instead, as some sites' pages do.
_FRONT_MATTER = lazy_re.compile(r"\A(?:\ufeff)?\s*(?P<fence>(?P<yaml>---)|\+\+\+)[ \t]*\r?\n(?P<raw>.*?)\r?\n"
                                r"(?(yaml)(?:---|\.\.\.)|\+\+\+)[ \t]*(?:\r?\n|\Z)", re.DOTALL)


# Markdown has no comment syntax; sites that keep metadata in the text use an unused link
# reference instead: "[//]: # (title: What's new in 2.0)".
_COMMENT_FIELD = lazy_re.compile(r"\s*\[//\]:[ \t]*#[ \t]*\((\w+):[ \t]*(.+?)\)[ \t]*(?:\n|\Z)")


# MDX pages may declare theirs as an object: "export const meta = {\n  title: 'X',\n}".
_EXPORTED_META = lazy_re.compile(
    r"(?:\s*import [^\n]*\n)*\s*export const (?:meta|metadata|frontmatter)\s*=\s*\{([^{}]{0,4000})\};?")
_EXPORTED_FIELD = lazy_re.compile(r"""(\w+)\s*:\s*(["'`])([^"'`\n]*)\2""")


# libyaml's loader where PyYAML was built with it: several times faster, the same answers.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# A mail as a list archive keeps it: header lines ("Subject: ...", folded lines indented)
# down to the first blank line, maybe under the line an mbox file opens each mail with
# ("From ada@example.org  Tue Oct 15 10:12:33 2024").
_MAIL_HEADERS = lazy_re.compile(r"\A(?:From \S+[ \t][^\n]*\n)?"
                                r"(?:[A-Za-z][\w-]{0,60}:[ \t][^\n]*\n(?:[ \t]+\S[^\n]*\n)*){2,}\n")
_MAIL_HEADER = lazy_re.compile(r"^([A-Za-z][\w-]{0,60}):[ \t]*(.*)$", re.MULTILINE)
# What a mailing list or a reply puts before the sender's subject: "[list-name]", "[ANNOUNCE]",
# "Re:", "Fwd:", and the tag a sender puts there unbracketed ("ANNOUNCE:"); not the post's title.
_SUBJECT_PREFIX = lazy_re.compile(r"\A(?:\[[^\]\n]{1,40}\]\s*|(?:re|fwd?|aw|wg|sv|ann(?:ounce)?):\s*)+", re.IGNORECASE)


def split_front_matter(text: str) -> tuple[dict[str, object], str, str | None]:
    """YAML (`---`) or TOML (`+++`) front matter -> (mapping, body, problem). Front matter
    that does not parse to a mapping is not front matter: the text comes back whole, with
    the reason in one line. Without front matter, the headers of an archived mail, reST
    fields, Franklin "@def" lines, "[//]: # (key: value)" comment lines or an MDX
    "export const meta = {...}" opening the text declare the metadata."""
    data, body, problem = _fenced(text)
    if data or problem or body is not text:
        return data, body, problem
    declared = (_mail_headers(text) or _board_headers(text) or _rest_fields(text) or _metadata_lines(text)
                or _def_lines(text))
    if declared:
        return declared
    fields: dict[str, object] = {}
    end = 0
    while found := _COMMENT_FIELD.match(text, end):
        fields[found.group(1)] = found.group(2)
        end = found.end()
    exported = _EXPORTED_META.match(text, end)
    if exported:
        fields.update((key, value) for key, _quote, value in _EXPORTED_FIELD.findall(exported.group(1)))
        end = exported.end()
    return fields, text[end:], None


# reST's bibliographic fields opening the text, as static-site generators read them
# (":title: What's new in 2.0", ":date: 2025-03-04"). Only known names: ":tada: Out now!"
# opens a line with an emoji's short code.
_REST_FIELD_BLOCK = lazy_re.compile(r"\A(?:[ \t]*\n)*((?::[A-Za-z][\w-]{0,30}:[ \t]+[^\n]*\n)+)")
_REST_FIELD = lazy_re.compile(r"^:([A-Za-z][\w-]{0,30}):[ \t]+(.*)$", re.MULTILINE)
_REST_FIELD_NAMES = {"title", "subtitle", "author", "authors", "date", "modified", "updated", "tags", "category",
                     "slug", "summary", "lang", "language", "status", "version", "organization", "keywords"}


def _rest_fields(text: str) -> tuple[dict[str, object], str, None] | None:
    block = _REST_FIELD_BLOCK.match(text)
    fields = {key.lower(): value.strip() for key, value in _REST_FIELD.findall(block.group(1))} if block else {}
    if not block or not fields.keys() <= _REST_FIELD_NAMES or "title" not in fields:
        return None
    return dict(fields), text[block.end():], None


# Pelican's and MultiMarkdown's metadata: "Title: What's new in 2.0" and more such lines
# down to the first blank line. Only known names, with a title: "Note: ..." opens prose.
_METADATA_BLOCK = lazy_re.compile(r"\A(?:[A-Za-z][\w-]{0,30}:[ \t]+[^\n]*\n){2,}\n")
_METADATA_LINE = lazy_re.compile(r"^([A-Za-z][\w-]{0,30}):[ \t]+(.*)$", re.MULTILINE)


def _metadata_lines(text: str) -> tuple[dict[str, object], str, None] | None:
    block = _METADATA_BLOCK.match(text)
    fields = {key.lower(): value.strip() for key, value in _METADATA_LINE.findall(block.group())} if block else {}
    if not block or not fields.keys() <= _REST_FIELD_NAMES or "title" not in fields:
        return None
    return dict(fields), text[block.end():], None


# Franklin's page variables opening a Markdown page: '@def title = "What's new in 2.0"'.
# Only quoted strings are text; other values ("Date(2025, 3, 4)", "2") are code.
_DEF_BLOCK = lazy_re.compile(r"\A(?:[ \t]*\n)*((?:@def[ \t]+\w+[ \t]*=[^\n]*\n)+)")
_DEF_FIELD = lazy_re.compile(r'^@def[ \t]+(\w+)[ \t]*=[ \t]*("(?:"")?)(.*?)\2[ \t]*$', re.MULTILINE)


def _def_lines(text: str) -> tuple[dict[str, object], str, None] | None:
    block = _DEF_BLOCK.match(text)
    if not block:
        return None
    return {key: value for key, _quote, value in _DEF_FIELD.findall(block.group(1))}, text[block.end():], None


def _mail_headers(text: str) -> tuple[dict[str, object], str, None] | None:
    """An announcement kept as the mail it was sent as: its Subject is the title, the name
    in From the author, Date the date."""
    block = _MAIL_HEADERS.match(text)
    if not block:
        return None
    headers = {key.lower(): _decoded(" ".join(value.split()))
               for key, value in _MAIL_HEADER.findall(block.group().replace("\n ", " ").replace("\n\t", " "))}
    if not {"from", "subject"} <= headers.keys():
        return None
    name, address = parseaddr(headers["from"])
    title = _SUBJECT_PREFIX.sub("", headers["subject"]) or headers["subject"]
    fields: dict[str, object] = {"title": title, "author": name or address}
    if "date" in headers:
        fields["date"] = headers["date"]
    return fields, text[block.end():], None


# A bulletin board's post, as its pages and terminals show it, opens with its fields: the
# poster ("作者  ada (Ada)  看板  Tools", "发信人: ada (Ada), 信区: Tools"), the title
# ("標題  [公告] Lumen 2.0 released", "标  题: ..."), the time and the site.
_BOARD_HEADERS = lazy_re.compile(r"\A(?:[ \t]*\n)*((?:作者|發信人|发信人)[:：\s][^\n]*\n"
                                 r"(?:(?:標\s*題|标\s*题|時\s*間|时\s*间|發信站|发信站)[:：\s][^\n]*\n){1,3})")
_BOARD_FIELD = lazy_re.compile(r"^(作者|發信人|发信人|標\s*題|标\s*题)[:：\s]\s*(.*?)\s*$", re.MULTILINE)
# The board's name follows the poster on its line: "  看板  Tools", ", 信区: Tools".
_BOARD_NAME = lazy_re.compile(r"(?:\s{2,}|\s*[,，]\s*)(?:看板|信[区區]).*$")


def _board_headers(text: str) -> tuple[dict[str, object], str, None] | None:
    block = _BOARD_HEADERS.match(text)
    if not block:
        return None
    fields = {"".join(key.split()): value for key, value in _BOARD_FIELD.findall(block.group(1))}
    subject = fields.get("標題") or fields.get("标题")
    if not subject:
        return None
    poster = _BOARD_NAME.sub("", fields.get("作者") or fields.get("發信人") or fields.get("发信人") or "")
    # "ada (Ada)": the login, and the name it shows in brackets, as a mail's From may.
    name, login = parseaddr(poster)
    return {"title": _SUBJECT_PREFIX.sub("", subject) or subject, "author": name or login}, text[block.end():], None


def _decoded(value: str) -> str:
    """A header's encoded words (RFC 2047: "=?windows-1251?B?wvv46+A=?=", as a mailer
    writes a subject or a name that is not ASCII) as the text they stand for."""
    if "=?" not in value:
        return value
    try:
        return str(make_header(decode_header(value)))
    except (HeaderParseError, LookupError, UnicodeDecodeError):  # a malformed word, an unknown charset
        return value


_QUOTED = lazy_re.compile(r"""(["'])(.*)\1""")
_QUOTED_TITLE = lazy_re.compile(r"""^title:[ \t]+(["']).*\1[ \t]*$""", re.MULTILINE)


def _plain_fields(raw: str) -> dict[str, object]:
    """The top-level "key: value" lines of broken YAML, their quotes taken off, a list in
    brackets ("[ada, grace]") read as its items."""
    fields: dict[str, object] = {}
    for key, written in _METADATA_LINE.findall(raw):
        value = written.strip()
        if not value:
            continue
        quoted = _QUOTED.fullmatch(value)
        listed = value.startswith("[") and value.endswith("]")
        fields.setdefault(key.lower(), quoted.group(2) if quoted else
                          [item.strip(" '\"") for item in value[1:-1].split(",")] if listed else value)
    return fields


def _fenced(text: str) -> tuple[dict[str, object], str, str | None]:
    """A `---` or `+++` block: (mapping, body, why a block that looks like one is not)."""
    found = _FRONT_MATTER.match(text)
    if not found:
        return {}, text, None
    fence, raw = found.group("fence", "raw")
    language = "TOML" if fence == "+++" else "YAML"
    try:
        data = tomllib.loads(raw) if fence == "+++" else yaml.load(raw, Loader=_YAML_LOADER)
    except yaml.MarkedYAMLError as exc:
        where = f"line {exc.problem_mark.line + 2}: " if exc.problem_mark else ""
        # An author's quote inside a quoted value ('Lumen's new look') breaks the YAML, not
        # the fields: each "key: value" line still says what it says.
        problem = f"front matter is not valid YAML ({where}{exc.problem or exc.context})"
        if _QUOTED_TITLE.search(raw):
            return _plain_fields(raw), text[found.end():], f"{problem}, its key: value lines read one by one"
        return {}, text, f"{problem}, read as text"
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        reason = " ".join(str(exc).split())[:200]
        return {}, text, f"front matter is not valid {language} ({reason}), read as text"
    if not isinstance(data, dict):
        return {}, text, f"front matter is not a mapping of keys (a {type(data).__name__}), read as text"
    return data, text[found.end():], None


_META_KEYS = {
    # Some generators name it otherwise ("page_title" on docs sites); "linkTitle" is the
    # short form a menu shows.
    "title": ("title", "page_title", "pagetitle", "headline", "heading", "linktitle"),
    "author": ("author", "authors", "by", "autor", "auteur", "autore"),
    "date": ("date", "published", "pubdate", "publishdate", "created"),
    "language": ("lang", "language", "locale"),
    "canonical_url": ("canonical_url", "canonical", "canonicalurl", "original", "original_url", "source_url"),
}


# Tables where generators keep a theme's own keys (Zola's [extra], Hugo's params): an
# author named only there is the author all the same.
_NESTED_TABLES = ("extra", "params")


def front_matter_meta(data: dict[str, object]) -> dict[str, str]:
    nested = [table for name in _NESTED_TABLES if isinstance(table := data.get(name), dict)]
    lowered = {str(key).lower().replace("-", "_"): value
               for table in [*nested, data] for key, value in table.items()}
    meta: dict[str, str] = {}
    for name, keys in _META_KEYS.items():
        for key in keys:
            value = lowered.get(key)
            if isinstance(value, list) and value:
                # A post by several people names them all, as the byline would.
                value = ", ".join(filter(None, map(_name_of, value))) if name == "author" else value[0]
            if isinstance(value, dict):
                value = value.get("name")
            if isinstance(value, bool):
                # "canonical: false" switches a feature off; it names nothing.
                continue
            if isinstance(value, (datetime, date)):
                value = value.isoformat()
            if isinstance(value, (str, int, float)) and str(value).strip():
                meta[name] = str(value).strip()
                break
    return meta


def _name_of(item: object) -> str | None:
    """An author list's entry: a name, or a mapping with one ("{name: X, twitter: x}")."""
    value = item.get("name") if isinstance(item, dict) else item
    return str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
