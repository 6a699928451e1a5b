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

With `faults` (the episode host's ``api-fault`` route), a tagged request of an episode
whose condition is `api:<kind>` first asks the host whether this call is the one to
fault (the first after a tool result; once an episode has nothing left to fault, the
gateway stops asking). That call's real completion is fetched in full (the
counterfactual), then the client gets the fault instead: a 429 (``Retry-After``) or 500
with OpenAI's error body, the completion cut with ``finish_reason: "length"``, or a
response that stops mid-way (a stream without its final chunk and ``[DONE]``; a JSON body
whose connection closes half-way). The fault is reported before the client sees it, so
the client's retry, when it sends one, is recognised as such.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Protocol
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
from agentprop.inject import RETRY_AFTER_S, completion_content, cut_in_half, error_body
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


MAX_SETTLED = 4096
"""Episodes remembered as having nothing (left) to fault, so their calls skip the ask."""
_CUTTING: ContextVar[bool] = ContextVar("agentprop_gateway_cutting", default=False)
"""Set while a response is cut on purpose, so uvicorn's complaint about it is not logged."""


class UnknownEpisodeError(LookupError):
    pass


class ApiFaults(Protocol):
    """The episode host's side of `api:` faults (`HttpApiFaults`)."""

    async def begin(self, eid: str) -> dict[str, Any]: ...

    async def release(self, eid: str) -> None: ...

    async def applied(self, eid: str, report: dict[str, Any]) -> None: ...


class HttpApiFaults:
    """`ApiFaults` over the episode host's ``/episodes/{id}/api-fault`` route."""

    def __init__(self, episodes_url: str, client: httpx.AsyncClient) -> None:
        self.base = episodes_url.rstrip("/")
        self.client = client

    async def _post(self, eid: str, payload: dict[str, Any]) -> dict[str, Any]:
        r = await self.client.post(f"{self.base}/episodes/{quote(eid, safe='')}/api-fault",
                                   json=payload)
        if r.status_code == 404:
            raise UnknownEpisodeError(eid)
        r.raise_for_status()
        data = r.json()
        return data if isinstance(data, dict) else {}

    async def begin(self, eid: str) -> dict[str, Any]:
        return await self._post(eid, {"phase": "begin"})

    async def release(self, eid: str) -> None:
        await self._post(eid, {"phase": "release"})

    async def applied(self, eid: str, report: dict[str, Any]) -> None:
        await self._post(eid, {"phase": "applied", **report})


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
        self.meta: dict[str, Any] = {}
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] = {}

    def feed(self, chunk: dict[str, Any]) -> None:
        self.meta = self.meta or {k: chunk[k] for k in ("id", "created", "model")
                                  if k in chunk}
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
                 client: httpx.AsyncClient | None = None,
                 faults: ApiFaults | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.report = report
        self.faults = faults
        self._settled: OrderedDict[str, None] = OrderedDict()
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
            if eid is not None and (kind := await self._fault_of(eid)) is not None:
                await self._faulted(eid, kind, body, fwd, send)
            elif body.get("stream"):
                await self._stream(eid, body, fwd, send)
            else:
                await self._plain(eid, body, fwd, send)
        except UnknownEpisodeError:
            await _send_json(send, 404, {"error": {"message": f"unknown episode {eid!r}"}})
        except httpx.HTTPError as e:
            await _send_json(send, 502, {"error": {
                "message": f"upstream {redact_url(self.upstream)}: {type(e).__name__}"}})

    async def _fault_of(self, eid: str) -> str | None:
        """The `api:` kind to apply to this call of episode `eid`, if any."""
        if self.faults is None or eid in self._settled:
            return None
        answer = await self.faults.begin(eid)
        kind = answer.get("fault")
        if kind is None and not answer.get("more"):
            self._settled[eid] = None
            while len(self._settled) > MAX_SETTLED:
                self._settled.popitem(last=False)
        return str(kind) if kind else None

    async def _fetch(self, body: dict[str, Any], fwd: dict[str, str]
                     ) -> tuple[int, bytes, str | None, dict[str, Any]]:
        """The upstream's whole answer: (status, raw body, content type, the completion as
        a chat-completion object; a stream assembled, its id, created and model kept)."""
        url = f"{self.upstream}/chat/completions"
        if not body.get("stream"):
            r = await self.client.post(url, json=body, headers=fwd)
            data = r.json() if r.status_code == 200 else {}
            return r.status_code, r.content, r.headers.get("content-type"), data
        acc = _Stream()
        async with self.client.stream("POST", url, json=body, headers=fwd) as r:
            if r.status_code != 200:
                return (r.status_code, await r.aread(), r.headers.get("content-type"), {})
            async for line in r.aiter_lines():
                if line.startswith("data:") and (payload := line[5:].strip()) != "[DONE]":
                    with contextlib.suppress(ValueError):
                        acc.feed(json.loads(payload))
        return 200, b"", "text/event-stream", {**acc.meta, **acc.message()}

    async def _faulted(self, eid: str, kind: str, body: dict[str, Any], fwd: dict[str, str],
                       send: Send) -> None:
        """The call chosen for `api:<kind>`: its real completion is fetched and reported,
        then the client gets the fault instead."""
        assert self.faults is not None
        t0 = time.perf_counter()
        try:
            status, raw, ctype, data = await self._fetch(body, fwd)
        except Exception:
            await self.faults.release(eid)
            raise
        if status != 200:  # the upstream failed by itself: passed through, nothing faulted
            await self.faults.release(eid)
            await _send_raw(send, status, raw, ctype)
            return
        real = _output(data, time.perf_counter() - t0)
        streamed = bool(body.get("stream"))
        if kind in ("rate_limited", "server_error"):
            err = error_body(kind)
            code = 429 if kind == "rate_limited" else 500
            await self._applied(eid, body, real, {"error": {"status": code, **err["error"]}})
            extra = [(b"retry-after", str(RETRY_AFTER_S).encode())] if code == 429 else []
            await _send_raw(send, code, json.dumps(err).encode(), "application/json", extra)
            return
        if kind == "stream_cut" and not streamed:
            whole = raw  # the upstream's own bytes
            half = whole[: len(whole) // 2]
            await self._applied(eid, body, real, {"error": {
                "connection": "closed mid-body", "bytes_sent": len(half),
                "bytes": len(whole)}})
            await _send_cut(send, whole, half)
            return
        cut = _cut_completion(data, finish="length" if kind == "truncated" else None)
        delivered = _output(cut, time.perf_counter() - t0)
        flag = {"finish_reason": "length"} if kind == "truncated" else {"cut": True}
        await self._applied(eid, body, real, {**completion_content(delivered), **flag},
                            delivered)
        if not streamed:
            await _send_json(send, 200, cut)
            return
        await _start_sse(send)
        for chunk in _sse_chunks(cut, done=kind == "truncated"):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _applied(self, eid: str, request: dict[str, Any], real: ModelOutput,
                       injected: dict[str, Any], delivered: ModelOutput | None = None) -> None:
        assert self.faults is not None
        await self.faults.applied(eid, {
            "request": request, "injected": injected,
            "real": real.model_dump(mode="json", exclude={"raw"}),
            "delivered": None if delivered is None else delivered.model_dump(
                mode="json", exclude={"raw"})})

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


def _cut_completion(data: dict[str, Any], *, finish: str | None) -> dict[str, Any]:
    """`data` (a chat completion) with its message cut in half (`inject.cut_in_half`) and
    `finish` as its finish reason."""
    out = json.loads(json.dumps(data))
    choice = (out.get("choices") or [{}])[0]
    msg = choice.setdefault("message", {})
    calls = [tc for tc in msg.get("tool_calls") or [] if isinstance(tc, dict)]
    pairs = [(str((tc.get("function") or {}).get("name") or ""),
              str((tc.get("function") or {}).get("arguments") or "")) for tc in calls]
    text = msg.get("content") if isinstance(msg.get("content"), str) else None
    text, cut = cut_in_half(text, pairs)
    msg["content"] = text
    if calls:
        calls[-1].setdefault("function", {})["arguments"] = cut[-1][1]
        msg["tool_calls"] = calls
    choice["finish_reason"] = finish
    out["choices"] = [choice]
    return out


def _sse_chunks(data: dict[str, Any], *, done: bool) -> list[bytes]:
    """A chat completion as the SSE chunks of a stream: the text, each call, then (with
    `done`) the chunk with its finish reason and ``[DONE]``; without, the stream just
    stops (a stream cut mid-way)."""
    head = {"id": data.get("id") or "chatcmpl-agentprop", "object": "chat.completion.chunk",
            "created": data.get("created") or int(time.time()), "model": data.get("model", "")}
    choice = (data.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": msg.get("content") or ""}]
    for i, tc in enumerate(msg.get("tool_calls") or []):
        fn = tc.get("function") or {}
        deltas.append({"tool_calls": [{"index": i, "id": tc.get("id") or f"call_{i}",
                                       "type": "function", "function": {
                                           "name": fn.get("name") or "",
                                           "arguments": fn.get("arguments") or ""}}]})
    chunks = [{**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
              for d in deltas]
    if done:
        chunks.append({**head, "choices": [{"index": 0, "delta": {},
                                            "finish_reason": choice.get("finish_reason")}]})
    lines = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks]
    return [*lines, b"data: [DONE]\n\n"] if done else lines


async def _send_cut(send: Send, whole: bytes, half: bytes) -> None:
    """Announce `whole`, send `half` of it, and end the app without completing the
    response: the server closes the connection mid-body, as a dropped one."""
    _CUTTING.set(True)
    _quiet_cuts()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(whole)).encode())]})
    await send({"type": "http.response.body", "body": half, "more_body": True})


class _CutFilter(logging.Filter):
    """uvicorn logs an ERROR for a response the app did not complete; a cut is on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_CUTTING.get() and "without completing response" in record.getMessage())


def _quiet_cuts() -> None:
    log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _CutFilter) for f in log.filters):
        log.addFilter(_CutFilter())


async def _start_sse(send: Send) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"),
                            (b"cache-control", b"no-cache")]})


async def _send_raw(send: Send, status: int, body: bytes, ctype: str | None,
                    extra: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", (ctype or "application/json").encode()),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
