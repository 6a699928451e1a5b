"""Batching: running many units (resume, run lock, bounded concurrency, one batching
writer, cost guard, rate limits, the pre-flight check).

What an episode needs is built by `_build.py` and the episode itself is run by an
`EpisodeExecutor` (`_executor.py`), so this module only schedules. Every unit whose key
is already stored is skipped, so rerunning a command continues where it stopped. Traces
are written by a single background writer in batched transactions, each with its stage
row (read in a helper process for larger runs, `_rows.py`): a kill -9 loses at most the
units in flight, the traces whose rows are being read and the last unflushed batch,
never part of a trace, and `INSERT OR IGNORE` makes a duplicate impossible.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from agentprop._interrupts import checkpoint, run_interruptible
from agentprop.core import (
    ErrorEvent,
    ModelInfo,
    RunSpec,
    Task,
    ToolProbe,
    Trace,
    WorkUnit,
    stable_hash,
)
from agentprop.domains import Domain
from agentprop.models import GenerateConfig, Model, RateLimits
from agentprop.runner._budget import CostGuard
from agentprop.runner._build import (
    EpisodeBuilder,
    ExtraHooks,
    close_models,
    make_models,
    ready_models,
    seeded_configs,
    unit_tasks,
)
from agentprop.runner._errors import RunError, RunLocked
from agentprop.runner._executor import EpisodeExecutor, NativeExecutor, failed
from agentprop.runner._lock import RunLockedError, run_lock
from agentprop.runner._plan import check_seeds
from agentprop.runner._pool import WorkerLost, WorkerPool, worker_job
from agentprop.runner._preflight import Preflight
from agentprop.runner._probe import (
    ProbeMode,
    check_mode,
    probe_models,
    refuse,
    stop_unreachable,
)
from agentprop.runner._progress import RunProgress
from agentprop.runner._rows import HELPER_MIN_UNITS, RowHelper
from agentprop.runner._secrets import redact, redact_text, secret_values
from agentprop.runner._summary import RunSummary, trace_cost
from agentprop.store import TraceWriter, Workspace
from agentprop.suite import Suite

if TYPE_CHECKING:
    from agentprop.analysis._stored import PrecomputedRows, StageRecorder

P = ParamSpec("P")
R = TypeVar("R")


def _manifest(
    units: Sequence[WorkUnit],
    config: GenerateConfig,
    settings: dict[str, Any],
    extra: Mapping[str, Any] | None,
) -> dict[str, Any]:
    task_ids = sorted({u.task_id for u in units})
    return {
        "models": list(dict.fromkeys(u.model for u in units)),
        "conditions": list(dict.fromkeys(u.condition for u in units)),
        "seeds": list(dict.fromkeys(u.seed for u in units)),
        "arms": list(dict.fromkeys(u.arm for u in units)),
        "units": len(units),
        "tasks": len(task_ids),
        "task_ids_sha256": stable_hash(task_ids),
        "generate_config": config.model_dump(mode="json"),
        **settings,
        **dict(extra or {}),
    }


def _claimed(fn: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Run `fn(units, workspace=...)` after checking the seeds and while holding the lock
    of every run in `units` (`RunLocked` when another process holds one)."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        units: Sequence[WorkUnit] = args[0] if args else kwargs["units"]  # type: ignore[assignment]
        workspace: Workspace = kwargs["workspace"]  # type: ignore[assignment]
        check_seeds({u.seed for u in units})
        try:
            with run_lock(workspace.path, {u.run_id for u in units}):
                return await fn(*args, **kwargs)
        except RunLockedError as e:
            raise RunLocked(str(e)) from None

    return wrapper


def _stage_rows(suite: Suite) -> tuple[str, StageRecorder]:
    """(context, row function) of the stored stage rows of this run's traces: `fabricated`
    read against the run's suite. An analysis that reads them against another suite (its
    `experiment.workspace_suite`) finds another context and recomputes them."""
    from agentprop.analysis._stored import StageRecorder, stage_context
    from agentprop.judges import FabricationRule, query_vocabulary

    return (stage_context(suite.checksum),
            StageRecorder(suite, FabricationRule(query_vocabulary(suite.tasks))))


@_claimed
async def run_units(
    units: Sequence[WorkUnit],
    *,
    workspace: Workspace,
    suite: Suite,
    model_options: Mapping[str, Any] | None = None,
    concurrency: int = 32,
    extra_hooks: ExtraHooks | None = None,
    in_history: bool = True,
    progress: bool = True,
    use_cache: bool = True,
    config: GenerateConfig | None = None,
    max_steps: int = 10,
    text_mode: bool = False,
    answer_on_step_limit: bool | None = None,
    manifest: Mapping[str, Any] | None = None,
    models: Mapping[str, Model] | None = None,
    preflight: int = 3,
    batch_size: int = 64,
    flush_interval_s: float = 0.5,
    executor: EpisodeExecutor | WorkerPool | None = None,
    max_cost: float | None = None,
    model_limits: Mapping[str, RateLimits] | None = None,
    probe: ProbeMode = "off",
    on_probe: Callable[[ToolProbe], None] | None = None,
    execute_leaked: bool = False,
    domains: Mapping[str, Domain] | None = None,
    stage_process: bool | None = None,
) -> RunSummary:
    """Run every unit not yet stored in `workspace`; return what this invocation did.

    `extra_hooks(unit, task)` adds hooks per unit (after the injector's). `manifest` adds
    keys to each run's stored RunSpec config (e.g. the CLI's task selection); secrets are
    redacted. `models` overrides model construction (tests, benchmarks). If the first
    `preflight` episodes of a model all fail without a single successful model call, the
    run stops with `RunAborted` and those error traces are not stored. `executor` runs the
    episodes instead of the native loop over `models` (e.g. an external agent over MCP).
    `max_cost` (USD, this invocation's spend) is the cost guard: no unit starts once the
    estimated spend would pass it; those units are counted in `not_started` and a rerun
    with a higher limit runs them. `model_limits` gives models request/token budgets
    (remote models only); 429 answers received are counted in `rate_limited`.
    `probe` is the tool-calling preflight (`_probe.py`) of every model with units to
    run, before the first unit (not for an `executor`; the commands turn it on, the
    library leaves it off): ``warn`` records it in each run's
    `RunSpec.preflight` and hands each model's result to `on_probe`; ``strict`` also
    refuses a model that failed the forced check (`ProbeRefused`, nothing written);
    ``off`` skips it. `execute_leaked` runs tool calls written as text (native mode) as
    calls; by default they are recorded and not run. `domains` gives the domains of tasks
    whose domain is not registered (the user's MCP server, `run --upstream`). With
    `stage_process` (None: 256+ units pending), stage rows are read in a helper process.
    A `WorkerPool` as `executor` (`_pool.py`: `--executor processes|ray`) runs whole units
    in worker processes that send back finished traces; this process stays the only
    writer. A unit whose worker died is not stored and is counted in `lost`.
    Cancellation (Ctrl-C) flushes the finished traces and re-raises. A seed outside
    0..MAX_SEED is a RunError before anything is written; a run another process is
    executing on this workspace is `RunLocked` (no unit is called twice).
    """
    if concurrency < 1:
        raise RunError(f"concurrency must be at least 1, got {concurrency}")
    if max_steps < 1:
        raise RunError(f"max steps must be at least 1, got {max_steps}")
    t0 = time.perf_counter()
    config = config or GenerateConfig()
    tasks = unit_tasks(units, suite)
    run_ids = list(dict.fromkeys(u.run_id for u in units))
    done: set[str] = set()
    for rid in run_ids:
        done |= workspace.trace_ids(rid)
    pending = [u for u in units if u.key not in done]
    summary = RunSummary(units=len(units), skipped=len(units) - len(pending), run_ids=run_ids,
                         max_cost=max_cost)
    if max_cost is not None and max_cost < 0:
        raise RunError(f"the cost limit must be >= 0, got {max_cost:g}")
    pool = executor if isinstance(executor, WorkerPool) else None
    if pool is not None and (models is not None or domains):
        raise RunError("models given as Python objects and --upstream tools run in this "
                       "process only: use --executor asyncio")

    model_objs = (
        dict(models or {})
        if models is not None or (executor is not None and (pool is None or pool.agent))
        else make_models([u.model for u in pending], workspace=workspace, suite=suite,
                         model_options=model_options, use_cache=use_cache)
    )
    builder = EpisodeBuilder(tasks, in_history=in_history, extra_hooks=extra_hooks,
                             domains=domains)
    builder.check(pending)
    probe = check_mode(probe)

    secrets = secret_values(str((model_options or {}).get("base_url") or ""))
    settings = redact({
        "max_steps": max_steps, "text_mode": text_mode,
        **({"answer_on_step_limit": answer_on_step_limit}
           if answer_on_step_limit is not None else {}),
        "in_history": in_history, "use_cache": use_cache, "concurrency": concurrency,
        **_executor_settings(model_options, extra_hooks, execute_leaked, probe, executor, pool),
    }, secrets)
    new_runs = _new_runs(units, run_ids, workspace, suite, config, settings, manifest,
                         model_objs, secrets)
    if not pending:
        for run in new_runs:  # all its traces are stored: only the row was missing
            workspace.put_run(run)
        summary.wall_s = time.perf_counter() - t0
        return summary

    runner: EpisodeExecutor = (
        executor if executor is not None and not isinstance(executor, WorkerPool)
        else NativeExecutor(model_objs, seeded_configs(config), max_steps=max_steps,
                            text_mode=text_mode, execute_leaked=execute_leaked,
                            answer_on_step_limit=answer_on_step_limit))
    writer, rows, helper = _writer(workspace, suite, new_runs, batch_size, flush_interval_s,
                                   len(pending) >= HELPER_MIN_UNITS
                                   if stage_process is None else stage_process)
    bar = RunProgress(len(pending), enabled=progress, skipped=summary.skipped)
    loop = _Episodes(tasks, builder, runner, pool, writer, bar, summary, model_objs, secrets,
                     CostGuard(max_cost, tasks) if max_cost is not None else None,
                     ready_models(model_objs, model_limits or {}, concurrency,
                                   open_clients=pool is None), rows, helper)
    loop.check = Preflight(Counter(u.model for u in pending), preflight,
                           pool.reached if pool is not None else runner.reached, loop.accept)
    queue = iter(pending)
    try:
        with _quiet_collector():
            if probe != "off" and (executor is None or (pool is not None and not pool.agent)):
                summary.preflight = await _probe(pending, tasks, model_objs, config, probe,
                                                 on_probe, workspace, new_runs)
            bar.start()
            async with contextlib.AsyncExitStack() as connections, runner:
                for d in builder.domains.values():  # an upstream's session, for the run
                    await connections.enter_async_context(d.connected())
                if pool is not None:
                    await pool.start(worker_job(
                        pool, pending, suite, model_objs, model_options or {}, config,
                        concurrency=concurrency, max_steps=max_steps, text_mode=text_mode,
                        execute_leaked=execute_leaked, in_history=in_history,
                        answer_on_step_limit=answer_on_step_limit, extra_hooks=extra_hooks,
                        limits=model_limits or {}, stages=rows.compute))
                    connections.push_async_callback(pool.close)
                await _gather_all([loop.worker(queue)
                                   for _ in range(min(concurrency, len(pending)))])
    finally:
        summary.rate_limited = loop.limited()
        bar.stop()
        if helper is not None:
            helper.close()  # its traces go to the writer, with their rows or without
        writer.close()  # flush whatever finished, also on Ctrl-C and on errors
        summary.replaced_code_points += writer.replaced
        await close_models(model_objs)
    summary.wall_s = time.perf_counter() - t0
    return summary


class _Episodes:
    """One invocation's episodes: each pending unit run (natively, by an external
    executor, or in a worker process) and its finished trace handed to the writer, with
    the cost guard, the pre-flight abort and lost units counted in `summary`."""

    check: Preflight

    def __init__(self, tasks: Mapping[str, Task], builder: EpisodeBuilder,
                 runner: EpisodeExecutor, pool: WorkerPool | None, writer: TraceWriter,
                 bar: RunProgress, summary: RunSummary, model_objs: Mapping[str, Model],
                 secrets: list[str], guard: CostGuard | None,
                 limited_before: Mapping[str, int], rows: PrecomputedRows,
                 helper: RowHelper | None = None) -> None:
        self.tasks, self.builder, self.runner, self.pool = tasks, builder, runner, pool
        self.writer, self.bar, self.summary = writer, bar, summary
        self.model_objs, self.secrets, self.guard = model_objs, secrets, guard
        self.limited_before = limited_before
        self.rows, self.helper = rows, helper

    async def episode(self, unit: WorkUnit) -> Trace:
        task = self.tasks[unit.task_id]
        row = None
        if self.pool is not None:  # built, run and checked in a worker
            trace, row = await self.pool.run_unit(unit, task, row=self.writer_behind())
        else:
            env = self.builder.env(task)
            trace = await self.runner.run(unit, task, self.builder.hooks(unit, task), env)
            if env.failure is not None and trace.status != "error":
                trace = failed(trace, env.failure)
        if trace.status == "error" and _redact_errors(trace, self.secrets):
            row = None  # read from what the worker saw: the driver reads the stored text
        if row is not None:
            self.rows.give(trace, row)
        return trace

    def writer_behind(self) -> bool:
        """Whether a worker should read this unit's trace for its stage row: the row
        helper is behind, or more than a batch of traces waits for the writer (reading
        them is most of its work)."""
        return self.pool is not None and (
            (self.helper is not None and self.helper.busy())
            or self.writer.backlog() >= self.writer.batch_size)

    def accept(self, trace: Trace) -> None:
        if self.helper is None or self.rows.given(trace) or not self.helper.submit(
                trace, self.tasks[trace.task_id], self.write):
            self.writer.put(trace)  # with its row, or the writer reads it
        self.summary.count(trace)
        if self.bar.enabled:
            self.bar.update(self.summary, self.limited())

    def write(self, trace: Trace, row: tuple[Any, ...] | None) -> None:
        """A trace back from the row helper (its thread): to the writer, with its row."""
        if row is not None:
            self.rows.give(trace, row)
        with contextlib.suppress(Exception):  # the writer's error is raised by its close
            self.writer.put(trace)

    def limited(self) -> int:
        """429 answers this invocation received (the models' counts less their start)."""
        return (sum(int(getattr(m, "rate_limited", 0)) - self.limited_before[mid]
                    for mid, m in self.model_objs.items())
                + (self.pool.rate_limited if self.pool is not None else 0))

    async def worker(self, queue: Iterator[WorkUnit]) -> None:
        guard, summary = self.guard, self.summary
        for unit in queue:  # one shared iterator: units start in plan order
            if guard is not None and not guard.may_start(unit):
                summary.not_started += 1
                continue
            try:
                trace = await self.episode(unit)
            except WorkerLost:  # nothing stored: a rerun runs it
                summary.lost += 1
                if guard is not None:
                    guard.finished(unit, 0.0)
                continue
            if guard is not None:
                guard.finished(unit, trace_cost(trace))
            self.check.record(trace)
            await checkpoint()  # an in-process model never awaits: let Ctrl-C in


def _redact_errors(trace: Trace, secrets: list[str]) -> bool:
    """Redact secrets from `trace`'s error messages in place; whether any changed."""
    changed = False
    for ev in trace.events:
        if isinstance(ev, ErrorEvent):
            text = redact_text(ev.message, secrets)
            changed |= text != ev.message
            ev.message = text
    return changed


def _writer(workspace: Workspace, suite: Suite, new_runs: Sequence[RunSpec],
            batch_size: int, interval_s: float, helped: bool,
            ) -> tuple[TraceWriter, PrecomputedRows, RowHelper | None]:
    """The run's writer, which stores each trace with its stage row (so no analysis
    parses the traces again), the rows computed elsewhere it takes, and (`helped`) the
    helper process reading them (`_rows.py`); with workers, they read them whenever the
    helper and the writer fall behind (`_Episodes.writer_behind`)."""
    from agentprop.analysis._stored import PrecomputedRows

    context, recorder = _stage_rows(suite)
    rows = PrecomputedRows(recorder)
    writer = TraceWriter(workspace.path, runs=new_runs, batch_size=batch_size,
                         interval_s=interval_s, stages=(context, rows))
    helped = helped and os.name == "posix"  # the helper inherits a socket (pass_fds)
    return writer, rows, RowHelper(recorder) if helped else None


async def _gather_all(jobs: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run the jobs together; on any failure or cancellation cancel the rest, wait for
    them, and re-raise."""
    workers = [asyncio.ensure_future(j) for j in jobs]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for w in workers:
            w.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*workers, return_exceptions=True)
        raise


def _executor_settings(model_options: Mapping[str, Any] | None,
                       extra_hooks: ExtraHooks | None, execute_leaked: bool, probe: ProbeMode,
                       executor: EpisodeExecutor | WorkerPool | None,
                       pool: WorkerPool | None) -> dict[str, Any]:
    """The stored settings of how episodes run (model options, hooks, leaked calls, the
    pre-flight, the executor); the run id does not depend on them."""
    return {
        "model_options": {k: v for k, v in (model_options or {}).items()
                          if k not in ("suite", "cache")},
        "extra_hooks": getattr(extra_hooks, "__qualname__", None) if extra_hooks else None,
        **({"execute_leaked": True} if execute_leaked else {}),
        "preflight": probe if executor is None or (pool is not None and not pool.agent)
        else "off",
        **({"executor": pool.kind, "workers": pool.workers} if pool is not None else {}),
    }


def _new_runs(units: Sequence[WorkUnit], run_ids: Sequence[str], workspace: Workspace,
              suite: Suite, config: GenerateConfig, settings: dict[str, Any],
              manifest: Mapping[str, Any] | None, model_objs: Mapping[str, Model],
              secrets: list[str]) -> list[RunSpec]:
    """The rows of the runs not yet stored. A run's row is written in the transaction of
    its first traces: never a run without them (a run that fails before its first trace
    leaves nothing behind)."""
    from agentprop import __version__

    return [
        RunSpec(
            id=rid,
            package_version=__version__,
            suite_checksum=suite.checksum,
            config=redact(_manifest([u for u in units if u.run_id == rid], config, settings,
                                    manifest), secrets),
            models=model_infos(model_objs, {u.model for u in units if u.run_id == rid}),
        )
        for rid in run_ids
        if workspace.get_run(rid) is None
    ]


@contextlib.contextmanager
def _quiet_collector() -> Iterator[None]:
    """The garbage collector tuned for a run. The suite, tasks and models are long-lived:
    moved out of the collector's sight, the collections the episodes' garbage triggers do
    not rescan them every time (≈ 8 % of the client's CPU at 64 concurrent episodes;
    bench/bench_throughput.py). Most of an episode's garbage is freed by reference
    counting; collecting the young generation every 700 allocations mostly traverses
    objects that are about to die."""
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], 20_000), *thresholds[1:])
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


async def _probe(pending: Sequence[WorkUnit], tasks: Mapping[str, Task],
                 models: Mapping[str, Model], config: GenerateConfig, mode: ProbeMode,
                 on_probe: Callable[[ToolProbe], None] | None, workspace: Workspace,
                 new_runs: Sequence[RunSpec]) -> list[ToolProbe]:
    """The preflight of every model with pending units: reported, refused (strict), and
    recorded in each run's manifest (new runs with their first traces, stored ones now)."""
    per_task: dict[str, dict[str, Task]] = {}  # by task id: comparing Tasks is slow
    for u in pending:
        per_task.setdefault(u.model, {}).setdefault(u.task_id, tasks[u.task_id])
    per_model = {m: list(got.values()) for m, got in per_task.items()}
    probes = await probe_models(models, per_model, config)
    stop_unreachable(probes)
    for p in probes:
        if on_probe is not None:
            on_probe(p)
    if mode == "strict":
        refuse(probes)
    fresh = {r.id for r in new_runs}
    for rid in dict.fromkeys(u.run_id for u in pending):
        in_run = {u.model for u in pending if u.run_id == rid}
        mine = [p for p in probes if p.model in in_run]
        stored = None if rid in fresh else workspace.get_run(rid)
        if rid in fresh:
            next(r for r in new_runs if r.id == rid).preflight = mine
        elif stored is not None:
            kept = [p for p in stored.preflight if p.model not in in_run]
            workspace.put_run(stored.model_copy(update={"preflight": [*kept, *mine]}))
    return probes


def model_infos(models: Mapping[str, Model], ids: set[str]) -> list[ModelInfo]:
    """What the run's self-describing models (`model_info()`, e.g. local ones) say of
    themselves, in id order; a model that cannot say (not loaded) is left out."""
    out = []
    for mid in sorted(ids):
        describe = getattr(models.get(mid), "model_info", None)
        if callable(describe):
            info = describe()
            if isinstance(info, ModelInfo):
                out.append(info)
    return out


def run_units_sync(units: Sequence[WorkUnit], **kwargs: Any) -> RunSummary:
    """`run_units` in a fresh event loop. SIGTERM, like Ctrl-C, flushes and stops
    (raising KeyboardInterrupt; `agentprop._interrupts`)."""
    return run_interruptible(run_units(units, **kwargs))
