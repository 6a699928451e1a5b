"""The real google-genai SDK against serve-sim's generateContent route on loopback: whole agent
episodes equal to the in-process sim, retried faults, error traces, cache, keys."""

from __future__ import annotations

import time

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
from agentprop.models._google import from_gemini, from_gemini_tools, to_gemini, to_gemini_tools
from agentprop.store import Workspace

pytest.importorskip("google.genai")
SECRET = "AIza-test-SECRET-0123456789abcdef"
MODEL = f"google/{PROFILE}"
ROUTE = "generate_content"


@pytest.fixture(scope="module")
def suite():
    from agentprop.suite import load_suite

    return load_suite()


@pytest.fixture(scope="module")
def tasks(suite):
    return pick_tasks(suite)


@pytest.fixture(scope="module")
def expected(tmp_path_factory, suite, tasks):
    return in_process(tmp_path_factory.mktemp("inproc"), MODEL, suite, tasks)


@pytest.fixture(scope="module")
def srv(suite):
    with server(suite) as s:
        yield s


def test_conversion_round_trips():
    convo = [Message(role="system", content="sys"), Message(role="user", content="q"),
             Message(role="assistant", content="calling", tool_calls=[
                 {"id": "c1", "name": "f", "arguments": {"x": 1}},
                 {"id": "c2", "name": "f", "arguments": {"x": 2}}]),
             Message(role="tool", tool_call_id="c1", name="f", content='{"y": 1}'),
             Message(role="tool", tool_call_id="c2", name="f", content="plain text"),
             Message(role="user", content="warning"),
             Message(role="assistant", content="done")]
    assert from_gemini(*to_gemini(convo)) == convo
    tools = [ToolSpec(name="f", description="d", parameters={"type": "object"})]
    assert from_gemini_tools(to_gemini_tools(tools)) == tools


def test_episodes_over_http_equal_in_process(tmp_path, monkeypatch, srv, suite, tasks,
                                             expected):
    """The runner drives the real SDK; a rerun is served from the cache with zero
    requests; the API key is nowhere in the workspace."""
    monkeypatch.setenv("GOOGLE_API_KEY", SECRET)
    ws = Workspace(tmp_path / "w")
    before = stats(srv)[ROUTE]
    summary, traces = run(ws, MODEL, suite, tasks, base_url=srv.root_url)
    check_matches(traces, expected)
    sent = summary.model_calls - summary.cached_calls  # equal requests are sent once
    assert stats(srv)[ROUTE] - before == sent > len(traces)
    forget_traces(ws)
    again, traces2 = run(ws, MODEL, suite, tasks, base_url=srv.root_url)
    assert stats(srv)[ROUTE] - before == sent  # zero new requests
    assert again.cached_calls == again.model_calls == summary.model_calls
    check_matches(traces2, expected)
    assert SECRET not in dump_workspace(ws) and "SECRET" not in dump_workspace(ws)


@pytest.mark.parametrize("fault", ["429", "500", "malformed"])
def test_transient_faults_are_retried_until_success(tmp_path, suite, tasks, expected, fault):
    with server(suite, fail_rate=0.4, faults=(fault,), retry_after_s=0.01) as s:
        _, traces = run(Workspace(tmp_path / "w"), MODEL, suite, tasks[:2],
                        base_url=s.root_url, max_attempts=12, **FAST_RETRIES)
        check_matches(traces, {k: v for k, v in expected.items() if k in traces})
        assert stats(s)["by_route"][ROUTE]["faults"][fault] > 0


def test_persistent_fault_is_an_error_trace(tmp_path, suite, tasks):
    with server(suite, fail_rate=1.0, faults=("500",)) as s:
        summary, traces = run(Workspace(tmp_path / "w"), MODEL, suite, tasks[:1],
                              base_url=s.root_url, max_attempts=2, preflight=0,
                              **FAST_RETRIES)
        assert summary.errors == len(traces) > 0
        error_traces(traces, "server", 2)
        assert stats(s)["by_route"][ROUTE]["faults"] == {"500": 2 * len(traces)}


async def test_retry_after_and_timeout(suite):
    msgs = [Message(role="user", content="hi")]
    with server(suite, fail_rate=1.0, faults=("429",), retry_after_s=0.4) as s:
        m = get_model(MODEL, base_url=s.root_url, max_attempts=2)
        t0 = time.perf_counter()
        with pytest.raises(ModelError) as ei:
            await m.generate(msgs, [], GenerateConfig())
        assert ei.value.kind == "rate_limit" and time.perf_counter() - t0 >= 0.4
    with server(suite, fail_rate=1.0, faults=("timeout",), hold_s=1) as s:
        m = get_model(MODEL, base_url=s.root_url, max_attempts=2, **FAST_RETRIES)
        with pytest.raises(ModelError) as ei:
            await m.generate(msgs, [], GenerateConfig(timeout_s=0.3))
        assert ei.value.kind == "timeout" and ei.value.attempts == 2


async def test_base_url_from_env_needs_no_key(monkeypatch, srv, suite, tasks):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", srv.base_url)  # a trailing /v1 works too
    m = get_model(MODEL)
    assert m.base_url == srv.base_url  # type: ignore[attr-defined]
    out = await m.generate([Message(role="user", content=tasks[0].query)], [], GenerateConfig())
    assert out.text and not out.cached
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "https://api.example.com")
    with pytest.raises(ModelError, match="GOOGLE_API_KEY"):
        get_model(MODEL)


async def test_unknown_profile_is_not_retried(srv):
    m = get_model("google/no-such-profile", base_url=srv.root_url)
    with pytest.raises(ModelError) as ei:
        await m.generate([Message(role="user", content="hi")], [], GenerateConfig())
    assert ei.value.kind == "bad_request" and ei.value.attempts == 1
    assert "no-such-profile" in str(ei.value)
