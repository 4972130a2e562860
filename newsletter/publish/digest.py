"""A digest -> its HTML email (Jinja2 -> MJML -> HTML), its plain-text twin and its message;
and the archive's index page.

The email and the text are rendered from the same view of each entry (newsletter/views.py),
never one from the other. The HTML must stay under the size at which Gmail clips a message,
however large the posts: long feature lists collapse into "and N more" linking to the post
and, if that is not enough, every post shows fewer bullets and features.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import secrets
import textwrap
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import import_module
from pathlib import Path

import jinja2
import lxml.html
import markupsafe
import platformdirs
from mjml import mjml2html

from newsletter.config import Config
from newsletter.errors import TemplateError
from newsletter.languages import language_tag
from newsletter.models import Digest, GraduatedLine, RenderedDigest
from newsletter.publish.atom import digest_title
from newsletter.publish.paths import DIGESTS_FEED, INDEX, POSTS_FEED, POSTS_JSON_FEED, digest_path, site_url
from newsletter.publish.sanitize import one_line
from newsletter.publish.views import (
    EntryView,
    EntryViews,
    PostPage,
    date_range_text,
    date_text,
    entry_view,
)

log = logging.getLogger(__name__)

# Installed as the package newsletter.templates, from the checkout's top-level templates/:
# its folder, found as importlib.resources would, without the ~4 ms of its zip readers.
BUNDLED_TEMPLATES = Path(str(import_module("newsletter.templates").__file__)).parent

# Gmail clips a message whose HTML passes about 102 KB; the margin leaves room for the
# per-recipient unsubscribe address the mailer puts in.
SIZE_LIMIT = 100 * 1024
# Width of the plain-text twin; lines of URLs may run longer, they are never broken.
TEXT_WIDTH = 72


@dataclass(frozen=True)
class Limits:
    """How much of each post a digest shows; None is no limit."""

    bullets: int | None
    features: int | None
    posts: int | None = None
    # Characters of a bullet, past which it is cut with an ellipsis.
    bullet_length: int | None = None


# No post renders in fewer bytes than this: its title and date in the layout's tables take
# about 1,600.
MIN_POST_BYTES = 1_000
# Tried in order until the HTML fits under SIZE_LIMIT. The first is what every digest gets:
# a feature list longer than a phone screen collapses into "and N more". Every post shown
# keeps its first highlight: a title over "and 8 more highlights" tells a reader nothing.
FITTING = (
    Limits(bullets=None, features=10),
    Limits(bullets=5, features=6),
    Limits(bullets=3, features=3),
    Limits(bullets=1, features=0),
    Limits(bullets=1, features=0, posts=40, bullet_length=160),
    Limits(bullets=1, features=0, posts=15, bullet_length=160),
)
# Mail clients show about this much of a subject line.
SUBJECT_LIMIT = 80
# Titles a subject names at most before "and N more".
SUBJECT_NAMES = 3


def render_digest(config: Config, digest: Digest, graduated: Sequence[GraduatedLine] = ()) -> RenderedDigest:
    """The digest's email HTML, its plain-text twin and its subject, with a slot where each
    message puts its own unsubscribe address; `graduated` lists the features whose label its
    posts changed ("Streaming Reader: Beta → Stable", linking its project's feature page)."""
    # Only the posts a try could show are viewed: a first build's digest may carry thousands.
    views = [entry_view(entry, site_url(config, "")) for entry in digest.entries[:SIZE_LIMIT // MIN_POST_BYTES]]
    # Plain enough to pass through HTML escaping and MJML unchanged.
    slot = f"https://unsubscribe.invalid/{secrets.token_hex(16)}"
    # The service at [web] serves the preferences page; without it there is none to link to.
    preferences = f"https://preferences.invalid/{secrets.token_hex(16)}" if config.web else None
    context = _digest_context(config, digest, views, slot) | {"graduated": list(graduated),
                                                               "preferences_url": preferences}
    for limits in FITTING:
        # A try with more posts than could ever fit is skipped rather than compiled.
        tried = len(digest.entries) if limits.posts is None else min(limits.posts, len(digest.entries))
        if tried * MIN_POST_BYTES > SIZE_LIMIT and limits is not FITTING[-1]:
            continue
        shown = [v.shortened(limits.bullets, limits.features, limits.bullet_length) for v in views[: limits.posts]]
        context.update(entries=shown, more_posts=len(digest.entries) - len(shown))
        html = _compile_mjml(config, "digest.mjml.j2", context)
        if len(html.encode("utf-8")) <= SIZE_LIMIT:
            break
    return RenderedDigest(
        html=html,
        text=_render(config, "digest.txt.j2", context),
        subject=context["subject"],
        unsubscribe_slot=slot,
        preferences_slot=preferences,
    )


def archive_copy(config: Config, rendered: RenderedDigest) -> RenderedDigest:
    """The copy kept in the archive, addressed to no one: its "Unsubscribe" and preferences
    links point to the archive page, where a reader finds how the list is run."""
    html, text = rendered.html, rendered.text
    for slot in filter(None, (rendered.unsubscribe_slot, rendered.preferences_slot)):
        html, text = html.replace(slot, str(markupsafe.escape(config.site.url))), text.replace(slot, config.site.url)
    return replace(rendered, html=html, text=text)


def _digest_context(config: Config, digest: Digest, views: list[EntryView], unsubscribe_slot: str) -> dict:
    """`views` of the digest's first entries: its dates are read from every entry."""
    dates = [entry.published for entry in digest.entries] or [digest.created]
    count = len(digest.entries)
    return {
        "site": config.site,
        "language": language_tag(config.site.language) or "en",
        "title": digest_title(config, digest.created, len(digest.entries)),
        "subject": _subject(one_line(config.site.title), [v.name for v in views[:SUBJECT_NAMES]], count),
        "preheader": _preheader(views[:SUBJECT_NAMES * 4]),
        "date": date_text(digest.created),
        "date_range": date_range_text(min(dates), max(dates)),
        "post_count": count,
        "digest_url": site_url(config, digest_path(digest.name)),
        "archive_url": config.site.url,
        "posts_feed_url": site_url(config, POSTS_FEED),
        "unsubscribe_url": unsubscribe_slot,
        "entries": views,
        "more_posts": 0,
    }


def _subject(site_title: str, names: list[str], count: int) -> str:
    """"Release notes digest: Tern 0.9, Lumen 2.0 and 3 more": as many of the first posts'
    `names` as fit in SUBJECT_LIMIT characters, the first always (cut if it must be), of
    `count` posts."""
    if not names:
        return f"{site_title}: no new posts"
    for shown in range(min(len(names), SUBJECT_NAMES), 0, -1):
        rest = count - shown
        if rest:
            listed = ", ".join(names[:shown]) + f" and {rest} more"
        else:
            listed = " and ".join([", ".join(names[:-1]), names[-1]] if shown > 1 else names)
        subject = f"{site_title}: {listed}"
        if len(subject) <= SUBJECT_LIMIT or shown == 1:
            return one_line(subject, SUBJECT_LIMIT)
    raise AssertionError("unreachable: one name is always shown")


def _preheader(views: list[EntryView]) -> str:
    """What a mailbox shows beside the subject: the first highlight of each post, or their
    titles when they have none; never the subject again."""
    shown = [v.bullets[0] if v.bullets else v.title for v in views]
    return one_line(" · ".join(shown), 150)


def feed_body(html: str) -> str:
    """The inside of a digest email's <body>, for a feed entry: without what only makes sense
    in a mailbox (the hidden preheader, anything marked `email-only`)."""
    body = lxml.html.document_fromstring(html).find("body")
    if body is None:
        return ""
    for element in body.xpath(
        "//*[contains(translate(@style, ' ', ''), 'display:none')"
        " or contains(concat(' ', normalize-space(@class), ' '), ' email-only ')]"
    ):
        element.drop_tree()
    return (body.text or "") + "".join(lxml.html.tostring(child, encoding="unicode") for child in body)


def render_index(config: Config, digests: list[Digest], *, older: str | None = None, newer: str | None = None) -> str:
    """A page of the archive's index (index_pages.py): its digests, newest first, with links
    to each, to both feeds, and to the `older` and `newer` pages, if any."""
    listed = []
    days = Counter(digest.created.date() for digest in digests)
    for digest in sorted(digests, key=lambda d: (d.created, d.id), reverse=True):
        # Digests of one day told apart by their time.
        time = f"{digest.created:%H:%M} UTC" if days[digest.created.date()] > 1 else None
        listed.append({
            "name": digest.name,
            "path": digest_path(digest.name),
            "date": date_text(digest.created),
            "time": time,
            "iso_date": digest.created.isoformat() if time else digest.created.date().isoformat(),
            "entries": EntryViews(digest.entries, ""),
        })
    return _render(
        config, "index.html.j2",
        {"site": config.site, "language": language_tag(config.site.language) or "en",
         "digests": listed, "posts_feed": POSTS_FEED, "posts_json_feed": POSTS_JSON_FEED,
         "digests_feed": DIGESTS_FEED,
         "signup": config.web is not None, "older": older, "newer": newer},
    )


def render_post_page(config: Config, page: PostPage, text_html: str | None) -> str:
    """A post's page in the archive (post.html.j2); `text_html`, the post's own text as
    sanitize.post_html renders it, is shown when the post has no address to read it at."""
    form = page.post
    shown = None if form.url or not text_html else markupsafe.Markup(text_html)
    return _render(
        config, "post.html.j2",
        {"site": config.site, "language": language_tag(config.site.language) or "en", "index": f"../{INDEX}",
         "post": form, "text": shown,
         "forms": [{"url": link.url, "language": link.language, "language_name": link.language_name,
                    "current": current} for link, current in page.forms]},
    )


def templates_fingerprint(config: Config) -> str:
    """Changes whenever a template (a `.j2` file of the template folders) changes: a page
    written from templates is written again then."""
    digest = hashlib.sha256()
    for folder in _template_folders(config):
        for path in sorted(Path(folder).rglob("*.j2")):
            if path.is_file():
                digest.update(f"{path.relative_to(folder)}\0{path.stat().st_size}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def render_template(config: Config, name: str, context: dict) -> str:
    """A page of the archive from its template (the user's first, then the bundled one)."""
    return _render(config, name, context)


def render_signup(config: Config, action: str) -> str:
    """The sign-up form with its own style, for a page outside the archive's style sheet."""
    return _render(config, "signup.html.j2", {"action": action, "inline": True})


def render_page(config: Config, title: str, message: str, form: dict | None = None) -> str:
    """A page of the web service (newsletter/web/), in the archive's style: page.html.j2."""
    return _render(
        config, "page.html.j2",
        {"site": config.site, "language": language_tag(config.site.language) or "en",
         "title": title, "message": message, "form": form},
    )


# -- templates ---------------------------------------------------------------


def _environment(config: Config) -> jinja2.Environment:
    return _environment_for(tuple(_template_folders(config)))


@functools.cache
def _environment_for(folders: tuple[str, ...]) -> jinja2.Environment:
    """One environment per set of template folders, so a template is compiled once per
    process (Jinja2 still reloads one whose file changed)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folders),
        autoescape=jinja2.select_autoescape(("html", "mjml", "html.j2", "mjml.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_CompiledTemplates.in_user_cache(),
    )
    environment.filters["wrap"] = _wrap
    environment.filters["date"] = date_text
    return environment


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Templates compiled once and kept in the user's cache: compiling a build's five
    templates took 0.16 s of a build with one new post. Jinja2 names a template's entry by
    its file and checks its source's hash and the Python version on reading, so an edited
    template is compiled again. Trouble with the cache costs only the compiling."""

    @classmethod
    def in_user_cache(cls) -> _CompiledTemplates | None:
        folder = Path(platformdirs.user_cache_dir("newsletter")) / "templates"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.debug("compiled templates not kept in %s: %s", folder, exc)
            return None
        return cls(str(folder))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception as exc:  # a damaged entry: compiled again and written over
            log.debug("compiled template %s unreadable: %s", bucket.key, exc)
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError as exc:
            log.debug("compiled template %s not kept: %s", bucket.key, exc)


def _template_folders(config: Config) -> list[str]:
    """The user's folder first, so a template of the same name replaces the bundled one."""
    folders = [str(config.templates_dir)] if config.templates_dir else []
    return [*folders, str(BUNDLED_TEMPLATES)]


def _render(config: Config, name: str, context: dict) -> str:
    try:
        return _environment(config).get_template(name).render(context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"{exc.filename or name}:{exc.lineno}: {exc.message}") from None
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(f"{exc.name}: template not found in {', '.join(_template_folders(config))}") from None
    except Exception as exc:  # an error raised while a template runs: name where it ran
        raise TemplateError(f"{_template_position(config, exc) or name}: {exc}") from None


def _template_position(config: Config, exc: Exception) -> str | None:
    """"file:line" of the innermost template frame of `exc`'s traceback (Jinja2 rewrites
    the frames of compiled templates to point at the template source)."""
    folders = tuple(_template_folders(config))
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.startswith(folders):
            return f"{frame.filename}:{frame.lineno}"
    return None


def _compile_mjml(config: Config, name: str, context: dict) -> str:
    source = _render(config, name, context)
    try:
        # fonts={}: MJML would otherwise link a web font, which mail clients block or fetch
        # from a third party.
        return mjml2html(source, disable_comments=True, fonts={})
    except ValueError as exc:
        path = _environment(config).get_template(name).filename
        raise TemplateError(f"{path}: not valid MJML: {exc}") from None


def _wrap(text: str, width: int = TEXT_WIDTH, first: str = "", indent: str = "") -> str:
    """`text` wrapped for the plain-text twin, with `first` before the first line and
    `indent` before the others; long words (URLs) stay whole."""
    return textwrap.fill(
        text, width=width, initial_indent=first, subsequent_indent=indent,
        break_long_words=False, break_on_hyphens=False,
    ) or first.rstrip()
