"""Posts' own texts rendered as HTML for their pages, on every core when there are many.

python-markdown takes 10-30 ms a post: a first build's pages are rendered by a pool of
processes, their HTML handed back in the order asked, so the pages are the same bytes as
when rendered here. A few texts (an incremental build's) are rendered by the build's early
worker as soon as they are summarized, while the build makes its digest, or else here:
starting the pool would cost more than it saves. The worker loads python-markdown for them
then, not before: loading it while idle would hold up the summaries asked meanwhile.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from newsletter.models import PostFormat
from newsletter.processes import EarlyWorker, cores, exit_with_parent, start_method, worker_parent
from newsletter.publish.sanitize import post_html

# Below this many texts, rendering them here costs less than starting workers does.
MIN_POOL_TEXTS = 16
# Texts handed to a worker at a time: fewer round trips, still an even spread.
_CHUNK = 4


@dataclass(frozen=True)
class PostText:
    text: str
    text_format: PostFormat


def rendered(texts: list[PostText], workers: int | None = None,
             early: EarlyWorker | None = None) -> Generator[str, None, None]:
    """The HTML of each of `texts`, in their order, as each is ready."""
    workers = workers if workers is not None else cores()
    if workers < 2 or len(texts) < MIN_POOL_TEXTS:
        ready = early.run(_render, texts) if early is not None and texts else None
        yield from ready if ready is not None else (_render(text) for text in texts)
        return
    # As for the summarizer's pool: imported by a build that starts the pool only.
    from concurrent.futures import ProcessPoolExecutor

    context = start_method()
    with ProcessPoolExecutor(workers, mp_context=context, initializer=exit_with_parent,
                             initargs=(worker_parent(context),)) as pool:
        yield from pool.map(_render, texts, chunksize=_CHUNK)


def render_ahead(texts: list[PostText], early: EarlyWorker | None) -> None:
    """Has the early worker render these texts as soon as it can, while the build makes its
    digest and other pages, where their pages will ask it for them (too few for the pool):
    the page then takes its HTML ready, not 10-30 ms of python-markdown."""
    if early is not None and 0 < len(texts) < MIN_POOL_TEXTS:
        early.send_ahead(_keep_rendered, texts)


# In the early worker: the texts rendered ahead, until their pages ask for them.
_rendered_ahead: dict[PostText, str] = {}


def _keep_rendered(text: PostText) -> None:
    _rendered_ahead[text] = post_html(text.text, text.text_format)


def _render(text: PostText) -> str:
    ready = _rendered_ahead.pop(text, None)
    return ready if ready is not None else post_html(text.text, text.text_format)
