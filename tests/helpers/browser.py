"""The system's Chromium, as the browser tests start it (never a downloaded browser)."""

import shutil

from helpers import REPO

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Screenshots for a person to look at.
ARTIFACTS = REPO / "tests" / "artifacts"
# Headless as root, and without the background connections a closed network refuses.
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
