"""`agentprop serve-tools` over stdio and streamable HTTP: a client that is not launched by
agentprop gets one episode per unit, injected at the boundary, ended by submit_answer."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agentprop.core import ErrorEvent, InjectionEvent
from agentprop.store import Workspace

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from agentprop.cli import main; main()", "serve-tools"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _traces(ws: Path) -> list:
    with Workspace(ws, create=False) as w:
        return [w.get_trace(i) for i in w.trace_ids()]


async def _stdio_episode(ws: Path, answer: bool) -> None:
    params = StdioServerParameters(
        command=CLI[0], args=[*CLI[1:], "--stdio", "-w", str(ws), "-n", "1", "-d", "weather",
                              "-c", "p2:semantic_wrong"], env=_env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        tools = (await s.list_tools()).tools
        assert tools[-1].name == "submit_answer"
        first = tools[0]
        args = {k: "Paris" for k in first.inputSchema.get("required", [])}
        await s.call_tool(first.name, args)
        if answer:
            res = await s.call_tool("submit_answer", {"answer": "It is sunny."})
            assert json.loads(res.content[0].text)["ok"] is True


async def test_stdio_one_episode_per_process(tmp_path: Path) -> None:
    await _stdio_episode(tmp_path / "a", answer=True)
    await asyncio.sleep(0)
    (t,) = _traces(tmp_path / "a")
    assert t.status == "ok" and t.final.answer == "It is sunny." and t.model == "external"
    assert any(isinstance(e, InjectionEvent) for e in t.events)

    await _stdio_episode(tmp_path / "b", answer=False)  # the session ends unanswered
    (t,) = _traces(tmp_path / "b")
    assert t.status == "error"
    assert [e.kind for e in t.events if isinstance(e, ErrorEvent)] == ["no_final_answer"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_http_serves_every_unit_until_answered(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([*CLI, "-w", str(tmp_path), "-n", "2", "-d", "weather",
                             "--port", str(port), "--concurrency", "2"],
                            env=_env(), stderr=subprocess.PIPE, text=True)
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(600):
                try:
                    listed = (await http.get(f"http://127.0.0.1:{port}/episodes")).json()
                    if len(listed) == 2:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        assert len(listed) == 2
        for ep in listed:
            async with (streamable_http_client(ep["mcp_url"]) as (read, write, _),
                        ClientSession(read, write) as s):
                await s.initialize()
                assert (await s.list_tools()).tools[-1].name == "submit_answer"
                await s.call_tool("submit_answer", {"answer": f"answer {ep['task_id']}"})
        _, err = await asyncio.to_thread(proc.communicate, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    traces = _traces(tmp_path)
    assert sorted(t.final.answer for t in traces) == sorted(
        f"answer {ep['task_id']}" for ep in listed)


async def test_stdio_session_outlives_the_episode() -> None:
    """The MCP server is not stopped when the answer is in: the client must still read the
    submit_answer reply and close stdin (stopping it at once lost that reply: a stall)."""
    from agentprop.external._serve import StdioServedExecutor

    ex = StdioServedExecutor(linger_s=60)
    ended, served = asyncio.Event(), []

    async def session() -> None:  # stands for the MCP server of the episode
        await ex._ready.wait()
        await ended.wait()
        served.append("closed by the client")

    ex._serve = session  # type: ignore[method-assign]
    async with ex:
        ex._ready.set()  # the episode is open; it is answered and stored...
        asyncio.get_running_loop().call_soon(ended.set)  # ...then the client closes stdin
    assert served == ["closed by the client"]

    ex = StdioServedExecutor(linger_s=0.01)  # a client that never closes: stopped anyway
    ex._serve = session  # type: ignore[method-assign]
    ended.clear()
    async with ex:
        ex._ready.set()
    assert ex._task is not None and ex._task.cancelled()


async def test_stdio_reader_stops_on_cancel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stdin read by the event loop: a cancel ends the reader although the client neither
    writes nor closes (the SDK's thread reader would wait for it)."""
    from agentprop.external import _serve

    r, w = os.pipe()
    try:
        with os.fdopen(r, "r", closefd=False) as stdin:
            monkeypatch.setattr(sys, "stdin", stdin)
            assert _serve._stdin_is_stream()
            os.write(w, b'{"jsonrpc": "2.0"}\n')
            lines = _serve._stdin_lines()
            assert await anext(lines) == '{"jsonrpc": "2.0"}\n'
            pending = asyncio.ensure_future(anext(lines))
            await asyncio.sleep(0.01)
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
    finally:
        os.close(w)
        os.close(r)
