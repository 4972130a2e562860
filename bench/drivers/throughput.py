"""Time one engine over every post of a folder, on one core, and print a JSON line with
the bytes read and the seconds spent.

    python throughput.py newsletter|pelican FOLDER

newsletter: `newsletter.summarize.summarize(text)` on each post's text.
pelican: Pelican's Markdown reader (Python-Markdown with Pelican's default extensions, plus
its metadata parsing) on each post file: what Pelican spends to read a post.
"""

import json
import os
import sys
import time
from pathlib import Path


def newsletter_engine(paths):
    from newsletter.summarize import summarize

    texts = [path.read_text(encoding="utf-8") for path in paths]
    return lambda: [summarize(text) for text in texts]


def pelican_engine(paths):
    from pelican.readers import MarkdownReader
    from pelican.settings import read_settings

    reader = MarkdownReader(read_settings(None, override={"SITEURL": "https://example.org", "TIMEZONE": "UTC"}))
    return lambda: [reader.read(str(path)) for path in paths]


ENGINES = {"newsletter": newsletter_engine, "pelican": pelican_engine}


def main() -> None:
    engine, folder = sys.argv[1], Path(sys.argv[2])
    # One core: the figure is per core, whatever else the machine runs.
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    paths = sorted(folder.glob("*.md"))
    work = ENGINES[engine](paths)
    start = time.perf_counter()
    work()
    seconds = time.perf_counter() - start
    size = sum(path.stat().st_size for path in paths)
    print(json.dumps({"bytes": size, "seconds": seconds, "posts": len(paths)}))


if __name__ == "__main__":
    main()
