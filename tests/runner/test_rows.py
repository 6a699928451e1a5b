"""The run's stage-row helper (`runner/_rows.py`): rows read in another process are the
rows the driver computes; a helper that dies, a run cancelled with traces still being
read, and closing with traces waiting all store every finished trace once, with its row."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from agentprop.analysis._stored import StageRecorder
from agentprop.cli._suite import get_suite
from agentprop.core import WorkUnit
from agentprop.runner import plan_units, run_units, run_units_sync
from agentprop.runner._rows import RowHelper
from agentprop.runner._run import _stage_rows
from agentprop.store import Workspace
from agentprop.suite import Suite


@pytest.fixture(scope="module")
def suite() -> Suite:
    return get_suite(None)


def _units(suite: Suite, run_id: str, per_domain: int = 2) -> list[WorkUnit]:
    by_domain: dict[str, list[Any]] = {}
    for t in suite.tasks:
        if t.split == "test" and len(by_domain.setdefault(t.domain, [])) < per_domain:
            by_domain[t.domain].append(t)
    tasks = [t for ts in by_domain.values() for t in ts]
    return plan_units(run_id, ["sim/balanced", "sim/propagator"], tasks,
                      ["baseline", "p2:type_mismatch"], seeds=[2])


def _rows_match(ws: Workspace, suite: Suite, n: int) -> None:
    """`n` stored traces, each with the row the driver computes from it."""
    context, recorder = _stage_rows(suite)
    stored = ws.conn.execute("SELECT * FROM stages ORDER BY trace_id").fetchall()
    assert ws.count_traces() == n and len(stored) == n
    again = [(r[0], context, *recorder(tr)) for r in stored
             if (tr := ws.get_trace(r[0])) is not None]
    assert stored == again


def test_the_helper_reads_the_rows_the_driver_would(tmp_path: Path, suite: Suite,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    units = _units(suite, "helper")
    ws = Workspace(tmp_path / "ws")
    in_driver: list[str] = []
    compute = StageRecorder.__call__
    with monkeypatch.context() as m:
        def counted(self: StageRecorder, trace: Any) -> Any:
            in_driver.append(trace.id)
            return compute(self, trace)
        m.setattr(StageRecorder, "__call__", counted)
        s = run_units_sync(units, workspace=ws, suite=suite, progress=False,
                           concurrency=8, stage_process=True)
    assert s.completed == len(units)
    assert len(in_driver) < len(units)  # the helper read (almost) all of them
    _rows_match(ws, suite, len(units))
    ws.close()


async def _slow_run_until(ws: Workspace, suite: Suite, units: list[WorkUnit],
                          stored: int) -> asyncio.Future[Any]:
    """`units` running with a helper (a slow sim model), once `stored` traces are stored."""
    run = asyncio.ensure_future(run_units(
        units, workspace=ws, suite=suite, progress=False, concurrency=4,
        model_options={"latency_ms": 50}, stage_process=True, flush_interval_s=0.05))
    for _ in range(600):
        await asyncio.sleep(0.05)
        if ws.count_traces() >= stored:
            break
    return run


def test_a_dead_helper_leaves_the_rows_to_the_writer(tmp_path: Path, suite: Suite,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper killed mid-run: the run goes on, every trace is stored once with its
    row (the writer read what the helper no longer could)."""
    helpers: list[RowHelper] = []
    start = RowHelper.__init__

    def record(self: RowHelper, *a: Any, **k: Any) -> None:
        start(self, *a, **k)
        helpers.append(self)
    monkeypatch.setattr(RowHelper, "__init__", record)
    units = _units(suite, "dies", per_domain=3)
    ws = Workspace(tmp_path / "ws")

    async def run_and_kill() -> Any:
        run = await _slow_run_until(ws, suite, units, 2)
        os.kill(helpers[0]._proc.pid, signal.SIGKILL)
        return await run
    s = asyncio.run(run_and_kill())
    assert helpers[0].busy()  # dead: takes nothing more
    assert s.completed == len(units) and s.lost == 0
    _rows_match(ws, suite, len(units))
    ws.close()


def test_a_cancelled_run_stores_what_finished_with_its_rows(tmp_path: Path,
                                                           suite: Suite) -> None:
    """Cancelled (Ctrl-C) while traces are still being read: every trace that finished is
    stored with its row, and a rerun stores the rest, each once."""
    units = _units(suite, "cancel", per_domain=3)
    ws = Workspace(tmp_path / "ws")

    async def run_and_cancel() -> None:
        run = await _slow_run_until(ws, suite, units, 3)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
    asyncio.run(run_and_cancel())
    first = ws.count_traces()
    assert 3 <= first < len(units)
    _rows_match(ws, suite, first)
    again = run_units_sync(units, workspace=ws, suite=suite, progress=False,
                           stage_process=True)
    assert again.skipped == first and again.completed == len(units) - first
    _rows_match(ws, suite, len(units))
    ws.close()


def test_closing_hands_every_waiting_trace_over_once(tmp_path: Path, suite: Suite) -> None:
    units = _units(suite, "close", per_domain=1)
    ws = Workspace(tmp_path / "ws")
    run_units_sync(units, workspace=ws, suite=suite, progress=False, stage_process=False)
    traces = [t for i in sorted(ws.trace_ids()) if (t := ws.get_trace(i)) is not None]
    ws.close()
    _, recorder = _stage_rows(suite)
    helper = RowHelper(recorder, limit=len(traces))
    got: list[tuple[str, bool]] = []
    for t in traces:
        assert helper.submit(t, suite.get(t.task_id), lambda tr, row: got.append(
            (tr.id, row is not None)))
    t0 = time.monotonic()
    helper.close(wait_s=30)
    assert time.monotonic() - t0 < 30
    assert sorted(i for i, _ in got) == sorted(t.id for t in traces)  # each once
    assert helper.busy() and not helper.submit(traces[0], suite.get(traces[0].task_id),
                                               lambda tr, row: None)


def test_a_script_without_a_main_guard_runs_once(tmp_path: Path) -> None:
    """The helper never re-imports the user's script: one without `if __name__ ==
    "__main__"` calling `run_units` runs its top level once, and every row is read."""
    import subprocess
    import sys

    marks = tmp_path / "marks.txt"
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from agentprop.cli._suite import get_suite\n"
        "from agentprop.runner import plan_units, run_units_sync\n"
        "from agentprop.store import Workspace\n"
        f"open({str(marks)!r}, 'a').write('ran\\n')\n"
        "suite = get_suite(None)\n"
        "tasks = [t for t in suite.tasks if t.split == 'test'][:4]\n"
        "units = plan_units('guard', ['sim/balanced'], tasks, ['baseline'], seeds=[0])\n"
        f"ws = Workspace({str(tmp_path / 'ws')!r})\n"
        "s = run_units_sync(units, workspace=ws, suite=suite, progress=False,\n"
        "                   stage_process=True)\n"
        "print(s.completed, ws.conn.execute('SELECT COUNT(*) FROM stages').fetchone()[0])\n"
        "ws.close()\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["4", "4"]
    assert marks.read_text() == "ran\n"
