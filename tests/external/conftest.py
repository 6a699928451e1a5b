"""A serve-sim on loopback, as the external agents' OpenAI-compatible LLM."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentprop.sim import ServerConfig, ServerThread


@pytest.fixture(scope="package")
def sim_url() -> Iterator[str]:
    with ServerThread(ServerConfig(port=0)) as srv:
        yield srv.base_url


@pytest.fixture
def openai_env(sim_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_BASE_URL", sim_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-none")
    monkeypatch.setenv("AGENT_MODEL", "balanced")
    return sim_url
