"""An interrupted `judge` keeps the verdicts it paid for: they are written as they finish.
Ctrl-C and SIGTERM (timeout, a scheduler, docker stop) keep every finished one; kill -9
loses at most the calls in flight (and the last 0.2 s flush window)."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentprop.sim._server import ServerConfig, ServerThread
from tests.hostile._helpers import cli_process, invoke

JUDGE = "llm:openai/balanced"
CONCURRENCY = 2
LATENCY_MS = 200


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("judge") / "w"
    result = invoke("run", "-m", "sim/balanced", "-n", "60", "-w", str(ws), "--json")
    assert result.exit_code == 0, result.output
    return ws


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with ServerThread(ServerConfig(port=0, latency_ms=LATENCY_MS), suite=None) as srv:
        yield srv


def _verdicts(ws: Path) -> int:
    con = sqlite3.connect(f"file:{ws / 'agentprop.sqlite'}?mode=ro", uri=True, timeout=5)
    try:
        return int(con.execute("SELECT COUNT(*) FROM verdicts WHERE judge=?",
                               (JUDGE,)).fetchone()[0])
    finally:
        con.close()


def _start(ws: Path, srv: ServerThread, at_least_calls: int):  # type: ignore[no-untyped-def]
    proc = cli_process("judge", "-w", str(ws), "-j", JUDGE, "--concurrency", str(CONCURRENCY),
                       "--json", env={"OPENAI_BASE_URL": srv.base_url,
                                      "OPENAI_API_KEY": "sk-test-not-a-key"})
    deadline = time.monotonic() + 60
    while srv.stats["ok"] < at_least_calls:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "judge made no calls"
        time.sleep(0.02)
    return proc


def test_ctrl_c_keeps_every_finished_verdict(traces: Path, tmp_path: Path,
                                             server: ServerThread) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    proc = _start(ws, server, at_least_calls=8)
    paid = server.stats["ok"]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in err, err
    # every call the server had answered is stored, but those still on their way back
    assert _verdicts(ws) >= paid - CONCURRENCY >= 6


def test_sigterm_keeps_every_finished_verdict_like_ctrl_c(traces: Path, tmp_path: Path,
                                                          server: ServerThread) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    proc = _start(ws, server, at_least_calls=8)
    paid = server.stats["ok"]
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert _verdicts(ws) >= paid - CONCURRENCY >= 6


def test_kill_9_loses_at_most_the_calls_in_flight(traces: Path, tmp_path: Path,
                                                  server: ServerThread) -> None:
    ws = Path(shutil.copytree(traces, tmp_path / "w"))
    proc = _start(ws, server, at_least_calls=12)
    paid = server.stats["ok"]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    # in flight: CONCURRENCY calls; unflushed: what finished in the last 0.2 s window
    lost_at_most = CONCURRENCY + CONCURRENCY * (200 // LATENCY_MS + 1)
    assert _verdicts(ws) >= paid - lost_at_most >= 6
