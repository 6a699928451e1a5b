"""Session-wide test setup: the suite cache lives in a per-session temp folder, never in ~."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

# Set before any test imports agentprop, and inherited by CLI subprocesses: the built-in suite
# is built once per session here instead of in the user's cache.
if "AGENTPROP_TEST_HOME" not in os.environ:
    os.environ["AGENTPROP_TEST_HOME"] = tempfile.mkdtemp(prefix="agentprop-tests-")
os.environ["AGENTPROP_HOME"] = os.environ["AGENTPROP_TEST_HOME"]

# The shared test doubles' fixtures (`workspace`); see agentprop/testing.py.
pytest_plugins = ["agentprop.testing"]


@pytest.fixture
def label_app() -> Callable[[Path], AbstractContextManager[str]]:
    """Serve the label app on a workspace (the test tasks' suite) on a free port: `with
    label_app(path) as url: ...`."""

    @contextlib.contextmanager
    def serve(workspace: Path) -> Iterator[str]:
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

    return serve
