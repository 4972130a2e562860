"""A browser's copy of a page read as runs of lines: each line at the margin a block of its
own, a run of indented lines a list whose markers the copy dropped, unless the run is
code, a paragraph the copy indents, or a feature's name glued to its text and code."""

from __future__ import annotations

import itertools

from newsletter.text.dump_parts import opens_with_a_mark
from newsletter.text.plain_lines import SENTENCE_ENDS, heading_candidate, is_code_group, is_list_group, looks_like_code


def copied_lines(groups: list[list[str]]) -> list[list[str]]:
    """A copied page's runs as its blocks: each line at the margin a block of its own (a
    heading, a paragraph), a run of indented lines a list whose markers the copy dropped.
    The first run stays whole: a title over its byline and date is read as such."""
    runs: list[list[str]] = groups[:1]
    for group in groups[1:]:
        named = _name_over_code(group)
        if named:
            runs.extend([[line] for line in group[:named]] + [group[named:]])
        # A line opening with an operator ("| where x", "> quoted") is code or a quote: the
        # run stays whole.
        elif is_code_group(group) or is_list_group(group) or any(opens_with_a_mark(line) for line in group) \
                or _indented_sentences(group):
            runs.append(group)
        elif all(line[:1].isspace() for line in group):
            runs.append([f"- {line.strip()}" for line in group])
        else:
            # Indented lines under one at the margin (a release's tag and commit under its
            # byline) are a row of the page, as a run of indented lines is: no headings.
            for indented, lines in itertools.groupby(group, key=lambda line: line[:1].isspace()):
                row = list(lines)
                runs.extend([[f"- {line.strip()}" for line in row]] if indented else ([line] for line in row))
    return runs


def _name_over_code(group: list[str]) -> int:
    """Where the code starts in a copy's run that glues a feature's name, maybe its text,
    and the code showing it, all at the margin ("Tile layers" over "Maps hold layers." over
    "map.add(layer)"): the name and the text are blocks of their own. 0 for any other run."""
    text = list(itertools.takewhile(lambda line: not looks_like_code(line), group[1:]))
    code = group[1 + len(text):]
    flush = not any(line[:1].isspace() for line in group[:1 + len(text)])
    named = (flush and heading_candidate(group[:1]) and len(code) > 1 and is_code_group(code)
             and (not text or text[-1].rstrip().endswith(SENTENCE_ENDS)))
    return 1 + len(text) if named else 0


def _indented_sentences(group: list[str]) -> bool:
    """One indented line of sentences: a copy that indents the post's body keeps its
    paragraphs so, where a list of one item names a change."""
    return len(group) == 1 and group[0][:1].isspace() and group[0].rstrip().endswith(SENTENCE_ENDS)


def heads_indented_text(group: list[str], following: list[str], copy: bool) -> bool:
    """A copy's line at the margin over a paragraph it indents: the body indented under it
    marks it a heading as surely as markup would."""
    return copy and not group[0][:1].isspace() and _indented_sentences(following)


def over_indented_paragraph(group: list[str], following: list[str]) -> bool:
    """A line at the margin over a paragraph wrapped over indented lines: in a dump that
    leaves only its headings at the margin (lynx), a heading, though which part it opens or
    groups is still the layout's guess."""
    return (not group[0][:1].isspace() and all(line[:1].isspace() for line in following)
            and following[-1].rstrip().endswith(SENTENCE_ENDS)
            and not is_list_group(following) and not is_code_group(following))
