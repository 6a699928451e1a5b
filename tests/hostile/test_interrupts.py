"""Ctrl-C and SIGTERM stop every run within 2 s, in-process simulated models included (their
episodes never await, so the scheduler yields between units); the rerun runs only what is
missing, and a run interrupted after its last unit says there is nothing to resume."""

from __future__ import annotations

import json
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentprop.sim._server import ServerConfig, ServerThread
from tests.hostile._helpers import cli_process, invoke

# one seed of every P2 condition on the test split: thousands of in-process units, several
# seconds of work even on a fast machine
LONG_RUN = ["run", "-m", "sim/balanced", "-c", "p2:all", "--json"]


def _stored(ws: Path) -> int:
    db = ws / "agentprop.sqlite"
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM traces").fetchone()[0])
        finally:
            con.close()
    except sqlite3.OperationalError:  # the schema is being created
        return 0


def _interrupt(ws: Path, sig: signal.Signals) -> tuple[float, str, int]:
    """Start the long run, signal it once its first traces are stored: (seconds from the
    signal to the exit, stderr, return code)."""
    proc = cli_process(*LONG_RUN, "-w", str(ws))
    deadline = time.monotonic() + 180
    while _stored(ws) == 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run stored nothing"
        time.sleep(0.05)
    t0 = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return time.monotonic() - t0, err, proc.returncode


def test_ctrl_c_stops_an_in_process_run_at_once_and_it_resumes(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    took, err, rc = _interrupt(ws, signal.SIGINT)
    assert rc == 130 and "Traceback" not in err, err
    assert took < 2.0, f"Ctrl-C took {took:.1f} s to stop the run"
    kept = _stored(ws)
    assert f"interrupted: {kept} of " in err and "to resume the other" in err, err
    total = int(err.split(" of ", 1)[1].split()[0])
    assert kept < total
    out = cli_process(*LONG_RUN, "-w", str(ws)).communicate(timeout=600)[0]
    summary = json.loads(out)
    assert summary["skipped"] == kept and summary["completed"] == total - kept
    assert _stored(ws) == total  # nothing twice


def test_sigterm_stops_an_in_process_run_at_once(tmp_path: Path) -> None:
    took, err, rc = _interrupt(tmp_path / "w", signal.SIGTERM)
    assert rc == 130 and "Traceback" not in err, err
    assert took < 2.0, f"SIGTERM took {took:.1f} s to stop the run"
    assert "to resume the other" in err


def test_an_interrupt_after_the_last_unit_says_nothing_to_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agentprop.runner as runner

    real = runner.run_units_sync

    def then_ctrl_c(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_units_sync", then_ctrl_c)
    result = invoke("run", "-m", "sim/balanced", "-n", "3", "-w", str(tmp_path / "w"))
    assert result.exit_code == 130
    assert "nothing to resume" in result.stderr and "to resume," not in result.stderr


SECRET = "sk-live-0123456789abcdef"


def test_the_resume_command_never_shows_a_secret_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agentprop.runner as runner

    def ctrl_c(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_units_sync", ctrl_c)
    with ServerThread(ServerConfig(port=0), suite=None) as srv:
        args = ["run", "-m", "openai/balanced", "--base-url", srv.base_url, "-n", "2",
                "-w", str(tmp_path / "w"), "-o", f"api_key={SECRET}",
                f"--model-option=api_key={SECRET}"]
        monkeypatch.setattr(sys, "argv", ["agentprop", *args])  # what the command line was
        result = invoke(*args)
    assert result.exit_code == 130
    assert SECRET not in result.stderr + result.output
    assert "-o 'api_key=<redacted>'" in result.stderr
    assert "--model-option=api_key=<redacted>" in result.stderr
    assert "put your secret back" in result.stderr


@pytest.mark.parametrize("args,shown", [
    (["-o", "api_key=S"], ["-o", "api_key=<redacted>"]),
    (["-oapi_key=S"], ["-oapi_key=<redacted>"]),
    (["--api-key", "S"], ["--api-key", "<redacted>"]),
    (["--token=S"], ["--token=<redacted>"]),
    (["--model-option=auth_token=S"], ["--model-option=auth_token=<redacted>"]),
    (["--base-url", "http://u:S@h/v1"], ["--base-url", "http://***@h/v1"]),
    (["-o", "max_attempts=3", "-m", "sim/x"], ["-o", "max_attempts=3", "-m", "sim/x"]),
])
def test_secret_arguments_are_redacted(args: list[str], shown: list[str]) -> None:
    from agentprop.runner import redact_argv

    assert redact_argv(args, secrets=[]) == shown


def _verdicts(ws: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{ws / 'agentprop.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def test_ctrl_c_stops_an_in_process_judge_at_once(tmp_path: Path) -> None:
    """The facts judge never awaits either: Ctrl-C reaches it between traces."""
    ws = tmp_path / "w"
    built = cli_process(*LONG_RUN, "-w", str(ws))
    assert built.communicate(timeout=900)[0]
    proc = cli_process("judge", "-w", str(ws), "-j", "facts", "--json")
    deadline = time.monotonic() + 180
    while _verdicts(ws) == 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the judge stored nothing"
        time.sleep(0.05)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    took = time.monotonic() - t0
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert took < 2.0, f"Ctrl-C took {took:.1f} s to stop the judge"
    assert 0 < _verdicts(ws) < _stored(ws)
