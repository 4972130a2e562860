"""A list a plain text shows without markers: a run of lines indented alike under a line at
the margin, each opening as an item does. A text copied from a page keeps its lists' indent
and drops their bullets ("    Snippets pane" over "    The new search box")."""

from __future__ import annotations

from newsletter.text.plain_lines import BULLET, indent_of, is_code_group

# A paragraph wrapped by its writer may break before a capital too; by a comma or a hyphen
# it shows it runs on.
_RUNS_ON = (",", "-", "–", "(", "/")


def unmarked_lists(groups: list[list[str]]) -> list[list[str]]:
    """The runs of a text whose body is at the margin, with each run of lines indented alike
    and opening as items do given its bullets back."""
    return [[f"- {line.strip()}" for line in group] if _unmarked_list(group) else group for group in groups]


def _unmarked_list(group: list[str]) -> bool:
    indent = indent_of(group[0])
    return (len(group) > 1 and indent > 1 and all(indent_of(line) == indent for line in group)
            and not BULLET.match(group[0]) and not is_code_group(group)
            and not any(line.rstrip().endswith(_RUNS_ON) for line in group)
            and all(not line.strip()[:1].islower() for line in group))
