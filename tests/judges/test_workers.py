"""`agentprop judge --workers N`: the in-process judges in worker processes give the serial
path's verdicts, resume after a kill -9 without duplicates, stop promptly on SIGTERM
keeping what is stored, and report a dead worker. Real processes (spawned workers, the
CLI as a child process), no network."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.store import Workspace

REPLICAS = 25  # 60 sim traces × 25: long enough (seconds) to be stopped mid-way


def _cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", "from agentprop.cli import main; main()",
                             *args], text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _wait_for_a_verdict(proc: subprocess.Popen[str], ws: Path) -> None:
    """Until the judge run has stored a verdict (it must not have exited first)."""
    deadline = time.monotonic() + 120
    while not _rows(ws):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no verdict stored"
        time.sleep(0.05)


def _rows(ws: Path) -> dict[tuple[str, str], tuple[int | None, str]]:
    """(trace, judge) → (correct, data without its time stamp)."""
    con = sqlite3.connect(f"file:{ws / 'agentprop.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        return {(t, j): (c, d) for t, j, c, d in con.execute(
            "SELECT trace_id, judge, correct, json_remove(data, '$.created_at') "
            "FROM verdicts")}
    finally:
        con.close()


def _children(pid: int) -> list[int]:
    """The judge workers of `pid` (not multiprocessing's resource tracker)."""
    out: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            out.extend(int(c) for c in f.read().split())
    return [c for c in out if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _gone(pids: list[int], within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and "zombie" not in _state(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0]
    except (OSError, IndexError):
        return "zombie"


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real sim run, its traces replicated with new ids, plus a trace that did not end
    ok and one whose task is not in the suite (both unscored, on either path)."""
    ws = tmp_path_factory.mktemp("workers") / "w"
    result = CliRunner().invoke(app, ["run", "-m", "sim/balanced", "-c", "baseline", "-c",
                                      "p2:all", "-n", "12", "-w", str(ws), "--json"])
    assert result.exit_code == 0, result.output
    with Workspace(ws) as w:
        seed = list(w.iter_traces())
        for k in range(1, REPLICAS):
            w.put_traces([t.model_copy(update={"id": f"{t.id}.{k}"}) for t in seed])
        w.put_traces([seed[0].model_copy(update={"id": "odd-status", "status": "error"}),
                      seed[1].model_copy(update={"id": "odd-task", "task_id": "no_such"})])
        assert w.count_traces() == len(seed) * REPLICAS + 2
    return ws


@pytest.fixture(scope="module")
def serial(traces: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = Path(shutil.copytree(traces, tmp_path_factory.mktemp("serial") / "w"))
    result = CliRunner().invoke(app, ["judge", "-w", str(ws), "-j", "facts", "-j",
                                      "heuristic", "--json"])
    assert result.exit_code == 0, result.output
    return ws


def test_workers_give_the_serial_verdicts(traces: Path, serial: Path, tmp_path: Path) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    proc = _cli("judge", "-w", str(ws), "-j", "facts", "-j", "heuristic", "--workers", "2",
                "--json")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    summary = json.loads(out)
    want = _rows(serial)
    assert _rows(ws) == want
    n = len({t for t, _ in want})
    assert summary["judges"]["facts"]["written"] == n
    assert want[("odd-status", "facts")][0] is None
    assert want[("odd-task", "facts")][0] is None


def test_kill_9_then_rerun_resumes_without_duplicates(traces: Path, serial: Path,
                                                      tmp_path: Path) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    total = len(_rows(serial)) // 2
    proc = _cli("judge", "-w", str(ws), "-j", "facts", "--workers", "2", "--json")
    _wait_for_a_verdict(proc, ws)
    workers = _children(proc.pid)
    assert len(workers) == 2
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)  # EOF: the workers, holding its pipes, are gone too
    assert _gone(workers), "a judge worker outlived its killed driver"
    kept = len(_rows(ws))
    assert 0 < kept < total
    again = _cli("judge", "-w", str(ws), "-j", "facts", "--workers", "2", "--json")
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert json.loads(out)["judges"]["facts"]["written"] == total - kept  # only the rest
    facts = {k: v for k, v in _rows(serial).items() if k[1] == "facts"}
    assert _rows(ws) == facts


def test_sigterm_stops_promptly_and_keeps_what_is_stored(traces: Path, tmp_path: Path) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    proc = _cli("judge", "-w", str(ws), "-j", "facts", "--workers", "2")
    _wait_for_a_verdict(proc, ws)
    workers = _children(proc.pid)
    stored = len(_rows(ws))
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 10
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert _gone(workers)
    assert len(_rows(ws)) >= stored


def test_a_dead_worker_stops_the_pass_and_a_rerun_finishes(traces: Path, serial: Path,
                                                          tmp_path: Path) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    proc = _cli("judge", "-w", str(ws), "-j", "facts", "--workers", "2")
    _wait_for_a_verdict(proc, ws)
    os.kill(_children(proc.pid)[-1], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert "judge worker" in err and "died" in err
    again = _cli("judge", "-w", str(ws), "-j", "facts", "--workers", "2")
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert _rows(ws) == {k: v for k, v in _rows(serial).items() if k[1] == "facts"}
