"""`agentprop gateway`: an OpenAI-compatible chat-completions proxy that records model turns.

The agent points its OpenAI client at the gateway instead of its real endpoint. Each
request is forwarded to `upstream` (streaming or not, the Authorization header passed
through, never stored). When the request names an episode, by the ``X-Agentprop-Episode``
header or a ``@<episode id>`` suffix on the model name (stripped before forwarding), the
turn (assistant text, reasoning, tool calls) is reported to that episode's host, which
records it as the native loop's `ModelCallEvent`. An episode id is what agentprop gave
the episode (`[A-Za-z0-9_-]`, 8 to 64 characters; anything else is a 400) and is quoted
into the host's URL. Writes from another site and bodies not declared JSON are refused
(403, 415), as on the episode host. So an external trace carries the text the
interceptor's L2 and the `noticed` rules read. An episode the host does not know is
refused (404) rather than forwarded unrecorded.

With `inject_at_generation`, the host applies P2 to the turn's first eligible tool call
and the gateway rewrites that call's arguments in the response: the agent then believes
it generated the corrupted parameter (the paper's parameter-generation stage). A streamed
response is then buffered and replayed with the rewritten arguments.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import httpx

from agentprop.core import ModelOutput, ToolCall, Usage
from agentprop.external._host import (
    EPISODE_ID,
    Receive,
    Scope,
    Send,
    _read_body,
    _send_json,
    parse_json,
)
from agentprop.models import clean_output
from agentprop.models._openai import parse_response
from agentprop.safety import (
    MISDIRECTED,
    cross_site_refusal,
    host_allowed,
    json_refusal,
    redact_url,
    utf8_clean,
)

EPISODE_HEADER = "x-agentprop-episode"
_SUFFIX = re.compile(r"^(.+)@([A-Za-z0-9_-]{8,})$")
MAX_BODY = 32 * 1024 * 1024

Report = Callable[[str, ModelOutput, dict[str, Any], bool], Awaitable[list[ToolCall] | None]]
"""(episode id, output, request, inject) -> the turn's tool calls (rewritten when P2 was
applied), or None when the episode is unknown."""


class UnknownEpisodeError(LookupError):
    pass


def http_report(episodes_url: str, client: httpx.AsyncClient) -> Report:
    """Report turns to the episode host at `episodes_url` (`run --agent` or serve-tools)."""
    base = episodes_url.rstrip("/")

    async def report(eid: str, output: ModelOutput, request: dict[str, Any],
                     inject: bool) -> list[ToolCall] | None:
        r = await client.post(f"{base}/episodes/{quote(eid, safe='')}/model-turns", json={
            "output": output.model_dump(mode="json", exclude={"raw"}),
            "request": request, "inject": inject})
        if r.status_code == 404:
            return None
        r.raise_for_status()
        return [ToolCall.model_validate(c) for c in r.json()["tool_calls"]]

    return report


def episode_of(headers: dict[str, str], body: dict[str, Any]) -> tuple[str | None, str]:
    """(episode id or None, the model name to forward)."""
    model = str(body.get("model") or "")
    hit = _SUFFIX.match(model)
    if hit is not None:
        return hit.group(2), hit.group(1)
    return headers.get(EPISODE_HEADER) or None, model


def _patch(message: dict[str, Any], calls: list[ToolCall]) -> None:
    by_id = {c.id: c for c in calls}
    for tc in message.get("tool_calls") or []:
        new = by_id.get(tc.get("id"))
        if new is not None:
            tc.setdefault("function", {})["arguments"] = json.dumps(new.arguments)


class _Stream:
    """Assembles a chat-completions SSE stream into one message."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] = {}

    def feed(self, chunk: dict[str, Any]) -> None:
        self.usage = chunk.get("usage") or self.usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                self.text.append(delta["content"])
            r = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(r, str):
                self.reasoning.append(r)
            for tc in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(int(tc.get("index", 0)),
                                             {"id": "", "name": "", "arguments": ""})
                slot["id"] = tc.get("id") or slot["id"]
                fn = tc.get("function") or {}
                slot["name"] += fn.get("name") or ""
                slot["arguments"] += fn.get("arguments") or ""

    def message(self) -> dict[str, Any]:
        return {"choices": [{"message": {
            "role": "assistant", "content": "".join(self.text) or None,
            "reasoning_content": "".join(self.reasoning) or None,
            "tool_calls": [{"id": c["id"] or f"call_{i}", "type": "function",
                            "function": {"name": c["name"], "arguments": c["arguments"]}}
                           for i, c in sorted(self.calls.items())]}}],
            "usage": self.usage}


def _output(data: dict[str, Any], latency: float) -> ModelOutput:
    try:
        out = parse_response(data)
    except Exception:  # unparseable arguments: keep the text, record no call
        msg = (data.get("choices") or [{}])[0].get("message") or {}
        out = ModelOutput(text=msg.get("content"), usage=Usage())
    return clean_output(out.model_copy(update={"latency_s": latency, "raw": None}))


class Gateway:
    """The proxy as an ASGI app (served by uvicorn, like the episode host)."""

    def __init__(self, upstream: str, report: Report, *, bind_host: str = "127.0.0.1",
                 port: int = 0, inject_at_generation: bool = False,
                 client: httpx.AsyncClient | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.report = report
        self.bind_host = bind_host
        self.port = port
        self.inject = inject_at_generation
        self.client = client or httpx.AsyncClient(timeout=httpx.Timeout(600.0, connect=10.0))

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        if not host_allowed(headers.get("host"), self.bind_host, self.port):
            await _send_json(send, MISDIRECTED, {"error": {
                "message": "this server answers only to the names it was bound to"}})
            return
        path, method = scope.get("path", "").rstrip("/"), scope.get("method", "GET")
        if (why := cross_site_refusal(method, headers)) is not None:
            await _send_json(send, 403, {"error": {"message": why}})
            return
        if method == "POST" and (why := json_refusal(headers)) is not None:
            await _send_json(send, 415, {"error": {"message": why}})
            return
        if path == "/health":
            await _send_json(send, 200, {"ok": True})
            return
        if not path.endswith("/chat/completions") or method != "POST":
            await _send_json(send, 404, {"error": {"message": f"no route {method} {path}"}})
            return
        raw = await _read_body(receive, MAX_BODY)
        if raw is None:
            await _send_json(send, 413, {"error": {"message": "request body too large"}})
            return
        try:
            body = parse_json(raw)
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError as e:
            await _send_json(send, 400, {"error": {"message": f"invalid JSON body: {e}"}})
            return
        body = utf8_clean(body)[0]  # a lone surrogate (valid JSON) cannot be forwarded
        eid, model = episode_of(headers, body)
        if eid is not None and not EPISODE_ID.match(eid):
            await _send_json(send, 400, {"error": {"message": "invalid episode id: expected "
                                                   "the id agentprop gave the episode"}})
            return
        body["model"] = model
        fwd = {k: v for k, v in headers.items() if k in ("authorization", "openai-organization")}
        try:
            if body.get("stream"):
                await self._stream(eid, body, fwd, send)
            else:
                await self._plain(eid, body, fwd, send)
        except UnknownEpisodeError:
            await _send_json(send, 404, {"error": {"message": f"unknown episode {eid!r}"}})
        except httpx.HTTPError as e:
            await _send_json(send, 502, {"error": {
                "message": f"upstream {redact_url(self.upstream)}: {type(e).__name__}"}})

    async def _record(self, eid: str | None, data: dict[str, Any], request: dict[str, Any],
                      latency: float) -> list[ToolCall] | None:
        if eid is None:
            return None
        calls = await self.report(eid, _output(data, latency), request, self.inject)
        if calls is None:
            raise UnknownEpisodeError(eid)
        return calls

    async def _plain(self, eid: str | None, body: dict[str, Any], fwd: dict[str, str],
                     send: Send) -> None:
        t0 = time.perf_counter()
        r = await self.client.post(f"{self.upstream}/chat/completions", json=body,
                                   headers=fwd)
        if r.status_code != 200:
            await _send_raw(send, r.status_code, r.content, r.headers.get("content-type"))
            return
        data = r.json()
        calls = await self._record(eid, data, body, time.perf_counter() - t0)
        if calls and self.inject:
            _patch(data["choices"][0]["message"], calls)
        await _send_json(send, 200, data)

    async def _stream(self, eid: str | None, body: dict[str, Any], fwd: dict[str, str],
                      send: Send) -> None:
        t0 = time.perf_counter()
        buffered = self.inject and eid is not None
        acc = _Stream()
        lines: list[bytes] = []
        async with self.client.stream("POST", f"{self.upstream}/chat/completions", json=body,
                                      headers=fwd) as r:
            if r.status_code != 200:
                await _send_raw(send, r.status_code, await r.aread(),
                                r.headers.get("content-type"))
                return
            if not buffered:
                await _start_sse(send)
            async for line in r.aiter_lines():
                if line.startswith("data:") and (payload := line[5:].strip()) != "[DONE]":
                    with contextlib.suppress(ValueError):  # a chunk we cannot read
                        acc.feed(json.loads(payload))
                chunk = (line + "\n").encode()
                if buffered:
                    lines.append(chunk)
                else:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
        calls = await self._record(eid, acc.message(), body, time.perf_counter() - t0)
        if buffered:
            await _start_sse(send)
            for chunk in _rewrite_stream(lines, calls or []):
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _rewrite_stream(lines: list[bytes], calls: list[ToolCall]) -> list[bytes]:
    """The buffered SSE lines with each rewritten call's arguments: the full new
    arguments in the call's first argument delta, the later deltas emptied."""
    by_id = {c.id: c for c in calls}
    index_id: dict[int, str] = {}
    written: set[int] = set()
    out = []
    for line in lines:
        text = line.decode()
        if not text.startswith("data:") or text[5:].strip() == "[DONE]":
            out.append(line)
            continue
        try:
            chunk = json.loads(text[5:])
        except ValueError:
            out.append(line)
            continue
        for choice in chunk.get("choices") or []:
            for tc in (choice.get("delta") or {}).get("tool_calls") or []:
                i = int(tc.get("index", 0))
                if tc.get("id"):
                    index_id[i] = tc["id"]
                new = by_id.get(index_id.get(i, ""))
                fn = tc.get("function")
                if new is None or not isinstance(fn, dict) or "arguments" not in fn:
                    continue
                fn["arguments"] = "" if i in written else json.dumps(new.arguments)
                written.add(i)
        out.append(f"data: {json.dumps(chunk)}\n".encode())
    return out


async def _start_sse(send: Send) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"),
                            (b"cache-control", b"no-cache")]})


async def _send_raw(send: Send, status: int, body: bytes, ctype: str | None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", (ctype or "application/json").encode()),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
