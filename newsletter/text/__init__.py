"""Post text -> one outline of typed blocks, whatever shape the post came in.

A post may be Markdown (with YAML or TOML front matter), an HTML page, reStructuredText-style
text with underlined headings, or a plain-text scrape that lost its heading markers. The
format and the encoding are sniffed from the content: file names and transport headers lie.

Structure comes from a parser's tree (cmark-gfm renders Markdown to HTML, lxml reads HTML), so
a `# comment` line inside code never turns into a heading. Only the plain-text shapes, which
have no markup to parse, are read line by line from their own layout.
"""

from newsletter.text.encoding import NOT_XML, decode, looks_binary
from newsletter.text.front_matter import split_front_matter
from newsletter.text.outline import (
    Block,
    Code,
    Document,
    Heading,
    ListBlock,
    ListItem,
    Paragraph,
)
from newsletter.text.parse import parse
from newsletter.text.sniff import sniff_format

__all__ = [
    "Block", "Code", "Document", "Heading", "ListBlock", "ListItem", "Paragraph",
    "NOT_XML", "decode", "looks_binary", "parse", "sniff_format", "split_front_matter",
]
