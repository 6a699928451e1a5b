"""`api:*` at the gateway, with the real openai SDK as the agent's client: the first model
call after a tool result gets a 429 / 500 with OpenAI's error body (the SDK's retries
observable), a completion cut with finish_reason "length", or a response that stops
mid-way; the episode records the fault, the real completion and what the client ended
up with, and the stage table reads S1/S2 from them."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import openai
import pandas as pd
import pytest

from agentprop.analysis.stages import stage_table
from agentprop.cli._suite import get_suite
from agentprop.core import InjectionEvent, ModelCallEvent, Trace, WorkUnit
from agentprop.domains import get_domain
from agentprop.external import EpisodeHost, EpisodeRecorder
from agentprop.external._gateway import Gateway, HttpApiFaults, http_report
from agentprop.external._host import AsgiServer
from agentprop.inject import hooks_for


def _recorder(condition: str) -> EpisodeRecorder:
    task = next(t for t in get_suite(None).tasks if t.domain == "weather")
    unit = WorkUnit(run_id="g", model="ext", task_id=task.id, condition=condition)
    hooks = [h] if (h := hooks_for(condition, unit, task)) else []
    return EpisodeRecorder(unit, task, get_domain(task.domain).make_env(task.env_seed), hooks)


def _tools(rec: EpisodeRecorder) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": s.name, "description": s.description,
                                              "parameters": s.parameters}}
            for s in rec.tool_specs()]


class _Run:
    """A host with `rec`, a gateway in front of `upstream`, and the openai SDK on it."""

    def __init__(self, rec: EpisodeRecorder, upstream: str, *, max_retries: int = 2,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.rec, self.upstream, self.transport = rec, upstream, transport
        self.max_retries = max_retries
        self.requests = 0

    async def __aenter__(self) -> openai.AsyncOpenAI:
        self.host = EpisodeHost()
        await self.host.start()
        self.host.add(self.rec)
        self.client = httpx.AsyncClient()
        up = httpx.AsyncClient(transport=self.transport) if self.transport else self.client

        async def count(request: httpx.Request) -> None:
            self.requests += 1

        self.gw = Gateway(self.upstream, http_report(self.host.url, self.client),
                          client=up, faults=HttpApiFaults(self.host.url, self.client))
        self.srv = AsgiServer(self.gw.app, "127.0.0.1", 0)
        await self.srv.start()
        self.gw.port = self.srv.port
        self.sdk = openai.AsyncOpenAI(
            base_url=f"http://127.0.0.1:{self.srv.port}/v1", api_key="sk-test-none",
            max_retries=self.max_retries, default_headers={"X-Agentprop-Episode": self.rec.id},
            http_client=httpx.AsyncClient(event_hooks={"request": [count]}))
        return self.sdk

    async def __aexit__(self, *exc: object) -> None:
        await self.sdk.close()
        await self.srv.stop()
        await self.client.aclose()
        await self.host.stop()


async def _first_turn(sdk: openai.AsyncOpenAI, rec: EpisodeRecorder) -> list[dict[str, Any]]:
    """The agent's first turn (never faulted: no tool result yet) and its tool calls run
    at the boundary; returns the history for the second call."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": rec.task.query}]
    first = await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                              tools=_tools(rec))  # type: ignore[arg-type]
    msg = first.choices[0].message
    assert msg.tool_calls, "the sim calls a tool first"
    messages.append(msg.model_dump(exclude_none=True))
    for tc in msg.tool_calls:
        obs = await rec.call_tool(tc.function.name, json.loads(tc.function.arguments))
        messages.append({"role": "tool", "tool_call_id": tc.id, "content": json.dumps(obs)})
    return messages


def _api_event(trace: Trace) -> InjectionEvent:
    (ev,) = [e for e in trace.events if isinstance(e, InjectionEvent)]
    assert ev.protocol == "api"
    return ev


def _stages(trace: Trace) -> dict[str, Any]:
    row = stage_table([trace]).iloc[0]
    return {k: None if pd.isna(row[k]) else bool(row[k])
            for k in ("opportunity", "S1", "S2", "corrected")}


@pytest.mark.parametrize(("kind", "error"), [("rate_limited", openai.RateLimitError),
                                             ("server_error", openai.InternalServerError)])
async def test_http_error_reaches_the_sdk_as_an_api_error(sim_url: str, kind: str,
                                                          error: type[Exception]) -> None:
    rec = _recorder(f"api:{kind}")
    run = _Run(rec, sim_url, max_retries=0)
    async with run as sdk:
        messages = await _first_turn(sdk, rec)
        with pytest.raises(error) as caught:
            await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                              tools=_tools(rec))  # type: ignore[arg-type]
        # the next call is not faulted: one call per episode
        again = await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                                  tools=_tools(rec))  # type: ignore[arg-type]
    err = caught.value
    assert isinstance(err, openai.APIStatusError)
    assert err.status_code == (429 if kind == "rate_limited" else 500)
    body = err.body if isinstance(err.body, dict) else {}
    assert body.get("type") == ("requests" if kind == "rate_limited" else "server_error")
    if kind == "rate_limited":
        assert err.response.headers["retry-after"] == "1"
        assert body.get("code") == "rate_limit_exceeded"
    trace = rec.finish("gave up")
    ev = _api_event(trace)
    assert ev.status == "applied" and ev.error_type == kind and ev.call_index == 2
    assert ev.injected["error"]["status"] == err.status_code
    # the SDK did not retry, but the agent re-sent the same request itself: a retry
    assert ev.retried and ev.received == ev.original
    assert ev.original["tool_calls"] or ev.original["text"]
    assert again.choices[0].message.content == ev.original["text"]
    assert run.requests == 3


async def test_sdk_retries_a_429_and_nothing_survives(sim_url: str) -> None:
    rec = _recorder("api:rate_limited")
    run = _Run(rec, sim_url, max_retries=2)
    async with run as sdk:
        messages = await _first_turn(sdk, rec)
        t0 = time.perf_counter()
        second = await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                                   tools=_tools(rec))  # type: ignore[arg-type]
        waited = time.perf_counter() - t0
    assert run.requests == 3  # first turn, the 429, the SDK's retry
    assert waited >= 0.9  # the SDK honoured Retry-After: 1
    trace = rec.finish(second.choices[0].message.content or "answer")
    ev = _api_event(trace)
    assert ev.retried and ev.received == ev.original
    turns = [e for e in trace.events if isinstance(e, ModelCallEvent)]
    assert len(turns) == 2  # the 429 is no model turn; the retry is
    assert _stages(trace) == {"opportunity": True, "S1": True, "S2": False, "corrected": False}


async def test_truncated_completion_arrives_cut(sim_url: str) -> None:
    rec = _recorder("api:truncated")
    async with _Run(rec, sim_url) as sdk:
        messages = await _first_turn(sdk, rec)
        cut = await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                                tools=_tools(rec))  # type: ignore[arg-type]
    choice = cut.choices[0]
    assert choice.finish_reason == "length"
    trace = rec.finish("answer")
    ev = _api_event(trace)
    assert not ev.retried and ev.injected["finish_reason"] == "length"
    real = ev.original
    if real["tool_calls"]:
        args = (choice.message.tool_calls or [])[-1].function.arguments
        with pytest.raises(ValueError):
            json.loads(args)
        whole = json.dumps(real["tool_calls"][-1]["arguments"])
        assert whole.startswith(args) and len(args) == len(whole) // 2
    else:
        assert real["text"].startswith(choice.message.content or "")
    turn = [e for e in trace.events if isinstance(e, ModelCallEvent)][-1]
    assert turn.output.unparsed_calls or turn.output.text != real["text"]  # the cut turn
    assert _stages(trace) == {"opportunity": True, "S1": True, "S2": True, "corrected": False}


@pytest.mark.parametrize("retries", [0, 2])
async def test_unstreamed_cut_is_a_dropped_connection(sim_url: str, retries: int) -> None:
    rec = _recorder("api:stream_cut")
    run = _Run(rec, sim_url, max_retries=retries)
    async with run as sdk:
        messages = await _first_turn(sdk, rec)
        if retries:
            await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                              tools=_tools(rec))  # type: ignore[arg-type]
        else:
            with pytest.raises(openai.APIConnectionError):
                await sdk.chat.completions.create(model="balanced", messages=messages,  # type: ignore[arg-type]
                                                  tools=_tools(rec))  # type: ignore[arg-type]
    trace = rec.finish("answer")
    ev = _api_event(trace)
    assert ev.injected["error"]["connection"] == "closed mid-body"
    assert ev.retried is bool(retries)
    assert _stages(trace)["S2"] is (not retries)


SSE_CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Checking it now."}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_a",
        "type": "function", "function": {"name": "NAME", "arguments": "{\"ci"}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
        "function": {"arguments": "ty\": \"CITY\"}"}}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]


def _sse_upstream(name: str, city: str) -> httpx.MockTransport:
    async def body() -> AsyncIterator[bytes]:
        for c in SSE_CHUNKS:
            text = json.dumps({"id": "chatcmpl-up", "created": 1, "model": "m", **c})
            yield f"data: {text.replace('NAME', name).replace('CITY', city)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    return httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=body()))


@pytest.mark.parametrize("kind", ["truncated", "stream_cut"])
async def test_streamed_cut(kind: str) -> None:
    rec = _recorder(f"api:{kind}")
    tool = next(s for s in rec.tool_specs() if "city" in s.parameters.get("properties", {}))
    run = _Run(rec, "http://upstream.test/v1", transport=_sse_upstream(tool.name, "Paris"))
    async with run as sdk:
        await rec.call_tool(tool.name, {"city": "Paris"})  # a tool result: the next call
        stream = await sdk.chat.completions.create(model="m", messages=[], stream=True)
        chunks = [c async for c in stream]  # the SDK ends quietly either way
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    args = "".join(tc.function.arguments or "" for c in chunks if c.choices
                   for tc in (c.choices[0].delta.tool_calls or []) if tc.function)
    assert args == '{"city": "Paris"}'[:8]
    assert finishes[-1] == ("length" if kind == "truncated" else None)
    assert "tool_calls" not in finishes
    trace = rec.finish("answer")
    ev = _api_event(trace)
    assert ev.original["tool_calls"] == [{"name": tool.name, "arguments": {"city": "Paris"}}]
    assert ev.received["tool_calls"] == [{"name": tool.name, "arguments": args}]
    (turn,) = [e for e in trace.events if isinstance(e, ModelCallEvent)]
    assert turn.output.unparsed_calls and turn.output.text == "Checking it now."
    assert _stages(trace)["S2"] is True


async def test_no_model_call_and_settling(sim_url: str) -> None:
    """A fault whose episode has no model call after a tool result is recorded as not
    applied; a baseline episode is asked about once, then never again."""
    rec = _recorder("api:truncated")
    base = _recorder("baseline")
    async with _Run(rec, sim_url) as sdk:
        run_base = _Run(base, sim_url)
        async with run_base as sdk_base:
            for _ in range(2):
                await sdk_base.chat.completions.create(
                    model="balanced", messages=[{"role": "user", "content": "hi"}])
            assert base.id in run_base.gw._settled
        await sdk.chat.completions.create(model="balanced",
                                          messages=[{"role": "user", "content": "hi"}])
    trace = rec.finish("answer")
    assert _api_event(trace).status == "no_tool_call"
    assert stage_table([trace]).iloc[0]["opportunity"] == False  # noqa: E712
