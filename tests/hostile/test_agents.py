"""An external agent cannot stall or end the run: a blocking sync agent, an async agent
that blocks its event loop and one that raises a BaseException each become their
episode's error trace, the timeout fires from outside, the process exits, and Ctrl-C and
SIGTERM work. The agent runs off the runner's event loop (agentprop/external/_executor.py).
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from agentprop.core import ErrorEvent
from agentprop.store import Workspace
from tests.hostile._helpers import cli_process

AGENTS = str(Path(__file__).with_name("_agents.py"))


def _run(ws: Path, agent: str, *args: str, timeout: float = 120) -> tuple[int, dict, str, float]:
    """`run --agent` as a process: (return code, its --json summary, stderr, seconds)."""
    t0 = time.monotonic()
    proc = cli_process("run", "--agent", f"{AGENTS}:{agent}", "-w", str(ws), "-n", "1",
                       "-d", "weather", "--json", *args)
    out, err = proc.communicate(timeout=timeout)
    took = time.monotonic() - t0
    return proc.returncode, (json.loads(out) if out.strip() else {}), err, took


def _errors(ws: Path) -> dict[int, list[str]]:
    """Each trace's error kinds and messages, by seed."""
    with Workspace(ws, create=False) as w:
        traces = [w.get_trace(i) for i in w.trace_ids()]
    return {t.seed: [f"{e.kind}: {e.message}" for e in t.events if isinstance(e, ErrorEvent)]
            for t in traces}


SEEDS = ["--seed", "0", "--seed", "1", "--seed", "2"]


@pytest.mark.parametrize("agent", ["sleeps", "spins", "blocks_loop"])
def test_a_blocking_agent_times_out_and_the_run_exits(tmp_path: Path, agent: str) -> None:
    rc, summary, err, took = _run(tmp_path / "w", agent, *SEEDS, "--episode-timeout", "2",
                                  "--concurrency", "1")
    assert rc == 0 and "Traceback" not in err, err
    assert summary["completed"] == 3 and summary["errors"] == 1
    errors = _errors(tmp_path / "w")
    assert errors[0] == [] and errors[2] == []  # the episode after it ran
    assert errors[1] == ["timeout: no answer within 2 s"]
    assert took < 60, f"the run took {took:.0f} s to exit"


def test_episodes_beside_a_loop_blocker_time_out_and_the_run_exits(tmp_path: Path) -> None:
    """Async agents share their event loop: an agent blocking it stalls the episodes
    running beside it until they time out; the run still ends and stores every unit."""
    rc, summary, err, took = _run(tmp_path / "w", "blocks_loop_late", *SEEDS, "--seed", "3",
                                  "--seed", "4", "--episode-timeout", "2", "--concurrency",
                                  "2")
    assert rc == 0 and "Traceback" not in err, err
    assert summary["completed"] == 5 and summary["errors"] >= 1
    assert _errors(tmp_path / "w")[3] == ["timeout: no answer within 2 s"]
    assert took < 60


def test_agents_that_block_from_the_start_stop_the_run(tmp_path: Path) -> None:
    rc, _, err, took = _run(tmp_path / "w", "always_blocks", *SEEDS, "--episode-timeout", "1")
    assert rc == 1 and "Traceback" not in err, err
    assert "error:" in err and "failed" in err  # RunAborted's line
    assert took < 60


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signals_stop_a_run_whose_agent_blocks(tmp_path: Path, sig: signal.Signals) -> None:
    started = tmp_path / "started"
    proc = cli_process("run", "--agent", f"{AGENTS}:always_blocks", "-w", str(tmp_path / "w"),
                       "-n", "1", "-d", "weather", "--episode-timeout", "600",
                       env={"AGENT_STARTED": str(started)})
    deadline = time.monotonic() + 120
    while not started.exists():  # the episode started, and its agent blocks its loop
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    t0 = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert time.monotonic() - t0 < 2.0


@pytest.mark.parametrize("agent", ["raises_base", "raises_base_sync"])
def test_a_base_exception_is_the_episodes_error(tmp_path: Path, agent: str) -> None:
    rc, summary, err, _ = _run(tmp_path / "w", agent, *SEEDS, "--seed", "3")
    assert rc == 0 and "Traceback" not in err, err
    assert summary["completed"] == 4 and summary["errors"] == 3
    errors = _errors(tmp_path / "w")
    assert errors[0] == []
    assert errors[1] == ["agent_exception: SystemExit: 0"]
    assert errors[2] == ["agent_exception: KeyboardInterrupt"]
    assert errors[3] == ["agent_exception: Custom: the agent's own BaseException"]


def test_the_summary_says_what_is_not_known(tmp_path: Path) -> None:
    """Without the gateway agentprop sees no model call: the summary says so instead of
    "0 model calls ... 0 tokens", and --json gives them as unknown (null), not 0."""
    from tests.hostile._helpers import invoke

    probe = str(Path(__file__).parents[1] / "external" / "_agents.py") + ":probe"
    result = invoke("run", "--agent", probe, "-w", str(tmp_path / "a"), "-n", "2", "-d",
                    "weather", "--concurrency", "1")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "4 tool calls" in out and "model calls, tokens and cost: not observed" in out
    assert "0 model calls" not in out and "0 tokens" not in out
    result = invoke("run", "--agent", probe, "-w", str(tmp_path / "b"), "-n", "2", "-d",
                    "weather", "--json")
    summary = json.loads(result.stdout)
    assert summary["model_calls"] is None and summary["tokens"] is None
    assert summary["cost"] is None and summary["unobserved_model_calls"] == 2
