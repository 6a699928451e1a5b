"""The HTTP episode host: MCP over streamable HTTP, one URL per episode, on loopback.

``/episodes/{id}/mcp`` is the MCP endpoint of episode `id`, a random, unguessable id (not
the work unit's key), so a client can reach only the episodes it was given. An MCP
session is bound to the episode it was opened on: its session id used on another
episode's URL is refused, as is any episode the host does not serve (404). Every request
first passes the Host allow-list (`agentprop.safety.host_allowed`, 421 otherwise) against
DNS rebinding, and every write the cross-site rules (`cross_site_refusal`, 403; a body
not declared JSON, 415). ``POST /episodes/{id}/model-turns`` is where a separate
`agentprop gateway` process reports the model turns it saw, and ``POST
/episodes/{id}/api-fault`` where it asks whether to fault a call (`api:*` conditions) and
reports the fault it applied.

With `listing` (serve-tools, whose clients pick their own work), ``GET /episodes`` lists
the open episodes (query and URL) and ``/mcp`` is a stable endpoint: a new session there
is given the next open episode and keeps it. `run --agent` gives each episode's URL to
one call of the agent only, and lists nothing.

Served by uvicorn inside the caller's event loop, so episodes and the runner share state
without locks beyond the recorder's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import socket
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from agentprop.core import ModelOutput
from agentprop.external._episode import EpisodeRecorder
from agentprop.external._tools import Submit, UnknownEpisode, build_server
from agentprop.models import clean_output
from agentprop.safety import MISDIRECTED, cross_site_refusal, host_allowed, json_refusal

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

EPISODE_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
"""What an episode id looks like (`secrets.token_urlsafe`); anything else is refused."""
_PATH = re.compile(r"^/episodes/([^/]+)/(mcp|model-turns|api-fault)/?$")
_SCOPE_KEY = "agentprop.episode"
# The episode of a session being opened, read by the server's `initialize` (the SDK
# starts the session's task from the request's context, so it sees this value).
_OPENING: ContextVar[EpisodeRecorder | None] = ContextVar("agentprop_opening", default=None)
MAX_TURN_BODY = 8 * 1024 * 1024
MAX_ENDED = 256


def json_error(message: str, code: int = -32600) -> dict[str, Any]:
    """A JSON-RPC error body (what an MCP client reads on a refused request)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def parse_json(body: bytes) -> Any:
    """`json.loads`, with nesting too deep for Python's parser a ValueError (one 400
    line) instead of a RecursionError (a 500 with a traceback)."""
    try:
        return json.loads(body)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


async def _send_json(send: Send, status: int, payload: Any) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _posted(method: str, receive: Receive, send: Send) -> bytes | None:
    """The body of a report POSTed to an episode (a model turn, an api fault), or None
    once the refusal is sent (405 for another method, 413 for a body too large)."""
    if method != "POST":
        await _send_json(send, 405, {"error": "use POST"})
        return None
    body = await _read_body(receive, MAX_TURN_BODY)
    if body is None:
        await _send_json(send, 413, {"error": "body too large"})
    return body


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        msg = await receive()
        chunk = msg.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not msg.get("more_body"):
            return b"".join(chunks)


try:  # uvicorn's C parser when installed (a core dependency): ~1 ms less per MCP call
    import httptools  # noqa: F401

    _HTTP = "httptools"
except ImportError:  # pragma: no cover
    _HTTP = "h11"


class AsgiServer:
    """An ASGI app served by uvicorn in the running event loop, bound before it starts
    (so port 0 gives the real port), without uvicorn's signal handlers (the caller owns
    Ctrl-C and SIGTERM)."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self._uvicorn: Any = None
        self._serving: asyncio.Task[None] | None = None

    async def start(self) -> None:
        import uvicorn

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError:
            sock.close()
            raise
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(self.app, interface="asgi3", log_level="warning", http=_HTTP,
                                lifespan="off", access_log=False, timeout_graceful_shutdown=1,
                                backlog=1024)
        self._uvicorn = uvicorn.Server(config)
        self._uvicorn.install_signal_handlers = lambda: None
        self._serving = asyncio.ensure_future(self._uvicorn.serve(sockets=[sock]))
        while not self._uvicorn.started:
            if self._serving.done():
                self._serving.result()  # re-raise why it could not start
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
            if self._serving is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(self._serving, 5.0)


class EpisodeHost:
    """Serves the MCP tools of every registered episode over streamable HTTP.

    ``async with EpisodeHost() as host: host.add(recorder); host.mcp_url(recorder.id)``.
    `submit` (serve-tools only) adds the `submit_answer` tool; `listing` (serve-tools)
    adds ``GET /episodes`` and the ``/mcp`` endpoint that hands out open episodes.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 submit: Submit | None = None, listing: bool = False) -> None:
        self.host = host
        self.port = port
        self.listing = listing
        self.episodes: dict[str, EpisodeRecorder] = {}
        self._sessions: dict[str, str] = {}
        # Ended episodes stay reachable for their open sessions (a client re-lists the
        # tools after the last call, then ends its session), bounded.
        self._ended: OrderedDict[str, EpisodeRecorder] = OrderedDict()
        self._server = build_server(self._resolve, submit=submit, initial=_OPENING.get)
        self._manager = StreamableHTTPSessionManager(
            self._server, json_response=True, session_idle_timeout=900.0)
        self._stack = contextlib.AsyncExitStack()
        self._asgi: AsgiServer | None = None

    # -- episodes -------------------------------------------------------------------------
    def add(self, recorder: EpisodeRecorder) -> None:
        self.episodes[recorder.id] = recorder

    def remove(self, episode_id: str) -> None:
        rec = self.episodes.pop(episode_id, None)
        if rec is not None:
            self._ended[episode_id] = rec
        while len(self._ended) > MAX_ENDED:
            old, _ = self._ended.popitem(last=False)
            for sid in [s for s, e in self._sessions.items() if e == old]:
                del self._sessions[sid]

    @property
    def url(self) -> str:
        return f"http://{_url_host(self.host)}:{self.port}"

    def mcp_url(self, episode_id: str) -> str:
        return f"{self.url}/episodes/{episode_id}/mcp"

    def _resolve(self) -> EpisodeRecorder:
        request = self._server.request_context.request
        eid = request.scope.get(_SCOPE_KEY) if request is not None else None
        rec = (self.episodes.get(eid) or self._ended.get(eid)) if eid else None
        if rec is None:
            raise UnknownEpisode(f"no episode {eid!r}")
        return rec

    # -- lifecycle ------------------------------------------------------------------------
    async def __aenter__(self) -> EpisodeHost:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        _quiet_sdk()
        await self._stack.enter_async_context(self._manager.run())
        self._asgi = AsgiServer(self.app, self.host, self.port)
        await self._asgi.start()
        self.port = self._asgi.port

    async def stop(self) -> None:
        if self._asgi is not None:
            await self._asgi.stop()
        await self._stack.aclose()

    # -- ASGI -----------------------------------------------------------------------------
    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        if not host_allowed(headers.get("host"), self.host, self.port):
            await _send_json(send, MISDIRECTED, {
                "error": "this server answers only to the names it was bound to"})
            return
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if (why := cross_site_refusal(method, headers)) is not None:
            await _send_json(send, 403, {"error": why})
            return
        if method == "POST" and (why := json_refusal(headers)) is not None:
            await _send_json(send, 415, {"error": why})
            return
        if path.rstrip("/") == "/episodes" and method == "GET" and self.listing:
            await _send_json(send, 200, [
                {"id": r.id, "task_id": r.task.id, "domain": r.task.domain,
                 "condition": r.unit.condition, "seed": r.unit.seed, "query": r.task.query,
                 "mcp_url": self.mcp_url(r.id)}
                for r in self.episodes.values() if r.open])
            return
        if path == "/health":
            await _send_json(send, 200, {"ok": True})
            return
        if path.rstrip("/") == "/mcp" and self.listing:
            await self._stable(scope, headers, receive, send)
            return
        hit = _PATH.match(path)
        if hit is None:
            await _send_json(send, 404, {"error": f"no route {method} {path}"})
            return
        eid, what = hit.group(1), hit.group(2)
        sid = headers.get("mcp-session-id")
        rec = self.episodes.get(eid)
        if rec is None and what == "mcp" and sid is not None and self._sessions.get(sid) == eid:
            rec = self._ended.get(eid)  # an open session of an ended episode: calls are refused
        if rec is None:
            await _send_json(send, 404, {"error": "unknown episode"})
            return
        if what == "model-turns":
            await self._model_turn(rec, method, receive, send)
            return
        if what == "api-fault":
            await self._api_fault(rec, method, receive, send)
            return
        if sid is not None and self._sessions.get(sid, eid) != eid:
            await _send_json(send, 404, {"error": "this MCP session belongs to another episode"})
            return
        if sid is None and method == "POST" and rec.exclusive and rec.owner is not None:
            rec.refused_sessions.add(f"opening-{secrets.token_hex(4)}")
            await _send_json(send, 409, json_error(
                "this episode belongs to another MCP session, which has called its tools: "
                "take another episode (POST /mcp, or GET /episodes)"))
            return
        await self._handle(rec, scope, receive, send)

    async def _handle(self, rec: EpisodeRecorder, scope: Scope, receive: Receive,
                      send: Send) -> str | None:
        """Hand a request to the MCP session manager as episode `rec`'s; returns the id of
        a session it opened."""
        opened: list[str] = []

        async def bind_send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                for k, v in message.get("headers", []):
                    if k.lower() == b"mcp-session-id":
                        sid = v.decode("latin-1")
                        if sid not in self._sessions:
                            self._sessions[sid] = rec.id
                            opened.append(sid)
            await send(message)

        token = _OPENING.set(rec)
        try:
            await self._manager.handle_request({**scope, _SCOPE_KEY: rec.id}, receive,
                                               bind_send)
        finally:
            _OPENING.reset(token)
        return opened[0] if opened else None

    async def _stable(self, scope: Scope, headers: dict[str, str], receive: Receive,
                      send: Send) -> None:
        """``/mcp``: a new session gets the next open episode and keeps it; a known
        session goes on with its own."""
        sid = headers.get("mcp-session-id")
        if sid is not None:
            eid = self._sessions.get(sid)
            rec = (self.episodes.get(eid) or self._ended.get(eid)) if eid else None
            if rec is None:
                await _send_json(send, 404, json_error("unknown MCP session"))
                return
            await self._handle(rec, scope, receive, send)
            return
        rec = next((r for r in self.episodes.values() if r.open), None)
        if rec is None:
            await _send_json(send, 503, json_error(
                "no open episode right now: every open episode is taken; try again when "
                "one ends"))
            return
        rec.owner = pending = f"opening-{secrets.token_hex(8)}"  # not handed out twice
        opened = None
        try:
            opened = await self._handle(rec, scope, receive, send)
        finally:
            if rec.owner == pending:
                rec.owner = opened

    async def _model_turn(self, rec: EpisodeRecorder, method: str, receive: Receive,
                          send: Send) -> None:
        body = await _posted(method, receive, send)
        if body is None:
            return
        try:
            data = parse_json(body)
            output = clean_output(ModelOutput.model_validate(data["output"]))
        except (ValueError, KeyError, TypeError, RecursionError) as e:
            await _send_json(send, 400, {"error": f"invalid model turn: {str(e)[:200]}"})
            return
        calls = rec.record_model_output(output, data.get("request"),
                                        inject=bool(data.get("inject")))
        await _send_json(send, 200, {"tool_calls": [c.model_dump(mode="json") for c in calls]})


    async def _api_fault(self, rec: EpisodeRecorder, method: str, receive: Receive,
                         send: Send) -> None:
        """The gateway's `api:` protocol: ``{"phase": "begin"}`` → whether to fault this
        call; ``release`` (its upstream failed by itself); ``applied`` with the real
        completion, what the client got and the completion it got."""
        body = await _posted(method, receive, send)
        if body is None:
            return
        try:
            data = parse_json(body)
            phase = data["phase"]
            if phase == "applied":
                real = clean_output(ModelOutput.model_validate(data["real"]))
                got = data.get("delivered")
                delivered = None if got is None else clean_output(
                    ModelOutput.model_validate(got))
                injected = data["injected"]
                if not isinstance(injected, dict):
                    raise TypeError("injected: expected an object")
            elif phase not in ("begin", "release"):
                raise ValueError(f"unknown phase {phase!r}")
        except (ValueError, KeyError, TypeError, RecursionError) as e:
            await _send_json(send, 400, {"error": f"invalid api-fault report: {str(e)[:200]}"})
            return
        if phase == "begin":
            await _send_json(send, 200, rec.begin_model_call())
            return
        if phase == "release":
            rec.release_model_call()
        else:
            rec.api_fault_applied(real, injected, delivered, data.get("request"))
        await _send_json(send, 200, {"ok": True})


class _ClosedStreamFilter(logging.Filter):
    """The SDK logs at ERROR when a client ends a session while its standalone SSE stream
    is open (every normal close); that is not an error of ours."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (exc is not None and type(exc).__name__ == "ClosedResourceError")


def _quiet_sdk() -> None:
    log = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, _ClosedStreamFilter) for f in log.filters):
        log.addFilter(_ClosedStreamFilter())


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
