"""Spread the subscribers of a config over N slices of its newest digest, each of which
keeps part of it (so every subscriber is mailed), and print the slices in one line.

    python give_slices.py CONFIG N
"""

import sys
from datetime import UTC, datetime

from newsletter.config import load
from newsletter.models import Slice
from newsletter.publish.slices import names_in, slice_text, sliced
from newsletter.state import digest_copies, subscribers
from newsletter.state.store import Store


def main() -> None:
    config, count = load(sys.argv[1]), int(sys.argv[2])
    assert config.email is not None
    addresses = [address.addr_spec.lower() for address in config.email.subscribers]
    with Store.open(config.state) as store:
        subscribers.ensure_listed(store, addresses, datetime.now(UTC))
        (head,) = store.digests_to_mail()
        snapshot = digest_copies.snapshot(store, head.id)
        assert snapshot is not None
        projects, sections = names_in(snapshot.entries, config.source_projects)
        candidates = [Slice("stable"), Slice("beta"), Slice(projects=frozenset(projects[:1])),
                      Slice(sections=frozenset(sections[:1])), Slice("stable", frozenset(projects[1:3])),
                      Slice(projects=frozenset(projects[3:5]))]
        chosen = [c for c in candidates if sliced(snapshot, c, config.source_projects).entries][:count]
        if len(chosen) < count:
            sys.exit(f"only {len(chosen)} slices of the digest keep something")
        # One transaction for every subscriber: the set-up is not what is measured.
        with store.transaction() as db:
            db.executemany("UPDATE subscribers SET slice = ? WHERE address = ?",
                           ((chosen[n % count].to_json(), address) for n, address in enumerate(addresses)))
    print(" / ".join(slice_text(c) for c in chosen))


if __name__ == "__main__":
    main()
