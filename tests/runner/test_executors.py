"""`--executor processes|ray`: the same traces as asyncio, a killed worker loses only its
units in flight and a rerun stores every unit exactly once, the lock, bad input.

Ray tests share one local instance (num_cpus=2, no dashboard) for the module."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.cli._suite import get_suite
from agentprop.core import WorkUnit
from agentprop.runner import (
    ProcessPool,
    RayPool,
    RunLocked,
    plan_units,
    run_units,
    run_units_sync,
)
from agentprop.runner._lock import run_lock
from agentprop.store import Workspace
from agentprop.suite import Suite


@pytest.fixture(scope="module")
def suite() -> Suite:
    return get_suite(None)


def _units(suite: Suite, n: int, run_id: str) -> list[WorkUnit]:
    tasks = [t for t in suite.tasks if t.split == "test" and t.domain == "weather"][:n]
    return plan_units(run_id, ["sim/balanced"], tasks, ["baseline", "p2:type_mismatch"],
                      seeds=[3])


def _stored(ws: Workspace, run_id: str) -> list[tuple[str, str, str | None]]:
    out = []
    for tid in sorted(ws.trace_ids(run_id)):
        t = ws.get_trace(tid)
        assert t is not None
        out.append((t.id, t.status, t.final.answer if t.final else None))
    return out


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="ERROR")
    yield ray
    ray.shutdown()


def _same_as_asyncio(tmp_path: Path, suite: Suite, pool: Any) -> None:
    units = _units(suite, 6, "same")
    runs = {}
    for name, executor in (("asyncio", None), ("pool", pool)):
        ws = Workspace(tmp_path / name)
        s = run_units_sync(units, workspace=ws, suite=suite, executor=executor,
                           progress=False, concurrency=4)
        assert s.completed == len(units) and s.lost == 0
        runs[name] = _stored(ws, "same")
        run = ws.get_run("same")
        assert run is not None
        ws.close()
    assert runs["pool"] == runs["asyncio"]
    assert len(runs["pool"]) == len(units)


def test_processes_store_the_traces_asyncio_does(tmp_path: Path, suite: Suite) -> None:
    _same_as_asyncio(tmp_path, suite, ProcessPool(2))


def test_ray_stores_the_traces_asyncio_does(tmp_path: Path, suite: Suite,
                                            ray_local: Any) -> None:
    _same_as_asyncio(tmp_path, suite, RayPool(workers=2))


async def _run_and_kill(ws: Workspace, suite: Suite, units: list[WorkUnit], pool: Any,
                        kill: Any) -> Any:
    """Run `units` on `pool` (slow sim model) and kill one worker once traces flow."""
    run = asyncio.ensure_future(run_units(
        units, workspace=ws, suite=suite, executor=pool, progress=False, concurrency=6,
        model_options={"latency_ms": 150}, flush_interval_s=0.05))
    for _ in range(600):
        await asyncio.sleep(0.05)
        if len(ws.trace_ids("kill")) >= 2:
            break
    kill(pool)
    return await run


@pytest.mark.parametrize("kind", ["processes", "ray"])
def test_a_killed_worker_loses_only_its_units_and_a_rerun_stores_each_once(
        tmp_path: Path, suite: Suite, kind: str, request: pytest.FixtureRequest) -> None:
    if kind == "ray":
        ray = request.getfixturevalue("ray_local")
        pool: Any = RayPool(workers=2)

        def kill(p: Any) -> None:
            ray.kill(p.actors()[0])
    else:
        pool = ProcessPool(2)

        def kill(p: Any) -> None:
            os.kill(p.pids()[0], signal.SIGKILL)
    # enough units that the killed worker still has some in flight however busy the
    # machine is when the first traces arrive (with 12 tasks, a slow start let it finish all)
    units = _units(suite, 24, "kill")
    ws = Workspace(tmp_path / "ws")
    first = asyncio.run(_run_and_kill(ws, suite, units, pool, kill))
    assert first.lost >= 1  # the dead worker's units in flight
    assert first.completed + first.lost == len(units)
    assert len(ws.trace_ids("kill")) == first.completed  # nothing half-written
    again = run_units_sync(units, workspace=ws, suite=suite, progress=False,
                           executor=ProcessPool(2) if kind == "processes" else RayPool(workers=2),
                           model_options={"latency_ms": 1})
    assert again.skipped == first.completed and again.completed == first.lost
    assert ws.trace_ids("kill") == {u.key for u in units}
    assert ws.count_traces(run_id="kill") == len(units)
    ws.close()


def test_a_locked_run_is_refused_with_a_pool(tmp_path: Path, suite: Suite) -> None:
    units = _units(suite, 2, "locked")
    ws = Workspace(tmp_path / "ws")
    with run_lock(ws.path, {"locked"}), pytest.raises(RunLocked):
        run_units_sync(units, workspace=ws, suite=suite, executor=ProcessPool(1),
                       progress=False)
    assert ws.count_traces() == 0
    ws.close()


def test_python_model_objects_need_asyncio(tmp_path: Path, suite: Suite) -> None:
    from agentprop.runner import RunError

    units = _units(suite, 1, "objects")
    ws = Workspace(tmp_path / "ws")
    model: Any = object()  # e.g. a test's runtime model: it cannot go to a worker
    with pytest.raises(RunError, match="--executor asyncio"):
        run_units_sync(units, workspace=ws, suite=suite, executor=ProcessPool(1),
                       models={"sim/balanced": model}, progress=False)
    ws.close()


def _cli(tmp_path: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["run", "-m", "sim/balanced", "-n", "2", "-d", "weather",
                                    "-w", str(tmp_path / "ws"), *extra],
                              env={"AGENTPROP_WORKSPACE": None})


def test_bad_executor_is_one_line_with_a_suggestion(tmp_path: Path) -> None:
    res = _cli(tmp_path, "--executor", "proceses")
    assert res.exit_code == 2
    out = res.output.strip()
    assert len(out.splitlines()) == 1 and "did you mean 'processes'" in out
    assert not (tmp_path / "ws").exists()


def test_a_dead_ray_address_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    res = _cli(tmp_path, "--executor", "ray", "--ray-address", "127.0.0.1:1")
    assert res.exit_code == 2
    out = res.output.strip()
    assert len(out.splitlines()) == 1 and "127.0.0.1:1" in out, out
    assert not (tmp_path / "ws").exists()


def test_the_cli_runs_on_processes_and_resumes(tmp_path: Path) -> None:
    res = _cli(tmp_path, "--executor", "processes", "--workers", "2", "--json")
    assert res.exit_code == 0, res.output
    again = _cli(tmp_path, "--json")  # asyncio resumes the same run: nothing left
    assert again.exit_code == 0 and '"completed": 0' in again.output


def _stage_table(ws: Workspace) -> list[tuple[Any, ...]]:
    return ws.conn.execute("SELECT * FROM stages ORDER BY trace_id").fetchall()


@pytest.mark.parametrize("kind", ["processes", "ray"])
def test_workers_compute_the_stage_rows_the_driver_would(
        tmp_path: Path, suite: Suite, kind: str, request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stage row computed where the episode ran (every other unit here, as when the
    driver's writer is behind) is the row the driver computes: every row stored equals
    the one recomputed from the stored trace afterwards, and the driver computed only
    the others."""
    import itertools

    from agentprop.analysis._stored import StageRecorder
    from agentprop.runner._run import _Episodes, _stage_rows

    if kind == "ray":
        request.getfixturevalue("ray_local")
    pool: Any = ProcessPool(2) if kind == "processes" else RayPool(workers=2)
    by_domain: dict[str, list[Any]] = {}
    for t in suite.tasks:
        if t.split == "test" and len(by_domain.setdefault(t.domain, [])) < 2:
            by_domain[t.domain].append(t)
    tasks = [t for ts in by_domain.values() for t in ts]
    units = plan_units("rows", ["sim/balanced", "sim/propagator"], tasks,
                       ["baseline", "p2:type_mismatch"], seeds=[1])
    ws = Workspace(tmp_path / "ws")
    in_driver: list[str] = []
    compute = StageRecorder.__call__
    behind = itertools.cycle([True, False])
    with monkeypatch.context() as m:
        def counted(self: StageRecorder, trace: Any) -> Any:
            in_driver.append(trace.id)
            return compute(self, trace)
        m.setattr(StageRecorder, "__call__", counted)
        m.setattr(_Episodes, "writer_behind", lambda self: next(behind))
        s = run_units_sync(units, workspace=ws, suite=suite, executor=pool,
                           progress=False, concurrency=8)
    assert s.completed == len(units) and s.lost == 0
    assert len(in_driver) == len(units) // 2  # the other half came with their rows
    context, recorder = _stage_rows(suite)
    stored = _stage_table(ws)
    assert len(stored) == len(units) and {r[1] for r in stored} == {context}
    again = [(r[0], context, *recorder(tr)) for r in stored
             if (tr := ws.get_trace(r[0])) is not None]
    assert stored == again
    ws.close()


def test_workers_read_the_traces_only_when_the_driver_is_behind(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from agentprop.runner._run import _Episodes
    from agentprop.store import TraceWriter

    Workspace(tmp_path / "ws").close()
    writer = TraceWriter(tmp_path / "ws", batch_size=2)
    episodes: Any = SimpleNamespace(pool=object(), helper=None, writer=writer)
    assert writer.backlog() == 0 and not _Episodes.writer_behind(episodes)
    episodes.helper = SimpleNamespace(busy=lambda: True)  # the row helper is behind
    assert _Episodes.writer_behind(episodes)
    episodes.helper = SimpleNamespace(busy=lambda: False)
    writer._queue.put(None)  # the writer stops taking: what is queued now waits
    writer._thread.join()
    for _ in range(2):
        writer._queue.put(None)
    assert writer.backlog() == 2 and _Episodes.writer_behind(episodes)
    episodes.pool = None  # asyncio: no workers to ask
    assert not _Episodes.writer_behind(episodes)


def test_a_trace_the_driver_changed_gets_its_row_computed_again() -> None:
    """A row given for one trace object is used for that object only: a redacted or
    re-encoded copy (another object with the same id) is computed by the driver."""
    from agentprop.analysis._stored import PrecomputedRows
    from agentprop.core import ErrorEvent, Trace
    from agentprop.runner._run import _redact_errors

    computed: list[str] = []

    def compute(trace: Trace) -> tuple[Any, ...]:
        computed.append(trace.id)
        return ("driver",)

    rows = PrecomputedRows(compute)  # type: ignore[arg-type]
    trace = Trace(id="t1", run_id="r", model="m", task_id="x", domain="d", split="test",
                  difficulty="easy",
                  condition="baseline", seed=0, events=[
                      ErrorEvent(step=0, kind="upstream", message="key sk-abcdefgh1234")])
    rows.give(trace, ("worker",))
    assert rows(trace) == ("worker",) and computed == []
    assert rows(trace) == ("driver",) and computed == ["t1"]  # given once, taken once
    rows.give(trace, ("worker",))
    assert rows(trace.model_copy()) == ("driver",)
    assert _redact_errors(trace, ["sk-abcdefgh1234"]) is True
    assert "sk-abcdefgh1234" not in trace.events[0].message  # type: ignore[union-attr]
    assert _redact_errors(trace, ["sk-abcdefgh1234"]) is False


def test_a_worker_dead_before_the_run_fails_it_in_one_line(tmp_path: Path,
                                                           suite: Suite) -> None:
    """A worker that died between its spawn and the run (OOM killer, kill -9) makes the
    run fail with a RunError naming it, and nothing is written."""
    from agentprop.runner import RunError

    pool = ProcessPool(1)
    pool.connect()
    proc = pool._procs[0].process
    proc.kill()
    proc.join(10)
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(RunError, match="did not start"):
        run_units_sync(_units(suite, 1, "dead"), workspace=ws, suite=suite, executor=pool,
                       progress=False)
    assert ws.count_traces() == 0
    ws.close()


def _counted_agent(tmp_path: Path) -> tuple[Path, Path]:
    """An agent file that appends its process id to a file each time it is loaded."""
    loads = tmp_path / "loads.txt"
    agent = tmp_path / "counted_agent.py"
    agent.write_text(
        "import os\n"
        f"with open({str(loads)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n\n"
        "async def agent(episode):\n"
        "    return 'I cannot answer that.'\n")
    return agent, loads


@pytest.mark.parametrize("kind", ["processes", "ray"])
def test_a_pool_loads_the_agent_while_it_waits_for_the_run(
        tmp_path: Path, kind: str, request: pytest.FixtureRequest) -> None:
    """Connected and sent no run yet, each worker has already loaded the `--agent` (its
    SDKs import while the driver loads the suite and plans)."""
    import functools
    import time

    from agentprop.external import agent_in_worker

    agent, loads = _counted_agent(tmp_path)
    factory = functools.partial(agent_in_worker, f"{agent}:agent", 60)
    if kind == "ray":
        request.getfixturevalue("ray_local")
    pool: Any = (ProcessPool(2, agent=factory) if kind == "processes"
                 else RayPool(workers=2, agent=factory))
    pool.connect()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
            not loads.exists() or len(set(loads.read_text().split())) < 2):
        time.sleep(0.1)
    try:
        assert len(set(loads.read_text().split())) == 2  # both loaded it, waiting
    finally:
        asyncio.run(pool.close())


def test_an_agent_is_loaded_once_per_worker(tmp_path: Path) -> None:
    """`run --agent` on processes: each worker loads the agent once and runs every
    episode with it (the one loaded while it waited)."""
    agent, loads = _counted_agent(tmp_path)
    res = CliRunner().invoke(
        app, ["run", "--agent", f"{agent}:agent", "-n", "4", "-d", "weather", "--json",
              "-w", str(tmp_path / "ws"), "--executor", "processes", "--workers", "2"],
        env={"AGENTPROP_WORKSPACE": None})
    assert res.exit_code == 0, res.output
    assert '"completed": 4' in res.output
    pids = loads.read_text().split()
    workers = [p for p in pids if int(p) != os.getpid()]  # the driver checks it too
    assert len(workers) == 2 and len(set(workers)) == 2, pids
