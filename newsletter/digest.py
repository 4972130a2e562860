"""A digest -> its HTML email (Jinja2 -> MJML -> HTML), its plain-text twin and its .eml;
and the archive's index page."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from itertools import groupby
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
from mjml import mjml2html

from newsletter.atom import entry_link, entry_title
from newsletter.config import Config
from newsletter.models import Digest, Entry
from newsletter.sanitize import one_line, safe_url

BUNDLED_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


class TemplateError(Exception):
    """A template cannot be loaded or rendered; the message names its file and line."""


@dataclass(frozen=True)
class RenderedDigest:
    html: str
    text: str
    subject: str


def _environment(config: Config) -> jinja2.Environment:
    folders = [str(config.templates_dir)] if config.templates_dir else []
    folders.append(str(BUNDLED_TEMPLATES))
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folders),
        autoescape=jinja2.select_autoescape(("html", "mjml", "html.j2", "mjml.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _render(config: Config, name: str, **context) -> str:
    try:
        return _environment(config).get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"{exc.filename or name}:{exc.lineno}: {exc.message}") from None
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(f"{name}: template not found") from None
    except jinja2.TemplateError as exc:
        raise TemplateError(f"{name}: {exc}") from None


def _entry_view(entry: Entry) -> dict:
    """What a template needs of one entry: plain, already-safe values."""
    summary = entry.primary.summary
    sections = [
        {"title": one_line(section), "features": [
            {"heading": one_line(f.heading), "stability": f.stability} for f in features
        ]}
        for section, features in groupby(summary.features, key=lambda f: f.section)
    ]
    return {
        "title": entry_title(entry),
        "link": entry_link(entry),
        "date": entry.published.date().isoformat(),
        "bullets": [one_line(b, 1000) for b in summary.summary_bullets],
        "sections": sections,
        "also_in": [
            {"language": form.summary.language, "link": safe_url(form.summary.canonical_url or form.url)}
            for form in entry.alternates
        ],
    }


def render_digest(config: Config, digest: Digest) -> RenderedDigest:
    context = {
        "site": config.site,
        "digest": digest,
        "language": digest.entries[0].primary.summary.language if digest.entries else "en",
        "entries": [_entry_view(e) for e in digest.entries],
        "archive_url": config.site.url,
    }
    mjml_source = _render(config, "digest.mjml.j2", **context)
    result = mjml2html(mjml_source, disable_comments=True, fonts={})
    subject = one_line(f"{config.site.title}: {len(digest.entries)} new posts ({digest.name})")
    return RenderedDigest(
        html=result, text=_render(config, "digest.txt.j2", **context), subject=subject
    )


def digest_email(config: Config, digest: Digest, rendered: RenderedDigest) -> bytes:
    """The digest as a multipart/alternative message: the plain text first, then the HTML."""
    message = EmailMessage(policy=SMTP)
    message["Subject"] = rendered.subject
    message["From"] = f"{one_line(config.site.title)} <newsletter@{_host(config)}>"
    message["Date"] = format_datetime(digest.created)
    message["Message-ID"] = f"<digest-{digest.name}@{_host(config)}>"
    message.set_content(rendered.text, cte="quoted-printable")
    message.add_alternative(rendered.html, subtype="html", cte="quoted-printable")
    return message.as_bytes()


def render_index(config: Config, digests: list[Digest]) -> str:
    return _render(
        config, "index.html.j2", site=config.site,
        digests=[{"name": d.name, "date": d.created.date().isoformat(),
                  "titles": [entry_title(e) for e in d.entries]} for d in digests],
    )


def _host(config: Config) -> str:
    return urlsplit(config.site.url).hostname or "localhost"
