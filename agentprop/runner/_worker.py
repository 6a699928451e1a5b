"""The worker side of `--executor processes|ray`: one asyncio loop per worker process,
many episodes in flight on it, each unit in → one finished `Trace` out.

A worker never opens the workspace: it builds its own models from the run's model ids
and options (API keys come from the environment it inherited, never from a file), its
own environments and hooks, and sends every trace back to the driver, which is the
only writer (`_run.py`). The response cache is therefore not used by workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agentprop.core import Task, Trace, WorkUnit
from agentprop.models import GenerateConfig, Model, RateLimits
from agentprop.runner._build import (
    EpisodeBuilder,
    ExtraHooks,
    close_models,
    make_models,
    ready_models,
    seeded_configs,
)
from agentprop.runner._executor import EpisodeExecutor, NativeExecutor, failed
from agentprop.suite import Suite

if TYPE_CHECKING:
    from agentprop.analysis._stored import StageRecorder


@dataclasses.dataclass(frozen=True)
class WorkerJob:
    """Everything a worker needs besides the units themselves; pickled once per worker.

    `suite` is only shipped when an in-process simulated model needs it (sim policies
    look tasks up in the whole suite); otherwise a suite of the tasks the units carry is
    enough. `agent` builds an external agent's executor in the worker (None: the native
    loop). `limits` are already this worker's share of the run's rate limits. `stages`
    computes a trace's stored stage row where the episode ran, when the driver asks (the
    driver's `StageRecorder.portable()`), so the driver only writes it; a worker whose
    code has another `STAGE_VERSION` than `stage_version` leaves the rows to the driver.
    """

    model_ids: tuple[str, ...]
    model_options: Mapping[str, Any]
    config: GenerateConfig
    max_steps: int
    text_mode: bool
    execute_leaked: bool
    answer_on_step_limit: bool | None
    in_history: bool
    concurrency: int
    suite: Suite | None = None
    extra_hooks: ExtraHooks | None = None
    limits: Mapping[str, RateLimits] = dataclasses.field(default_factory=dict)
    agent: Callable[[], EpisodeExecutor] | None = None
    stages: StageRecorder | None = None
    stage_version: int | None = None


class WorkerEngine:
    """Runs units in one worker: `async with engine: await engine.run(unit, task)`."""

    def __init__(self, job: WorkerJob, agent: EpisodeExecutor | None = None) -> None:
        self.job = job
        self._prebuilt = agent  # the job's agent, built while the worker waited
        self.tasks: dict[str, Task] = {}
        self.builder = EpisodeBuilder(self.tasks, in_history=job.in_history,
                                      extra_hooks=job.extra_hooks)
        self._checked: set[str] = set()
        self.models: dict[str, Model] = {}
        self.executor: EpisodeExecutor | None = None
        self.stages = _stage_recorder(job, self.tasks)

    async def __aenter__(self) -> WorkerEngine:
        job = self.job
        if job.agent is not None:
            self.executor = self._prebuilt if self._prebuilt is not None else job.agent()
        else:
            self.models = make_models(list(job.model_ids), workspace=None,
                                      suite=job.suite or Suite([], seed=0),
                                      model_options=job.model_options, use_cache=False)
            ready_models(self.models, job.limits, job.concurrency, open_clients=True)
            self.executor = NativeExecutor(
                self.models, seeded_configs(job.config), max_steps=job.max_steps,
                text_mode=job.text_mode,
                execute_leaked=job.execute_leaked,
                answer_on_step_limit=job.answer_on_step_limit)
        await self.executor.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.executor is not None:
            await self.executor.__aexit__(*exc)
        await close_models(self.models)

    def rate_limited(self) -> int:
        """429 answers this worker's models received so far."""
        return sum(int(getattr(m, "rate_limited", 0)) for m in self.models.values())

    async def run(self, unit: WorkUnit, task: Task) -> Trace:
        """One episode, exactly as the driver's own loop would run it."""
        assert self.executor is not None, "enter the engine first"
        self.tasks.setdefault(task.id, task)
        if unit.condition not in self._checked:  # the condition's hooks, once
            self.builder.check([unit])
            self._checked.add(unit.condition)
        env = self.builder.env(task)
        trace = await self.executor.run(unit, task, self.builder.hooks(unit, task), env)
        if env.failure is not None and trace.status != "error":
            trace = failed(trace, env.failure)
        return trace

    def stage_row(self, trace: Trace) -> tuple[Any, ...] | None:
        """`trace`'s stored stage row, or None for the driver to compute (no recorder, or
        the rules failed on it: the driver's own computation then fails as it would in
        a run without workers)."""
        if self.stages is None:
            return None
        try:
            return self.stages(trace)
        except Exception:
            return None


def _stage_recorder(job: WorkerJob, tasks: Mapping[str, Task]) -> StageRecorder | None:
    if job.stages is None:
        return None
    from agentprop.analysis._stored import STAGE_VERSION

    return job.stages.with_tasks(tasks) if job.stage_version == STAGE_VERSION else None


def warm_up(model_ids: tuple[str, ...], options: Mapping[str, Any],
            agent: Callable[[], EpisodeExecutor] | None = None) -> EpisodeExecutor | None:
    """Build each model once and drop it: its provider's SDK is imported (~0.5 s for
    openai) while the worker still waits for its job, not inside the run; so are the
    stage rules every trace's row is computed with (`WorkerJob.stages`). An external
    `agent` is built and returned, for the engine to run the job with (None when it
    failed: the job builds it again and reports the failure)."""
    import agentprop.analysis._stored  # noqa: F401
    from agentprop.models import get_model

    for mid in model_ids:
        with contextlib.suppress(Exception):
            get_model(mid, **options)
    if agent is not None:
        with contextlib.suppress(Exception):
            return agent()
    return None


def process_main(conn: Any, warm: tuple[str, ...] = (),
                 warm_options: Mapping[str, Any] | None = None,
                 agent: Callable[[], EpisodeExecutor] | None = None) -> None:
    """A `processes` worker: its `WorkerJob` first (it is spawned before the driver knows
    the run, so its imports overlap the driver's own start), then (id, unit, task, whether
    to compute the stage row) messages from `conn`, up to the job's concurrency of them
    run at once; it sends back (id, trace, 429s so far, stage row or None) or (id, None,
    error text, None). None on `conn` ends it. Ctrl-C is the driver's: the worker
    ignores SIGINT and is shut down by the driver."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    built = warm_up(warm, warm_options or {}, agent)
    try:
        job = conn.recv()
    except (EOFError, OSError):
        return
    if job is not None:
        asyncio.run(_serve(job, conn, built))


async def _serve(job: WorkerJob, conn: Any, agent: EpisodeExecutor | None = None) -> None:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[Any] = asyncio.Queue()
    send_lock = threading.Lock()

    def reader() -> None:  # blocking reads off the loop
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                msg = None
            loop.call_soon_threadsafe(inbox.put_nowait, msg)
            if msg is None:
                return

    def send(msg: Any) -> None:
        with send_lock:
            conn.send(msg)

    async def one(engine: WorkerEngine, key: int, unit: WorkUnit, task: Task,
                  row: bool) -> None:
        try:
            trace = await engine.run(unit, task)
            send((key, trace, engine.rate_limited(), engine.stage_row(trace) if row else None))
        except Exception as e:  # the driver reports the unit as lost, not half-stored
            send((key, None, f"{type(e).__name__}: {e}", None))

    threading.Thread(target=reader, daemon=True, name="agentprop-worker-reader").start()
    running: set[asyncio.Task[None]] = set()
    try:
        engine = WorkerEngine(job, agent)
        await engine.__aenter__()
    except Exception as e:
        send((-1, None, f"{type(e).__name__}: {e}", None))  # the driver fails the run
        return
    send((-1, os.getpid(), "", None))  # ready
    try:
        while (msg := await inbox.get()) is not None:
            t = asyncio.ensure_future(one(engine, *msg))
            running.add(t)
            t.add_done_callback(running.discard)
    finally:
        for t in list(running):
            t.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        await engine.__aexit__(None, None, None)


class RayEpisodeActor:
    """A `ray` worker: an async actor running many episodes on its own loop (made a
    Ray actor class by `_pool.RayPool`, so importing this module never imports ray).
    Created when the pool connects, it warms up as a process worker does (`warm`
    models, the `agent`) while the driver plans; `ready(job)` then starts the run."""

    def __init__(self, warm: tuple[str, ...] = (),
                 warm_options: Mapping[str, Any] | None = None,
                 agent: Callable[[], EpisodeExecutor] | None = None) -> None:
        self._agent = warm_up(warm, warm_options or {}, agent)
        self.engine: WorkerEngine | None = None

    async def ready(self, job: WorkerJob) -> int:
        if self.engine is None:
            engine = WorkerEngine(job, self._agent)
            await engine.__aenter__()
            self.engine = engine
        return os.getpid()

    async def run(self, unit: WorkUnit, task: Task, row: bool = False
                  ) -> tuple[Trace, int, tuple[Any, ...] | None]:
        assert self.engine is not None, "ready(job) first"
        trace = await self.engine.run(unit, task)
        return (trace, self.engine.rate_limited(),
                self.engine.stage_row(trace) if row else None)

    async def close(self) -> None:
        if self.engine is not None:
            await self.engine.__aexit__(None, None, None)
            self.engine = None
