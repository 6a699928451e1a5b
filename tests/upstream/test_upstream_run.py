"""Your own MCP server behind agentprop (`run --upstream`): real third-party servers from
PyPI (mcp-server-git on a temporary repository, mcp-server-sqlite on a temporary
database), driven by a scripted agent through the native loop, with injections applied
at the forwarded boundary, counterfactuals only for read-only tools, and every call of
a side-effecting tool made exactly once (counted at the upstream: rows and commits)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agentprop.analysis import stage_table
from agentprop.core import (
    ErrorEvent,
    InjectionEvent,
    Message,
    ModelOutput,
    ToolCall,
    ToolResultEvent,
    ToolSpec,
    WorkUnit,
)
from agentprop.external import SIDE_EFFECTS, Upstream, discover
from agentprop.models import GenerateConfig
from agentprop.runner import run_units
from agentprop.store import Workspace
from agentprop.suite import load_user_tasks, user_suite

pytestmark = pytest.mark.asyncio


def _git_repo(path: Path, commits: int) -> Path:
    path.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=path, check=True,  # noqa: E731
                                    capture_output=True)
    run("init", "-q")
    run("config", "user.email", "t@example.com")
    run("config", "user.name", "Tester")
    for i in range(commits):
        (path / "notes.txt").write_text(f"line {i}\n" * (i + 1))
        run("add", "notes.txt")
        run("commit", "-q", "-m", f"commit number {i}")
    return path


def _commits(repo: Path) -> int:
    out = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, check=True,
                         capture_output=True, text=True)
    return int(out.stdout)


def _tasks_file(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


class OneCallAgent:
    """Per episode: the task's call first, then its answer once a tool result is in."""

    id = "scripted"
    simulated = True

    def __init__(self, plan: dict[str, tuple[ToolCall, str]]) -> None:
        self.plan = plan  # first words of the query → (call, answer)

    async def generate(self, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> ModelOutput:
        query = next(m.content or "" for m in messages if m.role == "user")
        call, answer = next(v for k, v in self.plan.items() if query.startswith(k))
        if any(m.role == "tool" for m in messages):
            return ModelOutput(text=answer)
        return ModelOutput(tool_calls=[call])


async def _run(tmp_path: Path, upstream: Upstream, tasks_file: Path, conditions: list[str],
               plan: dict[str, tuple[ToolCall, str]], name: str = "w"
               ) -> tuple[Workspace, list]:
    domain = await discover(upstream)
    tasks = load_user_tasks(tasks_file, domain=domain.name,
                            tools=[t.name for t in domain.tools])
    suite = user_suite(tasks)
    units = [WorkUnit(run_id="r", model="scripted", task_id=t.id, condition=c, seed=0)
             for t in tasks for c in conditions]
    ws = Workspace(tmp_path / name)
    await run_units(units, workspace=ws, suite=suite, models={"scripted": OneCallAgent(plan)},
                    progress=False, concurrency=1, domains={domain.name: domain})
    traces = [ws.get_trace(i) for i in sorted(ws.trace_ids())]
    return ws, traces


def _by_condition(traces: list) -> dict:
    return {t.condition: t for t in traces}


async def test_git_read_only_tools_get_a_counterfactual_and_s2(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "repo", commits=6)
    up = Upstream.parse(f"{sys.executable} -m mcp_server_git --repository {repo}", None)
    tasks = _tasks_file(tmp_path / "t.jsonl", [
        f'{{"query": "What are the last 2 commits of {repo}?", "tools": ["git_log"]}}'])
    call = ToolCall(id="c1", name="git_log", arguments={"repo_path": str(repo),
                                                        "max_count": 2})
    ws, traces = await _run(tmp_path, up, tasks, ["baseline", "p2:semantic_wrong",
                                                  "out:wrong_value"],
                            {"What": (call, "The last two commits are 5 and 4.")})
    by = _by_condition(traces)
    assert all(t.status == "ok" for t in traces), [t.events for t in traces]
    clean = next(e for e in by["baseline"].events if isinstance(e, ToolResultEvent))
    assert "commit number 5" in str(clean.observation)  # the upstream's real answer
    assert "commit number 3" not in str(clean.observation)

    injected = by["p2:semantic_wrong"]
    inj = next(e for e in injected.events if isinstance(e, InjectionEvent))
    assert inj.status == "applied" and inj.param == "max_count"  # repo_path: no source
    res = next(e for e in injected.events if isinstance(e, ToolResultEvent))
    assert res.arguments["max_count"] != 2 and res.counterfactual_withheld is None
    assert res.counterfactual == clean.observation  # the clean call, made for real
    stages = stage_table([injected, by["out:wrong_value"], by["baseline"]])
    row = stages.set_index("condition").loc["p2:semantic_wrong"]
    assert bool(row["S1"]) and bool(row["S2"]) and row["s2_withheld"] is None
    ws.close()


async def test_sqlite_side_effects_happen_once_and_s2_is_undefined(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT)")
    up = Upstream.parse(f"mcp-server-sqlite --db-path {db}", None,
                        safe_tools=["read_query"])
    tasks = _tasks_file(tmp_path / "t.jsonl", [
        '{"query": "Record an order for one lamp.", "tools": ["write_query"]}'])
    insert = ToolCall(id="c1", name="write_query",
                      arguments={"query": "INSERT INTO orders (item) VALUES ('lamp')"})
    conditions = ["baseline", "p2:type_mismatch", "fault:timeout", "out:wrong_value"]
    _, traces = await _run(tmp_path, up, tasks, conditions, {"Record": (insert, "Done.")})
    by = _by_condition(traces)
    assert set(by) == set(conditions)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0]
    # baseline and out:wrong_value insert once each; the corrupted call fails at the
    # upstream and the timed-out call never reaches it: no clean call is ever repeated
    assert rows == 2
    stages = stage_table(traces).set_index("condition")
    for cond in ("p2:type_mismatch", "fault:timeout"):
        res = next(e for e in by[cond].events if isinstance(e, ToolResultEvent))
        assert res.counterfactual is None and res.counterfactual_withheld == SIDE_EFFECTS
        assert pd_na(stages.loc[cond, "S2"]) and stages.loc[cond, "s2_withheld"] == SIDE_EFFECTS
    # the server answers in a Python literal as text ("[{'affected_rows': 1}]"): its
    # number is corrupted in place, and the true result is the counterfactual, made
    # without a second call
    inj = next(e for e in by["out:wrong_value"].events if isinstance(e, InjectionEvent))
    assert inj.status == "applied" and inj.original == 1
    out = next(e for e in by["out:wrong_value"].events if isinstance(e, ToolResultEvent))
    assert out.counterfactual == {"text": "[{'affected_rows': 1}]"}
    assert out.observation != out.counterfactual and out.counterfactual_withheld is None


async def test_a_safe_tool_gets_its_counterfactual(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT)")
        conn.executemany("INSERT INTO orders (item) VALUES (?)", [("lamp",), ("desk",)])
    up = Upstream.parse(f"mcp-server-sqlite --db-path {db}", None,
                        safe_tools=["read_query"])
    tasks = _tasks_file(tmp_path / "t.jsonl", [
        '{"query": "How many orders are there?", "tools": ["read_query"]}'])
    read = ToolCall(id="c1", name="read_query",
                    arguments={"query": "SELECT COUNT(*) AS n FROM orders"})
    _, traces = await _run(tmp_path, up, tasks, ["p2:type_mismatch"],
                           {"How": (read, "Two.")})
    res = next(e for e in traces[0].events if isinstance(e, ToolResultEvent))
    assert res.counterfactual_withheld is None and res.counterfactual is not None
    assert "2" in str(res.counterfactual)


async def test_a_mutating_git_tool_is_called_once_per_agent_call(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "repo", commits=1)
    (repo / "new.txt").write_text("x\n")
    subprocess.run(["git", "add", "new.txt"], cwd=repo, check=True)
    up = Upstream.parse(f"{sys.executable} -m mcp_server_git --repository {repo}", None)
    tasks = _tasks_file(tmp_path / "t.jsonl", [
        f'{{"query": "Commit the staged file in {repo} with the message add new.", '
        '"tools": ["git_commit"]}'])
    commit = ToolCall(id="c1", name="git_commit",
                      arguments={"repo_path": str(repo), "message": "add new"})
    _, traces = await _run(tmp_path, up, tasks, ["baseline", "out:wrong_value",
                                                  "fault:timeout"],
                           {"Commit": (commit, "Committed.")})
    # one commit per call that reached the server (the server commits even with nothing
    # staged): baseline and out:* once each; the timed-out call never reached it, and no
    # counterfactual call was made for any of them
    assert _commits(repo) == 1 + 2
    assert all(t.status == "ok" for t in traces)
    fault = next(t for t in traces if t.condition == "fault:timeout")
    res = next(e for e in fault.events if isinstance(e, ToolResultEvent))
    assert res.counterfactual_withheld == SIDE_EFFECTS


async def test_an_upstream_that_dies_is_an_error_trace_and_the_run_goes_on(
        tmp_path: Path) -> None:
    server = tmp_path / "fragile.py"
    server.write_text(
        "import os\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('fragile')\n"
        "@mcp.tool()\n"
        "def crash(reason: str) -> str:\n"
        "    '''Ends the server.'''\n"
        "    os._exit(3)\n"
        "@mcp.tool()\n"
        "def echo(text: str) -> str:\n"
        "    '''Echoes the text.'''\n"
        "    return text\n"
        "mcp.run()\n")
    up = Upstream.parse(f"{sys.executable} {server}", None, call_timeout_s=20)
    tasks = _tasks_file(tmp_path / "t.jsonl", [
        '{"id": "a", "query": "crash please", "tools": ["crash"]}',
        '{"id": "b", "query": "echo hello", "tools": ["echo"]}'])
    plan = {"crash": (ToolCall(id="c1", name="crash", arguments={"reason": "test"}),
                      "Crashed."),
            "echo": (ToolCall(id="c2", name="echo", arguments={"text": "hello"}), "hello")}
    _, traces = await _run(tmp_path, up, tasks, ["baseline"], plan)
    by = {t.task_id: t for t in traces}
    assert by["a"].status == "error"
    err = next(e for e in by["a"].events if isinstance(e, ErrorEvent))
    assert err.kind == "upstream" and "crash" in err.message
    assert by["b"].status == "ok"  # the next episode got a restarted upstream
    res = next(e for e in by["b"].events if isinstance(e, ToolResultEvent))
    assert "hello" in str(res.observation)


def pd_na(value: object) -> bool:
    import pandas as pd

    return value is pd.NA or (isinstance(value, float) and value != value) or value is None


async def test_an_upstream_that_hangs_is_an_error_trace_after_the_timeout(
        tmp_path: Path) -> None:
    server = tmp_path / "slow.py"
    server.write_text(
        "import time\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('slow')\n"
        "@mcp.tool()\n"
        "def wait(seconds: int) -> str:\n"
        "    '''Waits, then answers.'''\n"
        "    time.sleep(seconds)\n"
        "    return 'done'\n"
        "mcp.run()\n")
    up = Upstream.parse(f"{sys.executable} {server}", None, call_timeout_s=2)
    tasks = _tasks_file(tmp_path / "t.jsonl", [
        '{"id": "slow", "query": "wait long", "tools": ["wait"]}',
        '{"id": "quick", "query": "wait briefly", "tools": ["wait"]}'])
    plan = {"wait long": (ToolCall(id="c1", name="wait", arguments={"seconds": 600}),
                          "Waited."),
            "wait briefly": (ToolCall(id="c2", name="wait", arguments={"seconds": 0}),
                             "done")}
    _, traces = await _run(tmp_path, up, tasks, ["baseline"], plan)
    by = {t.task_id: t for t in traces}
    assert by["slow"].status == "error"
    err = next(e for e in by["slow"].events if isinstance(e, ErrorEvent))
    assert err.kind == "upstream" and "no answer to wait within 2 s" in err.message
    assert by["quick"].status == "ok"  # a fresh upstream answered the next episode
