"""`agentprop serve-sim`: the sim policies behind the OpenAI chat-completions, Anthropic
Messages and Gemini generateContent APIs, with injectable latency and faults, for tests
and benchmarks of the real SDK client paths.

A compact asyncio HTTP/1.1 keep-alive server (no framework dependency): one coroutine per
connection, responses computed by the same `SimAgent` as the in-process `sim/` models, so
every path answers identically. Each wire format (`_wire_*`) only converts to and from our
Message/ToolSpec/ModelOutput form, so faults, latency and stats are the same on every
route. Faults are drawn deterministically per request from a hash of (fault seed,
request body, how many times that body was seen), so a retry of the same request gets a
fresh draw and a whole run is reproducible.

Routes (matched by suffix, so any base URL prefix works): ``POST .../chat/completions``,
``POST .../messages``, ``POST .../models/{model}:generateContent``, ``GET /v1/models``,
``GET /stats`` (request counters, per route too), ``POST /stats/reset``, ``GET /health``.

Hostile clients (SECURITY.md): a Host that is not a name the server was bound to gets 421
(`agentprop.safety.host_allowed`, against DNS rebinding); a body over `MAX_BODY`, sent
with Content-Length or chunked, gets 413; a connection gets `idle_timeout_s` to start a
request, then `header_timeout_s` for the rest of its headers and `body_timeout_s` for
its body, and is closed when it overruns.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentprop.core import ModelOutput
from agentprop.safety import MISDIRECTED, host_allowed
from agentprop.sim._admission import Admission
from agentprop.sim._model import SimAgent
from agentprop.sim._profiles import PROFILES, SimProfile
from agentprop.sim._wire_anthropic import AnthropicWire
from agentprop.sim._wire_base import WireFormat
from agentprop.sim._wire_gemini import GeminiWire
from agentprop.sim._wire_openai import OpenAIWire, completion_json

if TYPE_CHECKING:
    from agentprop.suite import Suite

__all__ = ["FAULT_TYPES", "QUIRKS", "ServerConfig", "ServerThread", "SimServer", "completion_json",
           "serve"]

FAULT_TYPES = ("429", "500", "timeout", "malformed")
QUIRKS: dict[str, str] = {
    "drop-tools": "ignore the request's tools and tool_choice (a chat template without "
                  "tools: the model never sees them)",
    "json-content": "return tool calls as JSON text in the content, without tool_calls "
                    "(a server with no tool-call parser for the model)",
    "empty-reply": "return an empty reply instead of tool calls (the server's parser "
                   "failed on the model's call)",
    "default-none": "read a missing tool_choice as \"none\" (llama-cpp-python's "
                    "chatml-function-calling)",
    "errors-as-500": "answer an invalid request with HTTP 500 instead of 400 "
                     "(llama-cpp-python's server)",
}
"""Ways real OpenAI-compatible servers fail at tool calling, to imitate on request
(`serve-sim --quirk NAME`, repeatable; docs/real-servers.md). None is on by default."""
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            413: "Payload Too Large", 421: "Misdirected Request", 429: "Too Many Requests",
            500: "Internal Server Error"}
MAX_BODY = 32 * 1024 * 1024
_OPENAI, _ANTHROPIC, _GEMINI = OpenAIWire(), AnthropicWire(), GeminiWire()
_GEMINI_PATH = re.compile(r"/models/(.+):generateContent$")


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8768
    latency_ms: float = 0.0
    fail_rate: float = 0.0
    faults: tuple[str, ...] = FAULT_TYPES
    retry_after_s: float = 1.0
    hold_s: float = 300.0
    fault_seed: int = 0
    rpm: float | None = None
    tpm: float | None = None
    limit_burst_s: float = 5.0
    aliases: dict[str, str] = field(default_factory=dict)
    default_profile: str | None = None
    answer_judges: bool = False
    idle_timeout_s: float = 60.0
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    quirks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        bad = [f for f in self.faults if f not in FAULT_TYPES]
        if bad:
            raise ValueError(f"unknown fault type {bad[0]!r} (known: {', '.join(FAULT_TYPES)})")
        odd = [q for q in self.quirks if q not in QUIRKS]
        if odd:
            import difflib

            near = difflib.get_close_matches(odd[0], list(QUIRKS), n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise ValueError(f"unknown quirk {odd[0]!r} ({hint}known: {', '.join(QUIRKS)})")
        if not 0.0 <= self.fail_rate <= 1.0:
            raise ValueError("fail rate must be between 0 and 1")
        if self.latency_ms < 0:
            raise ValueError("latency must be >= 0")
        if self.fail_rate > 0 and not self.faults:
            raise ValueError("a positive fail rate needs at least one fault type")
        if min(self.idle_timeout_s, self.header_timeout_s, self.body_timeout_s) <= 0:
            raise ValueError("timeouts must be > 0")
        for name, v in (("rpm", self.rpm), ("tpm", self.tpm)):
            if v is not None and v <= 0:
                raise ValueError(f"{name} must be positive")


@dataclass
class _RouteStats:
    requests: int = 0
    ok: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "ok": self.ok, "faults": dict(self.faults)}


@dataclass
class _Stats:
    """Counters; `chat_completions`, `messages`, `generate_content` count each route's
    requests, and `ok`/`faults` sum over routes (`by_route` splits them)."""

    requests: int = 0
    rate_limited: int = 0
    by_model: Counter[str] = field(default_factory=Counter)
    by_route: dict[str, _RouteStats] = field(default_factory=lambda: {
        w.route: _RouteStats() for w in (_OPENAI, _ANTHROPIC, _GEMINI)})

    def as_dict(self) -> dict[str, Any]:
        faults: Counter[str] = Counter()
        for r in self.by_route.values():
            faults.update(r.faults)
        return {"requests": self.requests, "rate_limited": self.rate_limited,
                **{name: r.requests for name, r in self.by_route.items()},
                "ok": sum(r.ok for r in self.by_route.values()), "faults": dict(faults),
                "by_model": dict(self.by_model),
                "by_route": {name: r.as_dict() for name, r in self.by_route.items()}}


def _unit(*parts: object) -> float:
    h = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def _quirky(out: ModelOutput, quirks: tuple[str, ...]) -> ModelOutput:
    """The answer as a server with `quirks` returns it: tool calls as JSON text
    (``json-content``, one object per call and line) or as nothing (``empty-reply``)."""
    if not out.tool_calls:
        return out
    if "json-content" in quirks:
        text = "\n".join(json.dumps({"name": c.name, "arguments": c.arguments})
                         for c in out.tool_calls)
        return out.model_copy(update={"text": text, "tool_calls": []})
    if "empty-reply" in quirks:
        return out.model_copy(update={"text": "", "tool_calls": []})
    return out


def _error(status: int, message: str, wire: WireFormat = _OPENAI) -> tuple[int, Any]:
    return status, wire.error(status, message)


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes | int | None:
    """The request body; 413 when it would exceed MAX_BODY (Content-Length or chunked);
    None when it is malformed or the client went away."""
    try:
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            total = 0
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size < 0:
                    return None
                total += size
                if total > MAX_BODY:
                    return 413
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    return b"".join(chunks)
                chunks.append((await reader.readexactly(size + 2))[:-2])
        n = int(headers.get("content-length", "0") or 0)
        if n < 0:
            return None
        if n > MAX_BODY:
            return 413
        return await reader.readexactly(n) if n else b""
    except (ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
            ConnectionError):
        return None


async def _linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                  seconds: float = 2.0) -> None:
    """Half-close and discard what the client still sends for a moment: closing with
    unread data makes the kernel reset the connection, and the client would see the reset
    instead of our answer."""
    with contextlib.suppress(Exception):
        writer.write_eof()
        async with asyncio.timeout(seconds):
            while await reader.read(1 << 16):
                pass


class SimServer:
    """The server. `start()` binds; `serve_forever()` runs until `close()`."""

    def __init__(self, config: ServerConfig, *, suite: Suite | None = None,
                 profiles: dict[str, SimProfile] | None = None,
                 generators: dict[str, Any] | None = None) -> None:
        self.config = config
        self.agent = SimAgent(suite, generators=generators)
        self.profiles = dict(profiles or PROFILES)
        for alias, target in config.aliases.items():
            if target not in self.profiles:
                raise ValueError(f"alias {alias}={target}: no sim profile {target!r} "
                                 f"(known: {', '.join(sorted(self.profiles))})")
        if config.default_profile is not None and config.default_profile not in self.profiles:
            raise ValueError(f"no sim profile {config.default_profile!r} "
                             f"(known: {', '.join(sorted(self.profiles))})")
        self._judge: Any = None
        self.admission = Admission(config.rpm, config.tpm, burst_s=config.limit_burst_s)
        self.stats = _Stats()
        self._seen: Counter[str] = Counter()
        self._server: asyncio.Server | None = None
        self._conns: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``.../v1``)."""
        return f"http://{self.config.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        """The base URL for the anthropic and google SDKs, which append ``/v1/messages``
        and ``/v1beta/models/...`` themselves."""
        return f"http://{self.config.host}:{self.port}"

    async def start(self) -> None:
        _ = self.agent.suite  # load before the first request, not inside it
        self._server = await asyncio.start_server(self._on_conn, self.config.host,
                                                  self.config.port, backlog=1024)

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._conns):
            t.cancel()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)

    # -- HTTP ---------------------------------------------------------------------------
    async def _on_conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._conns.add(task)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:  # closed, malformed or too slow: hang up
                    return
                if isinstance(request, int):  # a body over the cap: answer, then hang up
                    await self._respond(writer, (*_error(request, "request body too large"),
                                                 {}), keep=False)
                    await _linger(reader, writer)
                    return
                method, target, version, headers, body = request
                keep = (version == "HTTP/1.1" and headers.get("connection", "").lower()
                        != "close")
                if not host_allowed(headers.get("host"), self.config.host, self.port):
                    result: tuple[int, Any, dict[str, str]] | None = (*_error(
                        MISDIRECTED, "this server answers only to the names it was bound to"),
                        {})
                else:
                    try:
                        result = await self._dispatch(method, target.split("?", 1)[0],
                                                      headers, body)
                    except Exception as e:  # a policy bug answers 500, never kills the server
                        result = (*_error(500, f"{type(e).__name__}: {e}"), {})
                if result is None:  # the "timeout" fault: hold, then hang up
                    await asyncio.sleep(self.config.hold_s)
                    return
                await self._respond(writer, result, keep=keep)
                if not keep:
                    return
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            if task is not None:
                self._conns.discard(task)
            writer.close()

    @staticmethod
    async def _respond(writer: asyncio.StreamWriter, result: tuple[int, Any, dict[str, str]],
                       *, keep: bool) -> None:
        status, payload, extra = result
        data = json.dumps(payload).encode()
        hdrs = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
                "Content-Type: application/json",
                f"Content-Length: {len(data)}",
                f"Connection: {'keep-alive' if keep else 'close'}"]
        hdrs += [f"{k}: {v}" for k, v in extra.items()]
        writer.write(("\r\n".join(hdrs) + "\r\n\r\n").encode() + data)
        await writer.drain()

    async def _read_request(self, reader: asyncio.StreamReader
                            ) -> tuple[str, str, str, dict[str, str], bytes] | int | None:
        """(method, target, version, headers, body); 413 for a body over the cap; None
        when the client closed, sent garbage, or overran a deadline."""
        cfg = self.config
        try:
            first = await asyncio.wait_for(reader.readexactly(1), cfg.idle_timeout_s)
            async with asyncio.timeout(cfg.header_timeout_s):
                head = first + await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ConnectionError):
            return None
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            return None
        headers: dict[str, str] = {}
        for ln in lines[1:]:
            if ":" in ln:
                k, v = ln.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        try:
            async with asyncio.timeout(cfg.body_timeout_s):
                body = await _read_body(reader, headers)
        except TimeoutError:
            return None
        if body is None or isinstance(body, int):
            return body
        return method, target, version, headers, body

    async def _dispatch(self, method: str, path: str, headers: dict[str, str],
                        body: bytes) -> tuple[int, Any, dict[str, str]] | None:
        self.stats.requests += 1
        path = path.rstrip("/")
        wire: WireFormat | None = None
        path_model = None
        if path.endswith("/chat/completions"):
            wire = _OPENAI
        elif path.endswith("/messages"):
            wire = _ANTHROPIC
        elif (hit := _GEMINI_PATH.search(path)) is not None:
            wire, path_model = _GEMINI, hit.group(1)
        if wire is not None:
            if method != "POST":
                return (*_error(405, "use POST", wire), {})
            return await self._generate(wire, body, headers, path_model)
        if method == "GET" and path in ("/v1/models", "/models"):
            data = [{"id": n, "object": "model", "created": 0, "owned_by": "agentprop-sim"}
                    for n in sorted(self.profiles)]
            return 200, {"object": "list", "data": data}, {}
        if method == "GET" and path == "/stats":
            return 200, self.stats.as_dict(), {}
        if method == "POST" and path == "/stats/reset":
            self.stats = _Stats()
            return 200, {"ok": True}, {}
        if method == "GET" and path == "/health":
            return 200, {"ok": True}, {}
        return (*_error(404, f"no route {method} {path}"), {})

    async def _answer(self, req: Any, profile: SimProfile) -> Any:
        """The agent policy's answer. With `answer_judges`, an LLM-judge prompt (no tools;
        question, reference and answer) is answered YES/NO by the `exact` simulated judge
        instead, so a study whose judges are real model names runs end to end here
        (`--rehearse`)."""
        if self.config.answer_judges and not req.tools:
            from agentprop.judges._prompt import parse_judge_prompt

            if parse_judge_prompt(req.messages) is not None:
                if self._judge is None:
                    from agentprop.judges._simjudge import SIM_JUDGE_PROFILES, SimJudgeModel

                    self._judge = SimJudgeModel(SIM_JUDGE_PROFILES["exact"],
                                                suite=self.agent.suite)
                from agentprop.models import GenerateConfig

                return await self._judge.generate(req.messages, [],
                                                  GenerateConfig(seed=req.seed))
        return self.agent.respond(req.messages, req.tools, profile, req.seed,
                                  req.tool_choice)

    def profile_name(self, model: str) -> str | None:
        """The sim profile answering `model`: an alias (`--alias gpt-4o-mini=balanced`), a
        profile name, else the default profile (None when there is none)."""
        name = model.removeprefix("models/")
        if name in self.config.aliases:
            return self.config.aliases[name]
        name = name.removeprefix("sim/")
        if name in self.profiles:
            return name
        return self.config.default_profile

    async def _generate(self, wire: WireFormat, body: bytes, headers: dict[str, str],
                        path_model: str | None) -> tuple[int, Any, dict[str, str]] | None:
        """One model call in any wire format: the same policy, faults and latency."""
        route = self.stats.by_route[wire.route]
        route.requests += 1
        quirks = self.config.quirks
        try:
            req = wire.parse(body, headers, path_model)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            status = 500 if "errors-as-500" in quirks else 400
            return (*_error(status, f"invalid request: {e}", wire), {})
        if "drop-tools" in quirks:
            req.tools, req.tool_choice = [], None
        if "default-none" in quirks and req.tool_choice is None:
            req.tool_choice = "none"
        name = self.profile_name(req.model)
        profile = self.profiles.get(name) if name is not None else None
        if profile is None or name is None:
            known = ", ".join(sorted(self.profiles))
            return (*_error(404, f"unknown model {req.model!r} (known: {known})", wire), {})
        self.stats.by_model[name] += 1
        cfg = self.config
        key = hashlib.sha256(body).hexdigest()
        nth = self._seen[key]
        self._seen[key] += 1
        fault = None
        if cfg.fail_rate > 0 and _unit(cfg.fault_seed, key, nth, "fail") < cfg.fail_rate:
            fault = cfg.faults[int(_unit(cfg.fault_seed, key, nth, "kind") * len(cfg.faults))]
            route.faults[fault] += 1
        if fault == "429":
            return (*_error(429, "rate limit exceeded (simulated)", wire),
                    {"Retry-After": f"{cfg.retry_after_s:g}"})
        if fault == "500":
            return (*_error(500, "internal error (simulated)", wire), {})
        if fault == "timeout":
            return None
        out = _quirky(await self._answer(req, profile), quirks)
        if self.admission.limited:
            wait = self.admission.admit(out.usage.input_tokens + out.usage.output_tokens)
            if wait is not None:
                self.stats.rate_limited += 1
                return (*_error(429, "rate limit exceeded: requests or tokens per minute",
                                wire),
                        {"Retry-After": f"{max(1, round(wait + 0.5))}",
                         "retry-after-ms": f"{int(wait * 1000) + 1}"})
        if cfg.latency_ms > 0:
            await asyncio.sleep(cfg.latency_ms / 1000.0)
        payload = wire.response(out, req.model, key[:16])
        if fault == "malformed":
            wire.malform(payload, req.tools)
        else:
            route.ok += 1
        return 200, payload, {}


async def serve(config: ServerConfig, *, suite: Suite | None = None,
                ready: threading.Event | None = None) -> None:
    """Run until cancelled (the CLI's entry point)."""
    server = SimServer(config, suite=suite)
    await server.start()
    if ready is not None:
        ready.set()
    try:
        await server.serve_forever()
    finally:
        await server.close()


class ServerThread:
    """A SimServer on its own event loop in a daemon thread (for tests and benchmarks).

    ``with ServerThread(ServerConfig(port=0), suite=s) as srv: srv.base_url``
    """

    def __init__(self, config: ServerConfig, *, suite: Suite | None = None,
                 profiles: dict[str, SimProfile] | None = None,
                 generators: dict[str, Any] | None = None) -> None:
        self.server = SimServer(config, suite=suite, profiles=profiles, generators=generators)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="serve-sim", daemon=True)
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self.server.start())
        except BaseException as e:
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self.server.close())
        self._loop.close()

    def start(self) -> ServerThread:
        self._thread.start()
        self._ready.wait(60)
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def root_url(self) -> str:
        return self.server.root_url

    @property
    def stats(self) -> dict[str, Any]:
        return self.server.stats.as_dict()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
