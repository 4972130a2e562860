"""The summarizer against the labeled seed posts, scored by the shared scorer.

The seeds live in the `shared/` folder beside the repository (where CI clones it); set
NEWSLETTER_SHARED_DIR to point elsewhere. A clone without it skips this test.
"""

import pytest
from helpers import shared_dir
from helpers.scoring import below_bar, score_set

BAR = {"bullets F1": 1.0, "features F1": 0.98, "stability": 0.98, "section": 0.95, "title": 1.0}


@pytest.mark.slow
def test_seed_posts_meet_the_bar(tmp_path):
    shared = shared_dir()
    if shared is None or not (shared / "eval" / "score.py").is_file():
        pytest.skip("no shared folder beside the repository (set NEWSLETTER_SHARED_DIR)")
    figures, report = score_set(shared, "seeds", tmp_path)
    below = below_bar(figures, BAR)
    assert not below, f"below the bar {BAR}: {below}\n{report}"
