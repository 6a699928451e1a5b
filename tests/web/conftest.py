"""The browser tests' Chromium: Debian's (no download), with the flags it runs with here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def chromium() -> tuple[str, list[str]]:
    """(executable, launch args); the test is skipped when Chromium or Playwright is
    missing, and fails instead under AGENTPROP_REQUIRE_BROWSER (CI)."""
    missing = []
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        missing.append(CHROMIUM)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright")
    if missing:
        if os.environ.get("AGENTPROP_REQUIRE_BROWSER"):
            pytest.fail(f"browser tests required but missing: {', '.join(missing)}")
        pytest.skip(f"missing {', '.join(missing)}")
    return CHROMIUM, list(ARGS)
