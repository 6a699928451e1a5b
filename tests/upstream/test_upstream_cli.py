"""The your-tools commands from the CLI: the issue's one command (an example agent over
MCP, a real third-party server upstream, a file of questions, a sim LLM behind serve-sim)
runs, judges and reports offline; `proxy-tools` serves the upstream to a plain MCP client;
bad input is one line and a non-zero exit, with a suggestion where a typo is likely."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import InjectionEvent, ToolResultEvent
from agentprop.inject import OUTPUT_KINDS
from agentprop.sim import ServerConfig, ServerThread
from agentprop.store import Workspace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
runner = CliRunner()


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    with ServerThread(ServerConfig(port=0)) as srv:
        yield srv.base_url


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("repo")

    def git(*a: str) -> None:
        subprocess.run(["git", *a], cwd=path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "Tester")
    for i in range(4):
        (path / "notes.txt").write_text(f"line {i}\n")
        git("add", "notes.txt")
        git("commit", "-q", "-m", f"update notes to version {i}")
    return path


def _tasks(path: Path, repo: Path) -> Path:
    rows = [
        {"query": f"What is the message of the most recent commit in {repo}?",
         "reference": "update notes to version 3"},
        {"query": f"Show the last 3 commits of the repository {repo}."},
        {"query": f"What is the git status of {repo}?", "tools": ["git_status"]},
        {"query": f"Which branches does the repository {repo} have?"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _git_upstream(repo: Path) -> str:
    return f"{sys.executable} -m mcp_server_git --repository {repo}"


def test_the_one_command_runs_judges_and_reports(sim_url: str, repo: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", sim_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-none")
    ws = tmp_path / "W"
    args = ["run", "--agent", f"{EXAMPLES / 'mcp_client.py'}:agent", "--upstream",
            _git_upstream(repo), "--tasks", str(_tasks(tmp_path / "t.jsonl", repo)),
            "-c", "baseline", "-c", "p2:semantic_wrong", "-c", "out:all", "-w", str(ws),
            "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    units = 4 * (2 + len(OUTPUT_KINDS))  # baseline, semantic_wrong, every out: kind
    assert summary["units"] == summary["completed"] == units and summary["errors"] == 0
    with Workspace(ws, create=False) as w:
        traces = [w.get_trace(i) for i in w.trace_ids()]
        assert len(w.stored_tasks()) == 4  # judge and report find the questions here
        manifest = w.runs()[0].config
    assert manifest["upstream"].endswith(f"--repository {repo}")
    results = [e for t in traces for e in t.events if isinstance(e, ToolResultEvent)]
    # the real server's answer (the status question may only use git_status)
    assert any("working tree clean" in json.dumps(r.observation) for r in results)
    applied = [e for t in traces for e in t.events
               if isinstance(e, InjectionEvent) and e.status == "applied"]
    assert applied, "no injection was applied at the forwarded boundary"
    # git's tools are annotated read-only or not; a corrupted read-only call has its
    # counterfactual made for real, and none is ever withheld from a read-only tool
    for r in results:
        if r.counterfactual_withheld is not None:
            assert r.name in {"git_commit", "git_add", "git_reset", "git_checkout",
                              "git_create_branch"}
    res = runner.invoke(app, ["judge", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    with Workspace(ws, create=False) as w:  # no graded facts: the agreement judge decides
        assert w.primary_judge() == "agree"
        verdicts = [v for v in w.verdicts() if v.judge == "agree"]
    assert len(verdicts) == len(traces)
    assert any(v.correct is not None for v in verdicts)
    res = runner.invoke(app, ["report", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    assert (ws / "report" / "index.html").exists()


async def test_proxy_tools_serves_the_upstream_to_an_mcp_client(repo: Path,
                                                                tmp_path: Path) -> None:
    ws = tmp_path / "W"
    tasks = _tasks(tmp_path / "t.jsonl", repo)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from agentprop.cli import main; main()", "proxy-tools", "--stdio",
              "--upstream", _git_upstream(repo), "--tasks", str(tasks), "-w", str(ws),
              "-c", "p2:semantic_wrong"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        init = await s.initialize()
        assert "most recent commit" in (init.instructions or "")
        names = [t.name for t in (await s.list_tools()).tools]
        assert "git_log" in names and names[-1] == "submit_answer"
        out = await s.call_tool("git_log", {"repo_path": str(repo), "max_count": 1})
        text = "".join(getattr(c, "text", "") for c in out.content)
        assert "update notes" in text  # forwarded to the real server
        await s.call_tool("submit_answer", {"answer": "update notes to version 3"})
    with Workspace(ws, create=False) as w:
        (trace,) = [w.get_trace(i) for i in w.trace_ids()]
    assert trace.status == "ok" and trace.final.answer == "update notes to version 3"
    assert any(isinstance(e, InjectionEvent) for e in trace.events)


@pytest.mark.parametrize(("args", "expected"), [
    (["--tasks", "t.jsonl"], "add --upstream"),
    (["--safe-tool", "x"], "give the upstream too"),
    (["--upstream", "no-such-mcp-server-command", "--tasks", "t.jsonl"],
     "cannot start the upstream"),
    (["--upstream", "UPSTREAM", "--tasks", "missing.jsonl"], "no tasks file"),
    (["--upstream", "UPSTREAM", "--tasks", "t.jsonl", "--safe-tool", "git_lgo"],
     "did you mean 'git_log'"),
    (["--upstream", "UPSTREAM", "--tasks", "bad.jsonl"], "did you mean 'git_log'"),
    (["--upstream", "UPSTREAM"], "needs --tasks"),
    (["--upstream", "UPSTREAM", "--upstream-url", "http://127.0.0.1:9/mcp", "--tasks",
      "t.jsonl"], "one of the two"),
])
def test_bad_input_is_one_line(args: list[str], expected: str, repo: Path,
                               tmp_path: Path) -> None:
    _tasks(tmp_path / "t.jsonl", repo)
    (tmp_path / "bad.jsonl").write_text('{"query": "log?", "tools": ["git_lgo"]}\n')
    args = [a.replace("UPSTREAM", _git_upstream(repo)) for a in args]
    args = [str(tmp_path / a) if a.endswith(".jsonl") else a for a in args]
    res = runner.invoke(app, ["run", "-m", "sim/balanced", *args, "-w", str(tmp_path / "w")])
    assert res.exit_code == 2, res.output
    assert expected in res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "w").exists()  # nothing written
