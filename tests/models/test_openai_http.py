"""The real openai SDK against serve-sim on loopback: round trips, faults, cache, keys."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from simfakes import TOOLS, run_fake_episode, wrong_city

from agentprop.core import Message
from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.sim import PROFILES, SimModel
from agentprop.sim._server import ServerConfig, ServerThread

SECRET = "sk-test-SECRET-0123456789abcdef"


class DictStore:
    def __init__(self) -> None:
        self.rows: dict[str, dict] = {}

    def cache_get(self, key: str) -> dict | None:
        return self.rows.get(key)

    def cache_put(self, key: str, value: dict) -> None:
        self.rows[key] = value


@pytest.fixture(scope="module")
def server(fake_suite, fake_generators):
    with ServerThread(ServerConfig(port=0), suite=fake_suite,
                      generators=fake_generators) as srv:
        yield srv


def faulty(fake_suite, fake_generators, fault: str, rate: float = 1.0, **kw) -> ServerThread:
    return ServerThread(ServerConfig(port=0, fail_rate=rate, faults=(fault,), **kw),
                        suite=fake_suite, generators=fake_generators)


def client(base_url: str, profile: str = "oracle", **kw):
    kw.setdefault("retry_base_s", 0.005)
    kw.setdefault("retry_max_s", 0.02)
    return get_model(f"openai/{profile}", base_url=base_url, **kw)


def stats(srv: ServerThread) -> dict:
    return httpx.get(srv.base_url.removesuffix("/v1") + "/stats").json()


async def test_tool_call_round_trip(server, fake_suite):
    m = client(server.base_url)
    task = next(t for t in fake_suite.tasks if len(t.gold_plan) == 2)
    ep = await run_fake_episode(m, task)
    assert [(c.name, c.arguments) for c in ep["calls"]] == [
        (c.name, c.arguments) for c in task.gold_plan]
    assert ep["answer"] == task.reference_answer


async def test_http_and_in_process_agree(server, fake_suite, fake_generators):
    for name in ("balanced", "self-correcting", "tool-averse"):
        remote = client(server.base_url, name)
        local = SimModel(PROFILES[name], suite=fake_suite, generators=fake_generators)
        for task in fake_suite.tasks[:8]:
            for corrupt in (None, wrong_city):
                a = await run_fake_episode(remote, task, seed=1, corrupt=corrupt)
                b = await run_fake_episode(local, task, seed=1, corrupt=corrupt)
                assert a["answer"] == b["answer"]
                assert [c.model_dump() for c in a["calls"]] == [
                    c.model_dump() for c in b["calls"]]
                assert a["texts"] == b["texts"]


async def test_cache_hit_makes_zero_requests_and_never_stores_the_key(server, fake_suite):
    store = DictStore()
    m = client(server.base_url, api_key=SECRET, cache=store)
    task = fake_suite.tasks[0]
    msgs = [Message(role="user", content=task.query)]
    before = stats(server)["chat_completions"]
    first = await m.generate(msgs, TOOLS, GenerateConfig())
    assert stats(server)["chat_completions"] == before + 1 and not first.cached
    m2 = client(server.base_url, api_key=SECRET, cache=store)  # a fresh model: a rerun
    again = await m2.generate(msgs, TOOLS, GenerateConfig())
    assert stats(server)["chat_completions"] == before + 1
    assert again.cached and again.tool_calls == first.tool_calls
    dumped = json.dumps(store.rows) + json.dumps(first.raw) + repr(m)
    assert SECRET not in dumped and "SECRET" not in json.dumps(list(store.rows))
    # a different epoch or base URL is a different key
    m3 = client(server.base_url, cache=store, cache_epoch=1)
    await m3.generate(msgs, TOOLS, GenerateConfig())
    assert stats(server)["chat_completions"] == before + 2


@pytest.mark.parametrize(("fault", "kind"), [("429", "rate_limit"), ("500", "server")])
async def test_fault_exhausts_attempts(fake_suite, fake_generators, fault, kind):
    with faulty(fake_suite, fake_generators, fault, retry_after_s=0.01) as srv:
        m = client(srv.base_url, max_attempts=3)
        with pytest.raises(ModelError) as ei:
            await m.generate([Message(role="user", content=fake_suite.tasks[0].query)],
                             TOOLS, GenerateConfig())
        assert ei.value.kind == kind and ei.value.attempts == 3
        assert stats(srv)["faults"] == {fault: 3}


async def test_unparseable_arguments_are_the_models_output_not_retried(fake_suite,
                                                                       fake_generators):
    """Arguments cut mid-JSON are what the model wrote: kept as an unparsed call after one
    request, never a transport error retried into a ModelError."""
    with faulty(fake_suite, fake_generators, "malformed") as srv:
        m = client(srv.base_url, max_attempts=3)
        out = await m.generate([Message(role="user", content=fake_suite.tasks[0].query)],
                               TOOLS, GenerateConfig())
        assert not out.tool_calls and len(out.unparsed_calls) == 1
        bad = out.unparsed_calls[0]
        assert bad.name == fake_suite.tasks[0].gold_plan[0].name
        assert bad.arguments.startswith('{"') and bad.error
        assert stats(srv)["faults"] == {"malformed": 1}


async def test_timeout_fault(fake_suite, fake_generators):
    with faulty(fake_suite, fake_generators, "timeout", hold_s=5) as srv:
        m = client(srv.base_url, max_attempts=2)
        t0 = time.perf_counter()
        with pytest.raises(ModelError) as ei:
            await m.generate([Message(role="user", content=fake_suite.tasks[0].query)],
                             TOOLS, GenerateConfig(timeout_s=0.3))
        assert ei.value.kind == "timeout" and ei.value.attempts == 2
        assert time.perf_counter() - t0 < 3


@pytest.mark.parametrize("fault", ["429", "500", "timeout"])
async def test_faults_are_retried_until_success(fake_suite, fake_generators, fault):
    with faulty(fake_suite, fake_generators, fault, rate=0.5, retry_after_s=0.01,
                hold_s=5) as srv:
        m = client(srv.base_url, max_attempts=12)
        for task in fake_suite.tasks[:6]:
            ep = await run_fake_episode(m, task) if fault != "timeout" else None
            if ep is not None:
                assert ep["answer"] == task.reference_answer
        if fault == "timeout":
            for task in fake_suite.tasks[:4]:
                out = await m.generate([Message(role="user", content=task.query)], TOOLS,
                                       GenerateConfig(timeout_s=0.2))
                assert out.tool_calls
        assert stats(srv)["faults"].get(fault, 0) > 0


async def test_retry_after_is_honoured(fake_suite, fake_generators):
    with faulty(fake_suite, fake_generators, "429", retry_after_s=0.4) as srv:
        m = client(srv.base_url, max_attempts=2)
        t0 = time.perf_counter()
        with pytest.raises(ModelError):
            await m.generate([Message(role="user", content="hi")], TOOLS, GenerateConfig())
        assert time.perf_counter() - t0 >= 0.4


async def test_unreachable_base_url_fails_fast():
    m = client("http://127.0.0.1:9/v1", max_attempts=2)
    t0 = time.perf_counter()
    with pytest.raises(ModelError) as ei:
        await m.generate([Message(role="user", content="hi")], [], GenerateConfig(timeout_s=2))
    assert ei.value.kind == "connection" and ei.value.attempts == 2
    # a refused connection is a dead server, never "timed out" (the aiohttp transport
    # hands the SDK a ConnectTimeout for it)
    assert "127.0.0.1:9" in str(ei.value) and "refused" in str(ei.value)
    assert "timed out" not in str(ei.value)
    assert time.perf_counter() - t0 < 5


async def test_unknown_profile_over_http(server):
    m = client(server.base_url, "no-such-profile")
    with pytest.raises(ModelError) as ei:
        await m.generate([Message(role="user", content="hi")], [], GenerateConfig())
    assert ei.value.kind == "bad_request" and "no-such-profile" in str(ei.value)
    assert ei.value.attempts == 1


async def test_connection_limit_is_respected(fake_suite, fake_generators):
    import asyncio

    with ServerThread(ServerConfig(port=0, latency_ms=100), suite=fake_suite,
                      generators=fake_generators) as srv:
        m = client(srv.base_url, max_connections=2)
        msgs = [Message(role="user", content=fake_suite.tasks[0].query)]
        t0 = time.perf_counter()
        await asyncio.gather(*(m.generate(msgs, TOOLS, GenerateConfig()) for _ in range(6)))
        assert time.perf_counter() - t0 >= 0.3  # 6 calls, 2 at a time, 100 ms each


def test_models_endpoint(server):
    data = httpx.get(server.base_url + "/models").json()
    assert {d["id"] for d in data["data"]} >= set(PROFILES)


async def test_arguments_cut_mid_json_are_a_call_issue_in_the_episode_not_an_error():
    from agentprop.agent import run_episode
    from agentprop.core import CallIssueEvent, ErrorEvent, WorkUnit
    from agentprop.domains import get_domain
    from agentprop.suite import load_suite

    suite = load_suite()
    task = next(t for t in suite.tasks if t.domain == "weather")
    with ServerThread(ServerConfig(port=0, fail_rate=1.0, faults=("malformed",)),
                      suite=suite) as srv:
        m = client(srv.base_url, "balanced", max_attempts=3)
        env = get_domain(task.domain).make_env(task.env_seed)
        trace = await run_episode(WorkUnit(run_id="r", model=m.id, task_id=task.id), task,
                                  m, [], GenerateConfig(), env, max_steps=2)
        requests = stats(srv)["chat_completions"]
    issues = [e for e in trace.events if isinstance(e, CallIssueEvent)]
    assert [e.kind for e in issues] == ["bad_arguments", "bad_arguments"]
    assert all(e.raw.startswith('{"') for e in issues)
    assert issues[0].tool == task.gold_plan[0].name
    assert not any(isinstance(e, ErrorEvent) and e.kind == "bad_response"
                   for e in trace.events)
    assert trace.status == "step_limit" and requests == 2  # recorded, never retried
