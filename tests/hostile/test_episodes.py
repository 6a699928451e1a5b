"""Episode integrity over MCP: an episode belongs to one MCP session and two sessions'
calls never merge into one trace; `/mcp` hands out the next open episode; a client learns
the question from the instructions, a prompt and a resource, over HTTP and stdio; episode
ids are unguessable and an agent reaches only its own episode; one unit is stored once
per run whatever the transport."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agentprop.cli._suite import get_suite
from agentprop.core import ToolResultEvent, WorkUnit
from agentprop.domains import get_domain
from agentprop.external import EpisodeHost, EpisodeRecorder
from agentprop.external._episode import QUESTION_URI
from agentprop.store import Workspace
from tests.hostile._helpers import RawMcp, invoke

ROOT = Path(__file__).resolve().parents[2]
AGENTS = str(Path(__file__).with_name("_agents.py"))


def _recorders(n: int, *, exclusive: bool = True) -> list[EpisodeRecorder]:
    tasks = [t for t in get_suite(None).tasks if t.domain == "weather"][:n]
    return [EpisodeRecorder(WorkUnit(run_id="r", model="m", task_id=t.id), t,
                            get_domain(t.domain).make_env(t.env_seed), exclusive=exclusive)
            for t in tasks]


@asynccontextmanager
async def _host(recs: list[EpisodeRecorder], **kw: Any) -> AsyncIterator[EpisodeHost]:
    async def submit(rec: EpisodeRecorder, answer: str) -> None:
        rec.finish(answer)

    async with EpisodeHost(submit=submit, **kw) as host:
        for r in recs:
            host.add(r)
        yield host


async def _in_thread(fn: Callable[[], Any]) -> Any:
    return await asyncio.to_thread(fn)


def _calls(rec: EpisodeRecorder) -> list[dict[str, Any]]:
    return [e.arguments for e in rec.ctx.events if isinstance(e, ToolResultEvent)]


async def test_a_dead_sessions_calls_never_merge_with_the_next_sessions() -> None:
    (rec,) = _recorders(1)
    async with _host([rec], listing=True) as host:
        url = host.mcp_url(rec.id)

        def dead_then_next() -> tuple[int, int, str]:
            early = RawMcp(url)  # opened before anyone called a tool
            assert early.initialize().status_code == 200
            dead = RawMcp(url)
            assert dead.initialize().status_code == 200
            tool = dead.tools()[0]
            assert "result" in dead.call(tool, '{"city": "Paris"}').json()
            dead.http.close()  # the client dies: no DELETE, no submit_answer
            late = RawMcp(url)
            refused = late.initialize().status_code  # a new session after the calls
            taken = early.call(tool, '{"city": "Rome"}').json()["result"]
            return refused, int(taken["isError"]), taken["structuredContent"]["error"]["type"]

        refused, is_error, kind = await _in_thread(dead_then_next)
    assert refused == 409 and is_error and kind == "episode_taken"
    assert _calls(rec) == [{"city": "Paris"}]  # only the owner's call
    trace = rec.fail("timeout", "no answer")
    assert trace.meta["refused_sessions"] == 2


async def test_the_stable_endpoint_hands_out_the_next_open_episode() -> None:
    recs = _recorders(2)
    async with _host(recs, listing=True) as host:

        def clients() -> list[Any]:
            first, second, third = (RawMcp(f"{host.url}/mcp") for _ in range(3))
            got = [first.initialize().json(), second.initialize().json()]
            busy = third.initialize()
            listed = first.http.get(f"{host.url}/episodes").json()
            first.call("submit_answer", '{"answer": "one"}')
            again = first.call(first.tools()[0], "{}").json()["result"]
            return [got, busy.status_code, listed, again]

        (a, b), busy, listed, again = await _in_thread(clients)
    queries = [r.task.query for r in recs]
    assert [q in a["result"]["instructions"] for q in queries] == [True, False]
    assert [q in b["result"]["instructions"] for q in queries] == [False, True]
    assert busy == 503 and listed == []  # both taken: none open
    assert recs[0].finished and recs[0].ctx.events[-1].answer == "one"
    assert again["structuredContent"]["error"]["type"] == "episode_closed"


async def _question(session: ClientSession) -> tuple[str, str, str]:
    prompts = (await session.list_prompts()).prompts
    prompt = await session.get_prompt(prompts[0].name)
    resources = (await session.list_resources()).resources
    text = (await session.read_resource(resources[0].uri)).contents[0]
    assert str(resources[0].uri) == QUESTION_URI
    return (prompt.messages[0].content.text,  # type: ignore[union-attr]
            getattr(text, "text", ""), prompts[0].name)


async def test_http_clients_get_the_question() -> None:
    (rec,) = _recorders(1, exclusive=False)
    async with (_host([rec]) as host,
                streamable_http_client(host.mcp_url(rec.id)) as (read, write, _),
                ClientSession(read, write) as s):
        init = await s.initialize()
        prompt, resource, name = await _question(s)
    assert rec.task.query in (init.instructions or "")
    assert "submit_answer" in (init.instructions or "")
    assert prompt == resource == rec.task.query and name == "question"


async def test_stdio_clients_get_the_question(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from agentprop.cli import main; main()", "serve-tools", "--stdio",
              "-w", str(tmp_path / "w"), "-n", "1", "-d", "weather"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        init = await s.initialize()
        prompt, resource, _ = await _question(s)
        await s.call_tool("submit_answer", {"answer": "done"})
    assert prompt == resource and prompt in (init.instructions or "")


def test_the_stdio_banner_counts_what_it_serves(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from agentprop.cli import main; main()", "serve-tools",
         "--stdio", "-w", str(tmp_path / "w"), "-n", "3", "-d", "weather",
         "--episode-timeout", "0.5"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    err = " ".join(proc.stderr.split())
    assert "serving 1 episode over stdio (3 of 3 not yet stored)" in err, err
    assert " of 1 episodes" not in err


async def test_one_unit_is_stored_once_whatever_the_transport(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    args = ["serve-tools", "-w", str(ws), "-n", "2", "-d", "weather", "-c", "p2:all"]
    params = StdioServerParameters(
        command=sys.executable, args=["-c", "from agentprop.cli import main; main()",
                                      *args, "--stdio"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        await s.call_tool("submit_answer", {"answer": "over stdio"})
    await asyncio.sleep(0.5)
    port = _free_port()
    proc = subprocess.Popen([
        sys.executable, "-c", "from agentprop.cli import main; main()", *args,
        "--port", str(port), "--concurrency", "16"], stderr=subprocess.PIPE, text=True)
    try:
        served = await _in_thread(lambda: _answer_all(port, proc))
        _, err = await _in_thread(lambda: proc.communicate(timeout=120))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    with Workspace(ws, create=False) as w:
        traces = [w.get_trace(i) for i in w.trace_ids()]
        runs = w.runs()
    units = [(t.task_id, t.condition, t.seed) for t in traces]
    assert len(units) == len(set(units)) == served + 1  # nothing twice
    assert len(runs) == 1 and {t.run_id for t in traces} == {runs[0].id}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answer_all(port: int, proc: subprocess.Popen[str]) -> int:
    """Answer every episode serve-tools lists until it exits; how many were answered."""
    import time

    import httpx

    answered: set[str] = set()
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            listed = httpx.get(f"http://127.0.0.1:{port}/episodes").json()
        except httpx.TransportError:
            listed = []
        for ep in listed:
            if ep["id"] not in answered:
                _submit(ep["mcp_url"], "over http")
                answered.add(ep["id"])
        time.sleep(0.05)
    return len(answered)


def _submit(url: str, answer: str) -> None:
    mcp = RawMcp(url)
    assert mcp.initialize().status_code == 200
    mcp.call("submit_answer", json.dumps({"answer": answer}))
    mcp.close()


def test_an_agent_reaches_only_its_own_episode(tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b"):
        result = invoke("run", "--agent", f"{AGENTS}:explores", "-w", str(tmp_path / name),
                        "-n", "2", "-d", "weather", "--json")
        assert result.exit_code == 0, result.output
        with Workspace(tmp_path / name, create=False) as w:
            runs.append({t.id: json.loads(t.final_answer)
                         for t in (w.get_trace(i) for i in w.trace_ids())})
    (a1, a2), (b1, b2) = (sorted(r) for r in runs)
    assert a1 == b1 and a2 == b2  # the same units in both workspaces...
    ids = [r[k]["id"] for r in runs for k in sorted(r)]
    assert len(set(ids)) == 4 and not set(ids) & {a1, a2}  # ...under unguessable ids
    for seen in (*runs[0].values(), *runs[1].values()):
        assert seen["list"] == 404 and seen["stable"] == 404  # no listing, no hand-out


@pytest.mark.parametrize("headers,status", [
    ({"origin": "http://evil.example"}, 403),
    ({"origin": "null"}, 403),
    ({"sec-fetch-site": "cross-site"}, 403),
    ({"content-type": "text/plain"}, 415),
])
async def test_cross_site_writes_are_refused(headers: dict[str, str], status: int) -> None:
    (rec,) = _recorders(1)
    turn = json.dumps({"output": {"text": "injected by a web page"}}).encode()
    async with _host([rec], listing=True) as host:

        def post() -> tuple[int, int, int]:
            mcp = RawMcp(host.mcp_url(rec.id))
            h = {"content-type": "application/json", **headers}
            turns = mcp.http.post(f"{host.url}/episodes/{rec.id}/model-turns", content=turn,
                                  headers=h).status_code
            opened = mcp.post('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
                              **headers).status_code
            ok = mcp.http.post(f"{host.url}/episodes/{rec.id}/model-turns", content=turn,
                               headers={"content-type": "application/json",
                                        "origin": host.url}).status_code
            return turns, opened, ok

        turns, opened, same_origin = await _in_thread(post)
    assert turns == opened == status
    assert same_origin == 200 and rec.model_turns == 1  # only the same-origin turn


DEEP = b"[" * 200_000 + b"]" * 200_000


async def test_the_gateway_refuses_hostile_requests_in_one_line() -> None:
    """An episode header that would walk the host's URL (`../../health#`), JSON nested
    200,000 deep, a cross-site or text/plain post: each a 4xx, never forwarded, never a
    500; model-turns refuses the deep JSON too."""
    import httpx

    from agentprop.external._gateway import Gateway, http_report
    from agentprop.external._host import AsgiServer

    (rec,) = _recorders(1)
    upstream: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        upstream.append(request.content)
        return httpx.Response(200, json={"choices": [{"message": {"content": "hi"}}]})

    async with _host([rec]) as host, httpx.AsyncClient() as client:
        gw = Gateway("http://upstream.test/v1", http_report(host.url, client),
                     client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        srv = AsgiServer(gw.app, "127.0.0.1", 0)
        await srv.start()
        gw.port = srv.port
        url = f"http://127.0.0.1:{srv.port}/v1/chat/completions"
        body = {"model": "m", "messages": []}
        try:
            walk = await client.post(url, json=body,
                                     headers={"X-Agentprop-Episode": "../../health#"})
            deep = await client.post(url, content=DEEP,
                                     headers={"content-type": "application/json"})
            plain = await client.post(url, content=json.dumps(body),
                                      headers={"content-type": "text/plain"})
            foreign = await client.post(url, json=body,
                                        headers={"origin": "https://evil.example"})
            turns = await client.post(f"{host.url}/episodes/{rec.id}/model-turns",
                                      content=DEEP, headers={"content-type": "application/json"})
            tagged = await client.post(url, json=body, headers={"X-Agentprop-Episode": rec.id})
        finally:
            await srv.stop()
    assert walk.status_code == 400 and "invalid episode id" in walk.text
    assert deep.status_code == 400 and "nested too deeply" in deep.text
    assert plain.status_code == 415 and foreign.status_code == 403
    assert turns.status_code == 400 and "nested too deeply" in turns.text
    assert tagged.status_code == 200 and rec.model_turns == 1
    assert len(upstream) == 1  # only the good request went upstream
