"""`agentprop run` as a real subprocess: SIGKILL/SIGINT mid-run, resume, bad input."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_fakes import write_suite
from typer.testing import CliRunner

from agentprop.cli import app

HERE = Path(__file__).parent
LAUNCH = "import runner_fakes; from agentprop.cli import main; main()"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTPROP_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-c", LAUNCH, *args]


def _count(ws: Path) -> int:
    db = ws / "agentprop.sqlite"
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM traces").fetchone()[0])
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def _start_and_wait(args: list[str], ws: Path, at_least: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(_cmd(*args), env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while _count(ws) < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "run made no progress"
        time.sleep(0.05)
    return proc


@pytest.fixture
def run_args(tmp_path: Path) -> list[str]:
    suite = write_suite(tmp_path / "suite.jsonl", n=24)
    return ["run", "-m", "fake/slow", "--suite", str(suite), "-w", str(tmp_path / "ws"),
            "--seed", "0", "--seed", "1", "--concurrency", "4", "-o", "delay_s=0.1", "--json"]


def _finish(args: list[str]) -> dict[str, object]:
    done = subprocess.run(_cmd(*args), env=_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert isinstance(out, dict)
    return out


def _check_complete(ws: Path) -> None:
    con = sqlite3.connect(ws / "agentprop.sqlite")
    rows = con.execute("SELECT task_id, seed, data FROM traces").fetchall()
    con.close()
    assert len(rows) == 48
    assert len({(t, s) for t, s, _ in rows}) == 48  # one trace per unit, no duplicates
    for _, _, data in rows:  # every stored trace is whole
        assert json.loads(data)["events"][-1]["type"] == "final"


def test_resume_after_sigkill(tmp_path: Path, run_args: list[str]) -> None:
    ws = tmp_path / "ws"
    proc = _start_and_wait(run_args, ws, at_least=4)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    stored = _count(ws)
    assert 4 <= stored < 48
    out = _finish(run_args)
    assert out["units"] == 48 and out["skipped"] == stored
    assert out["completed"] == 48 - stored and out["errors"] == 0
    assert {"units", "completed", "skipped", "errors", "model_calls", "wall_s"} <= set(out)
    _check_complete(ws)
    again = _finish(run_args)
    assert (again["skipped"], again["completed"], again["model_calls"]) == (48, 0, 0)


def test_ctrl_c_flushes_and_exits_130(tmp_path: Path, run_args: list[str]) -> None:
    ws = tmp_path / "ws"
    proc = _start_and_wait(run_args, ws, at_least=1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    stored = _count(ws)
    assert stored >= 1
    out = _finish(run_args)
    assert out["skipped"] == stored
    _check_complete(ws)


def _one_line_error(args: list[str], **env: str) -> str:
    result = CliRunner().invoke(app, args, env={"AGENTPROP_WORKSPACE": None, **env})
    assert result.exit_code not in (0, None)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    suite = str(write_suite(tmp_path / "suite.jsonl", n=4))
    ws = tmp_path / "ws"
    base = ["run", "--suite", suite, "-w", str(ws)]
    assert "unknown model provider 'nope'" in _one_line_error([*base, "-m", "nope/x"])
    assert "profile" in _one_line_error([*base, "-m", "sim/no-such-profile"])
    assert not ws.exists()  # nothing written for a bad model id
    (tmp_path / "afile").write_text("x")
    line = _one_line_error(["run", "--suite", suite, "-w", str(tmp_path / "afile"),
                            "-m", "fake/a"])
    assert "not a folder" in line
    assert "domain" in _one_line_error([*base, "-m", "fake/a", "--domain", "nowhere"])
    assert "concurrency" in _one_line_error([*base, "-m", "fake/a", "--concurrency", "0"])
    assert "bogus" in _one_line_error([*base, "-m", "sim/balanced", "-o", "bogus=1"])
    # Nothing listens at the base URL: one line before any episode runs.
    line = _one_line_error([*base, "-m", "openai/gpt-4o-mini", "--base-url",
                            "http://127.0.0.1:9/v1"], OPENAI_API_KEY="sk-dummy-offline-key")
    assert "cannot connect to http://127.0.0.1:9/v1" in line
    assert not ws.exists()
    # Every first episode fails (bad key, dead server): stop, record nothing, exit 1.
    result = CliRunner().invoke(app, [*base, "-m", "fake/down", "-o", "fail=connection"])
    assert result.exit_code == 1 and "fake/down" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert _count(ws) == 0
    # A workspace from another schema version.
    con = sqlite3.connect(ws / "agentprop.sqlite")
    con.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    con.commit()
    con.close()
    assert "schema version" in _one_line_error([*base, "-m", "fake/a"])


def test_executed_only_keeps_the_agents_own_arguments_in_history(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from agentprop.cli import app
    from agentprop.core import InjectionEvent
    from agentprop.store import Workspace

    ws = tmp_path / "w"
    args = ["run", "-m", "sim/propagator", "-w", str(ws), "-c", "p2:semantic_wrong",
            "--domain", "weather", "-n", "3", "--json"]
    res = CliRunner().invoke(app, [*args, "--executed-only"])
    assert res.exit_code == 0, res.output
    with Workspace(ws) as w:
        traces = list(w.iter_traces())
    applied = [(t, e) for t in traces for e in t.events
               if isinstance(e, InjectionEvent) and e.status == "applied"]
    assert applied and all(not e.in_history for _, e in applied)
    for t, e in applied:  # the agent's history shows the value it proposed, not the injected one
        calls = [c for m in t.messages for c in m.tool_calls if c.id == e.call_id]
        assert calls and calls[0].arguments[e.param] == e.original
    again = CliRunner().invoke(app, args)  # the default is another run: nothing is skipped
    assert again.exit_code == 0 and '"skipped": 0' in again.output
