"""`agentprop run --agent` at the edges: typed error observations at the MCP boundary, an
agent that never calls a tool, hangs or raises, a callable that cannot be used, and the
episode host refusing what is not an episode of its own."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.cli._suite import get_suite
from agentprop.core import ErrorEvent, InjectionEvent, InterceptEvent, ToolResultEvent, WorkUnit
from agentprop.domains import get_domain
from agentprop.external import EpisodeHost, EpisodeRecorder
from agentprop.store import Workspace

AGENTS = Path(__file__).with_name("_agents.py")
runner = CliRunner()


def _run(ws: Path, name: str, *extra: str) -> dict:
    res = runner.invoke(app, ["run", "--agent", f"{AGENTS}:{name}", "-n", "1", "-d", "weather",
                              "-w", str(ws), "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _traces(ws: Path) -> list:
    with Workspace(ws, create=False) as w:
        return sorted((w.get_trace(i) for i in w.trace_ids()), key=lambda t: t.seed)


def test_unknown_tool_and_malformed_arguments_get_typed_error_observations(
        tmp_path: Path) -> None:
    _run(tmp_path, "probe")
    (trace,) = _traces(tmp_path)
    seen = json.loads(trace.final.answer)
    task = get_suite(None).get(trace.task_id)
    assert seen["tools"] == task.tools  # only this task's tools
    assert seen["unknown"]["error"]["type"] == "unknown_tool"
    assert "error" in seen["malformed"] and seen["malformed"]["error"]["type"]
    results = [e for e in trace.events if isinstance(e, ToolResultEvent)]
    assert [r.name for r in results] == ["no_such_tool", task.tools[0]]
    assert trace.model == "_agents.probe"


def test_no_tool_call_hang_and_exception(tmp_path: Path) -> None:
    summary = _run(tmp_path / "a", "silent", "-c", "p2:semantic_wrong")
    (t,) = _traces(tmp_path / "a")
    inj = [e for e in t.events if isinstance(e, InjectionEvent)]
    assert summary["errors"] == 0 and [e.status for e in inj] == ["no_tool_call"]

    summary = _run(tmp_path / "b", "hangs", "--seed", "0", "--seed", "1",
                   "--episode-timeout", "0.5", "--agent-name", "hanger")
    t0, t1 = _traces(tmp_path / "b")
    assert summary["completed"] == 2 and summary["errors"] == 1
    assert t0.status == "ok" and t1.status == "error" and t1.model == "hanger"
    assert [e.kind for e in t1.events if isinstance(e, ErrorEvent)] == ["timeout"]

    _run(tmp_path / "c", "raises", "--seed", "0", "--seed", "1")
    t0, t1 = _traces(tmp_path / "c")
    (err,) = [e for e in t1.events if isinstance(e, ErrorEvent)]
    assert t0.status == "ok" and err.kind == "agent_exception" and "the agent broke" in err.message

    _run(tmp_path / "d", "sync_agent")
    (t,) = _traces(tmp_path / "d")
    assert t.final.answer.startswith("sync answer to ")


@pytest.mark.parametrize("spec, says", [
    (f"{AGENTS}:nope", "has no attribute"),
    (f"{AGENTS}:not_callable", "is not callable"),
    (f"{AGENTS}:two_args", "exactly one argument"),
    ("no/such/file.py:agent", "does not exist"),
    ("no_such_module_xyz:agent", "no module"),
    ("justaname", "MODULE_OR_FILE:CALLABLE"),
])
def test_bad_callable_is_one_line_before_any_unit(spec: str, says: str, tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "--agent", spec, "-n", "1", "-w", str(tmp_path / "w")])
    assert res.exit_code != 0
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in res.output
    assert not (tmp_path / "w").exists()


async def test_host_refuses_foreign_hosts_unknown_episodes_and_borrowed_sessions() -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    suite = get_suite(None)
    task = next(t for t in suite.tasks if t.domain == "weather")
    recs = [EpisodeRecorder(WorkUnit(run_id="r", model="m", task_id=task.id, seed=s), task,
                            get_domain(task.domain).make_env(task.env_seed)) for s in (0, 1)]
    async with EpisodeHost() as host:
        for r in recs:
            host.add(r)
        async with httpx.AsyncClient() as http:
            url = host.mcp_url(recs[0].id)
            r = await http.post(url, json={}, headers={"Host": f"evil.example:{host.port}"})
            assert r.status_code == 421
            r = await http.post(url.replace(recs[0].id, "unknown"), json={})
            assert r.status_code == 404
            async with (streamable_http_client(url) as (read, write, sid),
                        ClientSession(read, write) as s):
                await s.initialize()
                assert [t.name for t in (await s.list_tools()).tools] == task.tools
                r = await http.post(host.mcp_url(recs[1].id), json={},
                                    headers={"mcp-session-id": sid() or ""})
                assert r.status_code == 404  # a session belongs to its episode
        trace = recs[0].finish("done")
        assert trace.status == "ok"
        assert host.url.startswith("http://127.0.0.1:")


def test_interceptor_evaluation_runs_an_external_agent(tmp_path: Path) -> None:
    res = runner.invoke(app, ["intercept", "evaluate", "--agent", f"{AGENTS}:probe", "-n", "2",
                              "-d", "weather", "--config", "tau_l1=1,tau_l2=2,l3=on",
                              "-w", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    traces = _traces(tmp_path)
    assert {t.arm for t in traces} == {"control", "treatment"}
    assert {t.model for t in traces} == {"_agents.probe"}
    assert all(t.status == "ok" for t in traces)
    # the interceptor's hooks ran at the MCP boundary, in the treatment arm only
    fired = {t.arm for t in traces for e in t.events if isinstance(e, InterceptEvent)}
    assert fired == {"treatment"}


def test_kill_9_then_rerun_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    ws = tmp_path / "w"
    cmd = [sys.executable, "-c", "from agentprop.cli import main; main()", "run", "--agent",
           f"{AGENTS}:slow", "-n", "4", "-d", "weather", "-c", "baseline", "-c", "p2:all",
           "--concurrency", "2", "-w", str(ws), "--json"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if (ws / "agentprop.sqlite").exists():
            with Workspace(ws, create=False) as w:
                if w.count_traces() >= 2:
                    break
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Workspace(ws, create=False) as w:
        before = w.count_traces()
    done = runner.invoke(app, cmd[3:])  # the rerun, in-process
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    with Workspace(ws, create=False) as w:
        ids = [r["id"] for r in w.trace_rows()]
    assert 0 < before < summary["units"]
    assert summary["skipped"] == before
    assert len(ids) == len(set(ids)) == summary["units"]


@pytest.mark.parametrize("args, says", [
    (["gateway", "--upstream", "ftp://x"], "expected an http(s) URL"),
    (["gateway", "--upstream", "http://127.0.0.1:9/v1", "--episodes", "nope"],
     "expected http://HOST:PORT"),
    (["serve-tools", "-w", "W", "--episode-timeout", "0"], "must be > 0"),
    (["serve-tools", "-w", "W", "-c", "p2:nonsense"], "nonsense"),
    (["run", "--agent", f"{AGENTS}:probe", "-m", "sim/balanced", "-w", "W"], "not both"),
    (["run", "-w", "W"], "give --model"),
])
def test_external_commands_bad_input(args: list[str], says: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AGENTPROP_MODEL", raising=False)
    res = runner.invoke(app, args)
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code != 0 and len(lines) == 1 and says in lines[0], res.output
    assert not (tmp_path / "W").exists()
