"""The real anthropic and google-genai SDKs against serve-sim's Messages and generateContent
routes on loopback: whole agent episodes equal to the in-process sim, retried faults, error
traces, cache, keys. One set of tests, run once per provider."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from wirecases import (
    FAST_RETRIES,
    PROFILE,
    check_matches,
    dump_workspace,
    error_traces,
    forget_traces,
    in_process,
    pick_tasks,
    run,
    server,
    stats,
)

from agentprop.core import Message, ToolSpec
from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.store import Workspace


@dataclass(frozen=True)
class Provider:
    prefix: str
    sdk: str
    route: str
    secret: str
    key_env: tuple[str, ...]  # the first is the one the missing-key message names
    base_url_env: str
    codec: Callable[[], tuple[Any, Any, Any, Any]]  # (to, from, to_tools, from_tools)

    @property
    def model(self) -> str:
        return f"{self.prefix}/{PROFILE}"


def _anthropic_codec() -> tuple[Any, Any, Any, Any]:
    from agentprop.models import _anthropic as a

    return a.to_anthropic, a.from_anthropic, a.to_anthropic_tools, a.from_anthropic_tools


def _gemini_codec() -> tuple[Any, Any, Any, Any]:
    from agentprop.models import _google as g

    return g.to_gemini, g.from_gemini, g.to_gemini_tools, g.from_gemini_tools


PROVIDERS = [
    Provider("anthropic", "anthropic", "messages", "sk-ant-test-SECRET-0123456789abcdef",
             ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", _anthropic_codec),
    Provider("google", "google.genai", "generate_content", "AIza-test-SECRET-0123456789abcdef",
             ("GOOGLE_API_KEY", "GEMINI_API_KEY"), "GOOGLE_GEMINI_BASE_URL", _gemini_codec),
]


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.fixture(scope="module", params=PROVIDERS, ids=lambda p: p.prefix)
def prov(request: pytest.FixtureRequest) -> Provider:
    p: Provider = request.param
    if not _installed(p.sdk):
        pytest.skip(f"{p.sdk} is not installed")
    return p


@pytest.fixture(scope="module")
def suite():
    from agentprop.suite import load_suite

    return load_suite()


@pytest.fixture(scope="module")
def tasks(suite):
    return pick_tasks(suite)


@pytest.fixture(scope="module")
def expected(tmp_path_factory, suite, tasks, prov):
    return in_process(tmp_path_factory.mktemp("inproc"), prov.model, suite, tasks)


@pytest.fixture(scope="module")
def srv(suite):
    with server(suite) as s:
        yield s


def test_conversion_round_trips(prov):
    to, back, to_tools, back_tools = prov.codec()
    convo = [Message(role="system", content="sys"), Message(role="user", content="q"),
             Message(role="assistant", content="calling", tool_calls=[
                 {"id": "c1", "name": "f", "arguments": {"x": 1}},
                 {"id": "c2", "name": "f", "arguments": {"x": 2}}]),
             Message(role="tool", tool_call_id="c1", name="f", content='{"y": 1}'),
             Message(role="tool", tool_call_id="c2", name="f", content="plain text"),
             Message(role="user", content="warning"),
             Message(role="assistant", content="done")]
    assert back(*to(convo)) == convo
    tools = [ToolSpec(name="f", description="d", parameters={"type": "object"})]
    assert back_tools(to_tools(tools)) == tools


def test_episodes_over_http_equal_in_process(tmp_path, monkeypatch, prov, srv, suite, tasks,
                                             expected):
    """The runner drives the real SDK; a rerun is served from the cache with zero
    requests; the API key is nowhere in the workspace."""
    monkeypatch.setenv(prov.key_env[0], prov.secret)
    ws = Workspace(tmp_path / "w")
    before = stats(srv)[prov.route]
    summary, traces = run(ws, prov.model, suite, tasks, base_url=srv.root_url)
    check_matches(traces, expected)
    sent = summary.model_calls - summary.cached_calls  # equal requests are sent once
    assert stats(srv)[prov.route] - before == sent > len(traces)
    forget_traces(ws)
    again, traces2 = run(ws, prov.model, suite, tasks, base_url=srv.root_url)
    assert stats(srv)[prov.route] - before == sent  # zero new requests
    assert again.cached_calls == again.model_calls == summary.model_calls
    check_matches(traces2, expected)
    assert prov.secret not in dump_workspace(ws) and "SECRET" not in dump_workspace(ws)


@pytest.mark.parametrize("fault", ["429", "500", "malformed"])
def test_transient_faults_are_retried_until_success(tmp_path, prov, suite, tasks, expected,
                                                    fault):
    with server(suite, fail_rate=0.4, faults=(fault,), retry_after_s=0.01) as s:
        _, traces = run(Workspace(tmp_path / "w"), prov.model, suite, tasks[:2],
                        base_url=s.root_url, max_attempts=12, **FAST_RETRIES)
        check_matches(traces, {k: v for k, v in expected.items() if k in traces})
        assert stats(s)["by_route"][prov.route]["faults"][fault] > 0


def test_persistent_fault_is_an_error_trace(tmp_path, prov, suite, tasks):
    with server(suite, fail_rate=1.0, faults=("500",)) as s:
        summary, traces = run(Workspace(tmp_path / "w"), prov.model, suite, tasks[:1],
                              base_url=s.root_url, max_attempts=2, preflight=0,
                              **FAST_RETRIES)
        assert summary.errors == len(traces) > 0
        error_traces(traces, "server", 2)
        assert stats(s)["by_route"][prov.route]["faults"] == {"500": 2 * len(traces)}


async def test_retry_after_and_timeout(prov, suite):
    msgs = [Message(role="user", content="hi")]
    with server(suite, fail_rate=1.0, faults=("429",), retry_after_s=0.4) as s:
        m = get_model(prov.model, base_url=s.root_url, max_attempts=2)
        t0 = time.perf_counter()
        with pytest.raises(ModelError) as ei:
            await m.generate(msgs, [], GenerateConfig())
        assert ei.value.kind == "rate_limit" and time.perf_counter() - t0 >= 0.4
    with server(suite, fail_rate=1.0, faults=("timeout",), hold_s=1) as s:
        m = get_model(prov.model, base_url=s.root_url, max_attempts=2, **FAST_RETRIES)
        with pytest.raises(ModelError) as ei:
            await m.generate(msgs, [], GenerateConfig(timeout_s=0.3))
        assert ei.value.kind == "timeout" and ei.value.attempts == 2


async def test_base_url_from_env_needs_no_key(monkeypatch, prov, srv, suite, tasks):
    for var in prov.key_env:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(prov.base_url_env, srv.base_url)  # a trailing /v1 works too
    m = get_model(prov.model)
    assert m.base_url == srv.base_url  # type: ignore[attr-defined]
    out = await m.generate([Message(role="user", content=tasks[0].query)], [], GenerateConfig())
    assert out.text and not out.cached
    monkeypatch.setenv(prov.base_url_env, "https://api.example.com")
    with pytest.raises(ModelError, match=prov.key_env[0]):
        get_model(prov.model)


async def test_unknown_profile_is_not_retried(prov, srv):
    m = get_model(f"{prov.prefix}/no-such-profile", base_url=srv.root_url)
    with pytest.raises(ModelError) as ei:
        await m.generate([Message(role="user", content="hi")], [], GenerateConfig())
    assert ei.value.kind == "bad_request" and ei.value.attempts == 1
    assert "no-such-profile" in str(ei.value)
