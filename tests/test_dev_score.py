"""The summarizer against the dev set: real release posts of about a dozen projects other
than the seeds', in every shape (see the shared eval/gold/dev/NOTES.md), scored by the
shared scorer. docs/ACCURACY.md records the figures. A clone without the shared folder
skips this test.
"""

import pytest
from helpers import shared_dir
from helpers.scoring import below_bar, score_set

BAR = {"bullets F1": 0.95, "features F1": 0.95, "stability": 0.98, "section": 0.90, "title": 0.95}


def test_dev_posts_meet_the_bar(tmp_path):
    shared = shared_dir()
    if shared is None or not (shared / "eval" / "gold" / "dev").is_dir():
        pytest.skip("no shared folder with the dev set beside the repository (set NEWSLETTER_SHARED_DIR)")
    figures, report = score_set(shared, "dev", tmp_path)
    below = below_bar(figures, BAR)
    assert not below, f"below the bar {BAR}: {below}\n{report}"
