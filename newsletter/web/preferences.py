"""The preferences page: a subscriber's slice (newsletter/publish/slices.py) as a form of
plain radio buttons and checkboxes, which works without script.

The projects and sections offered are those the recent digests' posts name, and any the
subscriber chose before (a project quiet for a while stays ticked).
"""

from __future__ import annotations

from flask import abort
from werkzeug.datastructures import MultiDict

from newsletter.config import Config
from newsletter.languages import language_tag
from newsletter.models import MinStability, Slice
from newsletter.publish.digest import render_template
from newsletter.publish.slices import names_in, slice_text
from newsletter.state import digest_copies
from newsletter.state.store import Store
from newsletter.state.subscribers import Subscriber

# Digests whose posts' projects and sections the form offers, and how many posts at most
# are read for them (a first build's digest may carry thousands).
RECENT_DIGESTS = 10
MOST_POSTS = 500
# A name longer, or more names in one list, is not one the form offered.
MAX_NAME = 200
MAX_NAMES = 100
# The form's values of min_stability; empty is everything.
LEAST: dict[str, MinStability | None] = {"stable": "stable", "beta": "beta", "": None}
STABILITIES = [("stable", "Stable features only"), ("beta", "Beta and stable features"),
               ("", "Everything, prototypes and experiments too")]


def from_form(form: MultiDict[str, str]) -> Slice:
    """The slice the form asks for; aborts with 400 naming the field that is wrong."""
    stability = form.get("min_stability", "")
    if stability not in LEAST:
        abort(400, "min_stability is stable, beta, or empty for everything.")
    lists = {}
    for field in ("project", "section"):
        names = [name.strip() for name in form.getlist(field) if name.strip()]
        if len(names) > MAX_NAMES or any(len(name) > MAX_NAME or not name.isprintable() for name in names):
            abort(400, f"{field}: at most {MAX_NAMES} names of one line, each at most {MAX_NAME} characters.")
        lists[field] = frozenset(names)
    return Slice(LEAST[stability], lists["project"], lists["section"])


def render(config: Config, store: Store, subscriber: Subscriber, chosen: Slice, saved: bool, action: str) -> str:
    recent = digest_copies.recent_entries(store, RECENT_DIGESTS, MOST_POSTS)
    projects, sections = names_in(recent, config.source_projects)
    if saved:
        message = f"Saved: from the next digest on, {subscriber.address} gets {slice_text(chosen)}."
    else:
        message = f"What {subscriber.address} gets of each digest: {slice_text(chosen)}."
    if subscriber.status != "active":
        # The choice is kept all the same, for the day they come back.
        message += f" This address is {subscriber.status}: no digest goes to it now."
    return render_template(config, "preferences.html.j2", {
        "site": config.site, "language": language_tag(config.site.language) or "en",
        "title": "Your digest", "message": message, "action": action,
        "stability": chosen.min_stability or "", "stabilities": STABILITIES,
        "projects": _choices(projects, chosen.projects), "sections": _choices(sections, chosen.sections),
    })


def _choices(offered: list[str], chosen: frozenset[str]) -> list[tuple[str, bool]]:
    """The names the form lists, as (name, ticked): recent digests' names, then chosen ones
    no digest named lately. No more than the form takes back (MAX_NAMES): chosen names always
    stay, the others fill what room is left."""
    folded = {name.casefold() for name in chosen}
    listed = {name.casefold() for name in offered}
    extra = sorted((name for name in chosen if name.casefold() not in listed), key=str.casefold)
    room = MAX_NAMES - len(chosen)
    choices = []
    for name in [*offered, *extra]:
        ticked = name.casefold() in folded
        if ticked or room > 0:
            choices.append((name, ticked))
            room -= not ticked
    return choices
