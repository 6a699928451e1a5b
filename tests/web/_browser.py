"""What the browser tests share: Debian's Chromium (no download), its launch flags, the
skip-or-fail rule when it is missing, and the label app served on a free port."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def browser_or_skip() -> None:
    """Skip when Chromium or Playwright is missing, unless AGENTPROP_REQUIRE_BROWSER (CI)."""
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


@contextlib.contextmanager
def label_app(workspace: Path) -> Iterator[str]:
    """The label app on `workspace` (the test tasks' suite), its URL while the block runs."""
    from agentprop.labels import make_server
    from agentprop.suite import Suite
    from tests.judges.conftest import TASKS

    server = make_server(workspace, Suite(list(TASKS), seed=0), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
