"""Half-written runs and double billing: seeds are checked before anything is written, a
run row never exists without its traces, and two identical runs never both call the
model."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agentprop.runner import MAX_SEED, RunAborted, RunError, RunLocked, plan_units, run_units_sync
from agentprop.runner._lock import run_lock
from agentprop.sim._server import ServerConfig, ServerThread
from agentprop.store import Workspace
from agentprop.suite import load_suite
from tests.hostile._helpers import cli_process, invoke, one_line_error


@pytest.mark.parametrize("seed", ["99999999999999999999", str(MAX_SEED + 1)])
def test_an_out_of_range_seed_writes_nothing(tmp_path: Path, seed: str) -> None:
    line = one_line_error(invoke("run", "-m", "sim/balanced", "-w", str(tmp_path / "w"),
                                 "-n", "2", "--seed", seed))
    assert "seed" in line and f"{MAX_SEED:,}" in line
    assert not (tmp_path / "w").exists()


def test_the_largest_seed_runs(tmp_path: Path) -> None:
    result = invoke("run", "-m", "sim/balanced", "-w", str(tmp_path / "w"), "-n", "2",
                    "--seed", str(MAX_SEED), "--json")
    assert result.exit_code == 0, result.output
    assert len(Workspace(tmp_path / "w").runs()) == 1


def test_the_library_checks_seeds_before_writing(tmp_path: Path) -> None:
    suite = load_suite()
    ws = Workspace(tmp_path / "w")
    units = plan_units("r", ["sim/balanced"], [suite.tasks[0]], ["baseline"])
    bad = [units[0].model_copy(update={"seed": 2**70})]
    with pytest.raises(RunError, match="invalid seed"):
        run_units_sync(bad, workspace=ws, suite=suite, progress=False)
    assert ws.runs() == [] and ws.count_traces() == 0


def test_a_run_that_fails_before_its_first_trace_leaves_no_run_row(tmp_path: Path) -> None:
    suite = load_suite()
    ws = Workspace(tmp_path / "w")
    units = plan_units("r", ["openai/m"], suite.tasks[:3], ["baseline"])
    with pytest.raises(RunAborted):
        run_units_sync(units, workspace=ws, suite=suite, progress=False,
                       model_options={"base_url": "http://127.0.0.1:9/v1", "max_attempts": 1})
    assert ws.runs() == [] and ws.count_traces() == 0


def test_a_run_held_by_another_process_is_refused(tmp_path: Path) -> None:
    suite = load_suite()
    ws = Workspace(tmp_path / "w")
    units = plan_units("r", ["sim/balanced"], suite.tasks[:2], ["baseline"])
    with run_lock(ws.path, ["r"]), pytest.raises(RunLocked, match="already running"):
        run_units_sync(units, workspace=ws, suite=suite, progress=False)
    assert ws.count_traces() == 0
    assert run_units_sync(units, workspace=ws, suite=suite, progress=False).completed == 2


def _lock_held(workspace: Path) -> bool:
    """True when some process holds a run lock in `workspace` (a non-blocking flock fails)."""
    import fcntl

    for path in (workspace / ".locks").glob("*.lock"):
        with path.open("a") as f:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    return False


def test_two_identical_runs_do_not_both_call_the_model(tmp_path: Path) -> None:
    # slow calls while the second run starts (its start-up takes seconds on a loaded
    # machine, and the first must still be running then); fast again once it was refused
    config = ServerConfig(port=0, latency_ms=1000)
    with ServerThread(config, suite=None) as srv:
        args = ["run", "-m", "openai/balanced", "--base-url", srv.base_url, "-w",
                str(tmp_path / "w"), "-n", "30", "--concurrency", "2", "--json"]
        first = cli_process(*args)
        deadline = time.monotonic() + 120
        # wait until the first one holds its lock and is calling the model
        while srv.stats["chat_completions"] == 0 or not _lock_held(tmp_path / "w"):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        second = cli_process(*args)
        _, err = second.communicate(timeout=120)
        if second.returncode != 2:  # say what the first one did, to tell a race from a bug
            out1, err1 = first.communicate(timeout=120)
            pytest.fail(f"second: rc {second.returncode} {err!r}; first: rc "
                        f"{first.returncode} {out1[-300:]!r} {err1[-500:]!r}")
        assert "already running" in err and "Traceback" not in err
        config.latency_ms = 0
        out, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
        summary = json.loads(out)
        # every call the server saw was the first run's (its episodes and its tool-calling
        # preflight): none was paid twice
        probed = sum(p["requests"] for p in summary["preflight"])
        assert srv.stats["chat_completions"] == summary["model_calls"] + probed
        assert summary["model_calls"] > 0 and probed > 0


def test_sigterm_stops_a_run_like_ctrl_c_and_it_resumes(tmp_path: Path) -> None:
    """`timeout`, a scheduler or `docker stop` send SIGTERM: the run stores every finished
    episode, prints how to resume (exit 130) without the API key given on the command
    line, and the resumed run pays for none twice."""
    import signal

    config = ServerConfig(port=0, latency_ms=300)
    with ServerThread(config, suite=None) as srv:
        args = ["run", "-m", "openai/balanced", "--base-url", srv.base_url, "-w",
                str(tmp_path / "w"), "-n", "20", "--concurrency", "2", "--json",
                "--preflight", "off",  # every request counted below is an episode's
                "-o", "api_key=sk-resume-secret-0123456789"]
        first = cli_process(*args)
        deadline = time.monotonic() + 120
        while srv.stats["chat_completions"] < 14:
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
        assert first.returncode == 130 and "Traceback" not in err, err
        assert "to resume the other" in err and "api_key=<redacted>" in err, err
        assert "sk-resume-secret" not in err
        with Workspace(tmp_path / "w", create=False) as ws:
            kept = ws.count_traces()
        assert kept >= 1
        config.latency_ms = 0
        second = cli_process(*args)
        out, err = second.communicate(timeout=120)
        assert second.returncode == 0, err
        summary = json.loads(out)
        assert summary["skipped"] == kept and summary["completed"] == summary["units"] - kept
