"""A dump's lines over code, told apart: a caption naming the version the code is written
for ("Lumen < 3.0" over the old way, "Lumen 3.0" over the new), and a part's name over the
code that shows its feature, then the text that tells it."""

from __future__ import annotations

from newsletter import lazy_re
from newsletter.text.plain_lines import SENTENCE_ENDS, is_code_group, looks_like_code

# A name and a version, maybe compared ("Lumen < 3.0", "Lumen 3.0", "Lumen >= 2"): no feature.
_VERSION_CAPTION = lazy_re.compile(r"[^\W\d][\w.+#-]*(?:\s[^\W\d][\w.+#-]*)?\s+(?:[<>≤≥]=?\s*)?v?\d+(?:\.\d+)*")


def captions_code(group: list[str], following: list[str] | None) -> bool:
    """Whether a lone line names the version of the code right under it."""
    return (len(group) == 1 and following is not None and is_code_group(following)
            and _VERSION_CAPTION.fullmatch(group[0].strip()) is not None)


def opens_a_shown_part(groups: list[list[str]], index: int) -> bool:
    """Whether the lone line at `index` stands after a part's text (a sentence), over code
    and the text that follows the code: a part shown first, then told, as a release page
    shows each feature. A caption's code is told before it, or introduced by a colon."""
    if not 0 < index < len(groups) - 2:
        return False
    above, code, told = groups[index - 1], groups[index + 1], groups[index + 2]
    return (_ends_a_sentence(above) and not is_code_group(above) and is_code_group(code)
            and _ends_a_sentence(told) and not is_code_group(told))


def _ends_a_sentence(group: list[str]) -> bool:
    last = group[-1].rstrip()
    return last.endswith(SENTENCE_ENDS[:3]) and not looks_like_code(last)
