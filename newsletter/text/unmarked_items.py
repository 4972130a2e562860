"""A list a plain text shows without markers: a run of lines indented alike under a line at
the margin, each opening as an item does. A text copied from a page keeps its lists' indent
and drops their bullets ("    Tag filters" over "    A quicker sidebar")."""

from __future__ import annotations

from newsletter.text.plain_lines import BULLET, SENTENCE_ENDS, indent_of, is_code_group

# A paragraph wrapped by its writer may break before a capital too; by a comma or a hyphen
# it shows it runs on.
_RUNS_ON = (",", "-", "–", "(", "/")
# Chinese and Japanese have no lowercase to show a line runs on: a full stop before the last
# line shows the lines are sentences the writer wrapped, where items name changes.
_CJK_FULL_STOP = "。"


def unmarked_lists(groups: list[list[str]]) -> list[list[str]]:
    """The runs of a text whose body is at the margin, with each run of lines indented alike
    and opening as items do given its bullets back. A copy of a page keeps a list's heading
    right over it, at the margin with no blank line between: the heading stays a line of its own."""
    parts: list[list[str]] = []
    for group in groups:
        if _unmarked_list(group):
            parts.append(_bulleted(group))
        # Under a heading with no blank line between, a feature's text is sentences; a
        # list's items are names of changes.
        elif len(group) > 2 and indent_of(group[0]) == 0 and not BULLET.match(group[0]) \
                and not group[0].rstrip().endswith(_RUNS_ON) and _unmarked_list(group[1:]) \
                and not any(line.rstrip().endswith(SENTENCE_ENDS) for line in group[1:]):
            parts.extend([group[:1], _bulleted(group[1:])])
        else:
            parts.append(group)
    return parts


def _bulleted(group: list[str]) -> list[str]:
    return [f"- {line.strip()}" for line in group]


def _unmarked_list(group: list[str]) -> bool:
    indent = indent_of(group[0])
    return (len(group) > 1 and indent > 1 and all(indent_of(line) == indent for line in group)
            and not BULLET.match(group[0]) and not is_code_group(group)
            and not any(line.rstrip().endswith(_RUNS_ON) for line in group)
            and all(not line.strip()[:1].islower() for line in group)
            and not any(_CJK_FULL_STOP in line for line in group[:-1]))
