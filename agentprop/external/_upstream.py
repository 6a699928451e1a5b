"""The user's own MCP server as agentprop's environment: its tools, forwarded.

`discover` opens one session to the upstream (a command over stdio, or a URL over
streamable HTTP), reads its name and tool list, and makes an `UpstreamDomain`: each tool
with the upstream's own JSON Schema, every parameter a target for P2 (`semantic_wrong`
draws a schema-valid replacement from the schema and from the values the episode has
seen: `agentprop.inject.schema_alternative`). Each episode then gets an
`UpstreamEnvironment`: its calls go through the run's one session with the upstream
(`UpstreamDomain.connected`, opened by the runner at the first call and closed at the end;
one process for the whole run: starting a Python MCP server takes seconds). State the
server keeps is therefore shared by the run's episodes, as the world outside it (a
repository, a database) is anyway.

The counterfactual (the clean call's result) is a second call, so it is made only for a
tool that is read-only: annotated ``readOnlyHint: true`` (MCP tool annotations) or named
with `--safe-tool`. Every other tool is `mutates`: its counterfactual is withheld, S2 is
undefined with the reason, and agentprop calls it exactly once per call the agent makes.

An upstream that dies, hangs (`call_timeout_s`) or cannot start turns into an error
observation for the call the agent made, and `failure` tells the runner, which writes the
episode as an error trace; the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import re
import shlex
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import IO, Any

import anyio
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from mcp import ClientSession, McpError, StdioServerParameters, types

from agentprop.core import ToolSpec
from agentprop.domains import Domain, Environment, Observation, Tool, error_observation
from agentprop.errors import AgentpropError
from agentprop.safety import redact_url, term_safe

SIDE_EFFECTS = ("side effects: the tool is not annotated readOnlyHint and not named with "
                "--safe-tool, so agentprop never calls it a second time")
"""`ToolResultEvent.counterfactual_withheld` for a tool that may change the world."""
UPSTREAM_FAILED = "upstream_failed"
"""The error observation type of a call the upstream could not answer (dead, hung)."""


class UpstreamError(AgentpropError):
    """The upstream cannot be reached or is not a usable MCP server (one line)."""


@dataclass(frozen=True)
class Upstream:
    """Where the user's MCP server is: a command (stdio) or a URL (streamable HTTP)."""

    command: tuple[str, ...] = ()
    url: str | None = None
    safe_tools: frozenset[str] = frozenset()
    """Tools the user declares read-only (`--safe-tool`), whatever their annotations."""
    call_timeout_s: float = 60.0
    start_timeout_s: float = 60.0
    cwd: str | None = None

    @classmethod
    def parse(cls, command: str | None, url: str | None, *, safe_tools: Sequence[str] = (),
              call_timeout_s: float = 60.0) -> Upstream:
        """From `--upstream 'COMMAND ARGS…'` or `--upstream-url URL` (exactly one)."""
        if (command is None) == (url is None):
            raise UpstreamError("give the upstream MCP server as --upstream 'COMMAND ARGS' "
                                "or --upstream-url URL (one of the two)")
        if command is not None:
            try:
                argv = tuple(shlex.split(command))
            except ValueError as e:
                raise UpstreamError(f"--upstream {command!r}: {e}") from None
            if not argv:
                raise UpstreamError("--upstream is empty: give the server's command")
            return cls(command=argv, safe_tools=frozenset(safe_tools),
                       call_timeout_s=call_timeout_s)
        assert url is not None
        if not re.match(r"^https?://", url):
            raise UpstreamError(f"--upstream-url {redact_url(url)!r} must be an http(s) URL")
        return cls(url=url, safe_tools=frozenset(safe_tools), call_timeout_s=call_timeout_s)

    def describe(self) -> str:
        """What to show and store (a URL without its credentials or query)."""
        return shlex.join(self.command) if self.command else redact_url(self.url or "")

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[tuple[ClientSession, types.InitializeResult,
                                                    StderrTail]]:
        """An initialised `ClientSession`, its `initialize` result, and the tail of the
        server's stderr (kept in a temporary file: the server's log lines must not break
        the progress display, but its last words explain a crash)."""
        async with contextlib.AsyncExitStack() as stack:
            errlog = stack.enter_context(tempfile.TemporaryFile(  # noqa: SIM115
                "w+", encoding="utf-8", errors="replace"))
            tail: StderrTail = functools.partial(_tail, errlog)
            if self.command:
                params = StdioServerParameters(command=self.command[0],
                                               args=list(self.command[1:]), cwd=self.cwd)
                from mcp.client.stdio import stdio_client

                read, write = await stack.enter_async_context(
                    stdio_client(params, errlog=errlog))
            else:
                import httpx
                from mcp.client.streamable_http import streamable_http_client

                client = await stack.enter_async_context(httpx.AsyncClient(
                    follow_redirects=False, timeout=httpx.Timeout(30.0, read=300.0)))
                read, write, _ = await stack.enter_async_context(
                    streamable_http_client(str(self.url), http_client=client))
            session = await stack.enter_async_context(ClientSession(read, write))
            try:
                with anyio.fail_after(self.start_timeout_s):
                    init = await session.initialize()
            except TimeoutError:
                raise UpstreamError(f"the upstream {self.describe()} did not answer within "
                                    f"{self.start_timeout_s:g} s{tail()}") from None
            except Exception as e:
                raise UpstreamError(f"cannot start the upstream {self.describe()}: "
                                    f"{_reason(e)}{tail()}") from None
            yield session, init, tail


StderrTail = Callable[[], str]
"""The last line the upstream wrote to stderr, as ``" (stderr: …)"`` ("" when none)."""


def _tail(errlog: IO[str]) -> str:
    try:
        errlog.flush()
        errlog.seek(0)
        lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    return f" (stderr: {term_safe(lines[-1])[:300]})" if lines else ""


def _name(init: types.InitializeResult, upstream: Upstream) -> str:
    """The server's name as a domain name (letters, digits, '-', '_')."""
    raw = init.serverInfo.name if init.serverInfo and init.serverInfo.name else ""
    if not raw and upstream.command:
        raw = upstream.command[-1] if upstream.command[0].startswith("python") else \
            upstream.command[0]
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-_").lower()
    return slug or "upstream"


def _read_only(tool: types.Tool, safe: frozenset[str]) -> bool:
    hint = tool.annotations.readOnlyHint if tool.annotations is not None else None
    return tool.name in safe or hint is True


def _inlined(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """`schema` with its local ``$ref``s (``#/$defs/X``, ``#/definitions/X``) replaced by
    what they point to, so a parameter's schema stands alone (pydantic-built servers put
    enums behind a ``$ref``); a ref that does not resolve is left as it is."""
    if depth > 8:
        return schema
    if isinstance(schema, list):
        return [_inlined(v, root, depth + 1) for v in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        if isinstance(target, dict):
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return _inlined({**target, **rest}, root, depth + 1)
    return {k: _inlined(v, root, depth + 1) for k, v in schema.items()}


def _not_local(state: Any, args: dict[str, Any]) -> Observation:
    """An upstream tool runs in the upstream, never here (`UpstreamEnvironment.acall`)."""
    return error_observation("internal", "an upstream tool is called through its session")


class UpstreamDomain(Domain):
    """The tools of one upstream server, with the upstream's own schemas."""

    injectable = True
    foreign = True

    def __init__(self, name: str, tools: Sequence[types.Tool], upstream: Upstream) -> None:
        self.name = name  # type: ignore[misc]  # an instance's name, not a registered class's
        self.upstream = upstream
        self._listed = list(tools)
        self._schemas: dict[str, dict[str, Any]] = {}
        self.connection: Connection | None = None
        """Open while a run uses the domain (`connected`)."""
        super().__init__()

    def build_tools(self) -> list[Tool]:
        out = []
        for t in self._listed:
            schema = dict(t.inputSchema or {"type": "object"})
            try:
                Draft202012Validator.check_schema(schema)
            except SchemaError as e:
                raise UpstreamError(f"tool {t.name!r} of the upstream has an invalid input "
                                    f"schema: {e.message}") from None
            listed = schema.get("properties")
            props: dict[str, Any] = listed if isinstance(listed, dict) else {}
            kinds = {p: f"{t.name}/{p}" for p, s in props.items() if isinstance(s, dict)}
            self._schemas.update({kinds[p]: _inlined(props[p], schema) for p in kinds})
            spec = ToolSpec(name=t.name, description=t.description or "", parameters=schema,
                            critical_params=kinds,
                            mutates=not _read_only(t, self.upstream.safe_tools))
            out.append(Tool(spec=spec, fn=_not_local))
        return out

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """A schema-valid replacement for the parameter `kind` (``tool/param``), from its
        schema or a value the episode has seen; KeyError when there is none."""
        from agentprop.inject import schema_alternative

        schema = self._schemas[kind]
        seen = env.seen if isinstance(env, UpstreamEnvironment) else []
        return schema_alternative(schema, value, rng, seen)

    def make_env(self, seed: int) -> Environment:
        return UpstreamEnvironment(self, seed)

    @contextlib.asynccontextmanager
    async def connected(self) -> AsyncIterator[UpstreamDomain]:
        """The run's connection to the upstream, from the first call to the end."""
        self.connection = Connection(self.upstream)
        try:
            yield self
        finally:
            conn, self.connection = self.connection, None
            await conn.aclose()


async def discover(upstream: Upstream) -> UpstreamDomain:
    """The upstream's tools as a domain (one session, closed again); `UpstreamError` when
    it cannot be started, does not answer or lists no tools."""
    try:
        async with upstream.session() as (session, init, _):
            listed: list[types.Tool] = []
            cursor: str | None = None
            while True:
                with anyio.fail_after(upstream.call_timeout_s):
                    page = await session.list_tools(cursor=cursor) if cursor else \
                        await session.list_tools()
                listed += page.tools
                cursor = page.nextCursor
                if not cursor:
                    break
            name = _name(init, upstream)
    except UpstreamError:
        raise
    except TimeoutError:
        raise UpstreamError(f"the upstream {upstream.describe()} did not answer within "
                            f"{upstream.start_timeout_s:g} s") from None
    except Exception as e:  # anything the process or transport raised: one line
        raise UpstreamError(f"cannot start the upstream {upstream.describe()}: "
                            f"{_reason(e)}") from None
    if not listed:
        raise UpstreamError(f"the upstream {upstream.describe()} lists no tools")
    return UpstreamDomain(name, listed, upstream)


def _reason(e: BaseException) -> str:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def observation_of(result: types.CallToolResult) -> Observation:
    """An MCP tool result as an agentprop observation: the structured content, else the
    text parsed as a JSON object, else ``{"text": ...}``; an `isError` result is an
    ``error`` observation (what the interceptor's L1 and the noticing rules read)."""
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    text = "\n".join(texts)
    if result.isError:
        return error_observation("tool_error", text or "the tool reported an error")
    if isinstance(result.structuredContent, dict):
        return dict(result.structuredContent)
    if len(texts) == 1:
        with contextlib.suppress(ValueError, RecursionError):
            value = json.loads(text)
            if isinstance(value, dict):
                return value
    others = [c.type for c in result.content if not isinstance(c, types.TextContent)]
    obs: Observation = {"text": text}
    if others:
        obs["other_content"] = others
    return obs


class Connection:
    """The run's one session with the upstream, shared by its episodes (an MCP session
    carries concurrent calls). A keeper task owns the transport, so it is opened and
    closed in one task, as anyio requires; a connection that died is reopened for the
    calls after it, so one crash costs the episodes it was in, not the run."""

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self.starts = 0
        """How many times the upstream was started (1 unless it died and was restarted)."""
        self._session: ClientSession | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._error: str | None = None
        self._lock = asyncio.Lock()
        self.tail: StderrTail = lambda: ""
        """The last line the running upstream wrote to stderr (for a crash's reason)."""

    async def session(self) -> ClientSession:
        """The open session (started, or restarted after a failure); `UpstreamError`
        with the reason when it cannot be started."""
        async with self._lock:
            keeper = self._keeper
            if keeper is not None and self._session is None and self._ready.is_set():
                # broken (`broke`) or ended: let it finish before starting another
                with contextlib.suppress(BaseException):
                    await keeper
            if self._keeper is None or self._keeper.done():
                self._ready = asyncio.Event()
                self._error = None
                self.starts += 1
                self._keeper = asyncio.ensure_future(self._keep())
            await self._ready.wait()
            if self._session is None:
                raise UpstreamError(self._error or "the upstream is not running")
            return self._session

    def broke(self) -> None:
        """The session failed under a call (the process died, the transport broke): the
        next call starts the upstream again."""
        self._session = None
        if self._keeper is not None and not self._keeper.done():
            self._keeper.cancel()

    async def _keep(self) -> None:
        try:
            async with self.upstream.session() as (session, _, tail):
                self.tail = tail
                self._session = session
                self._ready.set()
                await self._closing.wait()
        except asyncio.CancelledError:
            pass
        except UpstreamError as e:
            self._error = str(e)
        except Exception as e:
            self._error = f"the upstream could not be started: {_reason(e)}"
        finally:
            self._session = None
            self._ready.set()

    async def aclose(self) -> None:
        """End the session and the upstream's process (at the end of the run)."""
        self._closing.set()
        keeper, self._keeper = self._keeper, None
        if keeper is not None and not keeper.done():
            try:
                await asyncio.wait_for(asyncio.shield(keeper), 10)
            except (TimeoutError, asyncio.CancelledError):
                keeper.cancel()


class UpstreamEnvironment(Environment):
    """One episode's view of the upstream: its calls go through the run's connection,
    and what the episode saw feeds P2's schema-valid replacements."""

    def __init__(self, domain: UpstreamDomain, seed: int) -> None:
        super().__init__(domain, None, seed)
        self.upstream_domain = domain
        self.seen: list[Any] = []
        """Values of the episode's arguments and observations, in order (for P2)."""
        self.calls = 0
        """Calls this episode made to the upstream (the agent's and counterfactuals)."""

    def withholds(self, name: str) -> str | None:
        tool = self.domain.tool(name)
        return SIDE_EFFECTS if tool is None or tool.spec.mutates else None

    async def acall(self, name: str, args: Any) -> Observation:
        obs = await self._forward(name, args)
        self._remember(args, obs)
        return obs

    async def counterfactual(self, name: str, args: Any) -> Observation:
        return await self._forward(name, args)

    def call(self, name: str, args: Any) -> Observation:
        return _not_local(None, {})

    def copy(self) -> Environment:
        return self  # never a second world: a synchronous call on it is refused (`call`)

    def _remember(self, args: Any, obs: Observation) -> None:
        from agentprop.inject import seen_values

        self.seen = seen_values([*self.seen, args, obs])

    async def _forward(self, name: str, args: Any) -> Observation:
        conn = self.upstream_domain.connection
        if conn is None:
            return error_observation(UPSTREAM_FAILED, "the upstream is not connected")
        timeout = conn.upstream.call_timeout_s
        try:
            session = await conn.session()
        except UpstreamError as e:
            self.failure = str(e)
            return error_observation(UPSTREAM_FAILED, self.failure)
        self.calls += 1
        arguments = dict(args) if isinstance(args, dict) else {}
        try:
            result = await session.call_tool(
                name, arguments, read_timeout_seconds=timedelta(seconds=timeout))
        except McpError as e:
            if e.error.code == types.CONNECTION_CLOSED:
                self.failure = (f"the upstream died during {name}: {e.error.message}"
                                f"{conn.tail()}")
            elif _timed_out(e):
                self.failure = f"the upstream hung: no answer to {name} within {timeout:g} s"
            else:  # the server refused the call (unknown tool, bad params): its answer
                return error_observation("protocol_error", e.error.message)
        except Exception as e:  # the process died or the transport broke
            self.failure = f"the upstream failed during {name}: {_reason(e)}{conn.tail()}"
        else:
            return observation_of(result)
        conn.broke()
        return error_observation(UPSTREAM_FAILED, self.failure)


def _timed_out(e: McpError) -> bool:
    return e.error.code == 408 or "timed out" in e.error.message.lower()
