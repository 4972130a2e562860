"""Post text -> one outline of typed blocks, whatever shape the post came in.

A post may be Markdown (with YAML or TOML front matter), an HTML page, reStructuredText-style
text with underlined headings, or a plain-text scrape that lost its heading markers. The
format and the encoding are sniffed from the content: file names and transport headers lie.

Structure comes from a parser's tree (cmark-gfm renders Markdown to HTML, lxml reads HTML), so
a `# comment` line inside code never turns into a heading. Only the plain-text shapes, which
have no markup to parse, are read line by line from their own layout.

The package imports none of its modules: a build reading a post file needs its decoder
(`encoding`), and only a build with a post to summarize needs the parsers (`parse`).
"""
