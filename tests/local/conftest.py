"""Real-model fixtures: SmolLM2-135M through llama-cpp-python (the `local` extra), in-process
and behind `agentprop serve-local`. Without the extra they skip, unless
AGENTPROP_REQUIRE_LOCAL=1 (CI sets it): then they fail (`tests/conftest.py::local_model_path`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port, local_model_path, openai_server_process

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def smollm2_file() -> Path:
    return local_model_path()


@pytest.fixture(scope="session")
def smollm2(smollm2_file: Path):  # type: ignore[no-untyped-def]
    """One in-process model for the whole session (each context holds its own KV cache; a
    shared one keeps prompt prefixes warm)."""
    from agentprop.models import get_model

    return get_model("local/smollm2-135m", n_ctx=4096)


@pytest.fixture(scope="session")
def serve_local(smollm2_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`agentprop serve-local` (llama-cpp-python's server app with agentprop's handler) on a
    free loopback port, 2 threads; yields its base URL."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    command = [sys.executable, "-c", "from agentprop.cli import main; main()", "serve-local",
               "--port", str(port), "-o", "n_threads=2"]
    log = tmp_path_factory.mktemp("serve-local") / "server.log"
    with openai_server_process(command, port, log, "serve-local", env) as (url, _):
        yield url
