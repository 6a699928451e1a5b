"""Session-wide test setup: the suite cache lives in a per-session temp folder, never in ~."""

from __future__ import annotations

import os
import tempfile

# Set before any test imports agentprop, and inherited by CLI subprocesses: the built-in suite
# is built once per session here instead of in the user's cache.
if "AGENTPROP_TEST_HOME" not in os.environ:
    os.environ["AGENTPROP_TEST_HOME"] = tempfile.mkdtemp(prefix="agentprop-tests-")
os.environ["AGENTPROP_HOME"] = os.environ["AGENTPROP_TEST_HOME"]

# The shared test doubles' fixtures (`workspace`); see agentprop/testing.py.
pytest_plugins = ["agentprop.testing"]
