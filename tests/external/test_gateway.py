"""The recording gateway: model turns of a tagged request join the episode's trace, P2 can
be applied at generation (the response's tool call is rewritten, the boundary records the
counterfactual), streaming is proxied, and unknown episodes are refused."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from agentprop.cli._suite import get_suite
from agentprop.core import InjectionEvent, ModelCallEvent, ToolCallEvent, ToolResultEvent, WorkUnit
from agentprop.domains import get_domain
from agentprop.external import EpisodeHost, EpisodeRecorder
from agentprop.external._gateway import Gateway, http_report
from agentprop.external._host import AsgiServer
from agentprop.inject import hooks_for


def _recorder(condition: str) -> EpisodeRecorder:
    task = next(t for t in get_suite(None).tasks if t.domain == "weather")
    unit = WorkUnit(run_id="g", model="ext", task_id=task.id, condition=condition)
    hooks = [h] if (h := hooks_for(condition, unit, task, in_history=False)) else []
    return EpisodeRecorder(unit, task, get_domain(task.domain).make_env(task.env_seed), hooks)


async def _gateway(upstream: str, host: EpisodeHost, client: httpx.AsyncClient, *,
                   inject: bool, transport: httpx.AsyncBaseTransport | None = None
                   ) -> tuple[Gateway, AsgiServer]:
    up = httpx.AsyncClient(transport=transport) if transport else client
    gw = Gateway(upstream, http_report(host.url, client), inject_at_generation=inject,
                 client=up)
    srv = AsgiServer(gw.app, "127.0.0.1", 0)
    await srv.start()
    gw.port = srv.port
    return gw, srv


def _request(rec: EpisodeRecorder, model: str, **extra: object) -> dict:
    tools = [{"type": "function", "function": {"name": s.name, "description": s.description,
                                               "parameters": s.parameters}}
             for s in rec.tool_specs()]
    return {"model": model, "messages": [{"role": "user", "content": rec.task.query}],
            "tools": tools, **extra}


async def test_turns_recorded_and_p2_applied_at_generation(sim_url: str) -> None:
    rec = _recorder("p2:semantic_wrong")
    async with EpisodeHost() as host, httpx.AsyncClient() as client:
        host.add(rec)
        _, srv = await _gateway(sim_url, host, client, inject=True)
        try:
            base = f"http://127.0.0.1:{srv.port}/v1/chat/completions"
            r = await client.post(base, json=_request(rec, f"balanced@{rec.id}"))
            assert r.status_code == 200, r.text
            (call,) = r.json()["choices"][0]["message"]["tool_calls"]
            r404 = await client.post(base, json=_request(rec, "balanced"),
                                     headers={"X-Agentprop-Episode": "not-an-episode"})
            assert r404.status_code == 404
            r400 = await client.post(base, json=_request(rec, "balanced"),
                                     headers={"X-Agentprop-Episode": "nope"})
            assert r400.status_code == 400  # not an id agentprop gives
            r421 = await client.post(base, json={}, headers={"Host": "evil.test"})
            assert r421.status_code == 421
        finally:
            await srv.stop()
    (turn,) = [e for e in rec.ctx.events if isinstance(e, ModelCallEvent)]
    (inj,) = [e for e in rec.ctx.events if isinstance(e, InjectionEvent)]
    assert inj.status == "applied" and inj.in_history  # the agent's history holds it
    args = json.loads(call["function"]["arguments"])
    assert args[inj.param] == inj.injected != inj.original
    assert turn.output.tool_calls[0].arguments == args

    obs = await rec.call_tool(call["function"]["name"], args)  # the agent runs what it got
    (res,) = [e for e in rec.ctx.events if isinstance(e, ToolResultEvent)]
    (proposed,) = [e for e in rec.ctx.events if isinstance(e, ToolCallEvent)]
    assert res.observation == obs and res.counterfactual is not None
    assert res.counterfactual != obs and proposed.call.arguments[inj.param] == inj.original
    trace = rec.finish("done")
    assert [e.status for e in trace.events if isinstance(e, InjectionEvent)] == ["applied"]


SSE_CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me check. "}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_a",
        "type": "function", "function": {"name": "NAME", "arguments": "{\"ci"}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
        "function": {"arguments": "ty\": \"CITY\"}"}}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]


def _sse_upstream(name: str, city: str) -> httpx.MockTransport:
    async def body() -> AsyncIterator[bytes]:
        for c in SSE_CHUNKS:
            text = json.dumps(c).replace("NAME", name).replace("CITY", city)
            yield f"data: {text}\n\n".encode()
        yield b"data: [DONE]\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        assert json.loads(request.content)["model"] == "upstream-model"  # suffix stripped
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=body())

    return httpx.MockTransport(handler)


@pytest.mark.parametrize("inject", [False, True])
async def test_streaming_is_proxied_and_recorded(inject: bool) -> None:
    rec = _recorder("p2:semantic_wrong")
    tool = next(s for s in rec.tool_specs() if "city" in s.parameters.get("properties", {}))
    city = "Paris"
    async with EpisodeHost() as host, httpx.AsyncClient() as client:
        host.add(rec)
        _, srv = await _gateway("http://upstream.test/v1", host, client, inject=inject,
                                 transport=_sse_upstream(tool.name, city))
        try:
            body = {"model": "upstream-model", "stream": True, "messages": []}
            async with client.stream(
                "POST", f"http://127.0.0.1:{srv.port}/v1/chat/completions", json=body,
                headers={"X-Agentprop-Episode": rec.id}) as r:
                assert r.headers["content-type"].startswith("text/event-stream")
                lines = [ln async for ln in r.aiter_lines() if ln.startswith("data:")]
        finally:
            await srv.stop()
    assert lines[-1] == "data: [DONE]"
    args = "".join(
        tc["function"].get("arguments") or ""
        for ln in lines[:-1]
        for ch in json.loads(ln[5:])["choices"]
        for tc in (ch["delta"].get("tool_calls") or []))
    (turn,) = [e for e in rec.ctx.events if isinstance(e, ModelCallEvent)]
    assert turn.output.text == "Let me check. "
    assert turn.output.tool_calls[0].arguments == json.loads(args)
    injected = [e for e in rec.ctx.events if isinstance(e, InjectionEvent)]
    if inject:
        assert injected and json.loads(args)[injected[0].param] == injected[0].injected
    else:
        assert not injected and json.loads(args) == {"city": city}
