"""The driver side of `--executor processes|ray`: episodes run in worker processes (a
local pool, or Ray actors on one machine or a cluster) and come back as finished traces.

`run_units` stays the single writer: it plans, skips stored units, holds the run lock,
applies the cost guard and writes every trace; a pool only ships (unit, task) to the
least busy worker and awaits its `Trace`. When the driver's writer falls behind, the
worker also computes the trace's stored stage row (`Finished`): the rules that read a
trace cost more CPU than the episode's own client, and a driver reading every trace
caps a cluster at its one core; on one machine it usually keeps up, and reading the
traces there keeps that CPU off the workers' episode loops. Each worker runs an asyncio
loop with many episodes in flight (the run's concurrency C is split across the workers),
so C/L is reached with the client's CPU of several cores, not one.

A worker that dies loses its units in flight: they are never written (a trace exists
only once it is back in the driver), not retried, and counted in `RunSummary.lost`; the
run goes on with the surviving workers, and a rerun of the same command runs exactly the
lost units (resume). Rate limits are divided evenly between the workers (each worker's
models get rpm/W and tpm/W). Ray is imported only when a Ray pool starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import os
import pickle
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from agentprop.core import ModelCallEvent, Task, Trace, WorkUnit
from agentprop.models import GenerateConfig, RateLimits
from agentprop.runner._errors import RunError
from agentprop.runner._worker import RayEpisodeActor, WorkerJob, process_main
from agentprop.suite import Suite

if TYPE_CHECKING:
    from agentprop.analysis._stored import StageRecorder

EXECUTORS = ("asyncio", "processes", "ray")
READY_TIMEOUT_S = 120.0
"""How long a worker may take to start (spawn, imports, models) before the run fails."""
RAY_MAX_CONCURRENCY = 100_000
"""A Ray actor's bound on concurrent calls: above any run's share, since the actors are
created before the run's concurrency is known (the driver's loops bound it)."""


class WorkerLost(Exception):
    """The worker running a unit died (or failed outside the episode): no trace."""


class Finished(NamedTuple):
    """A unit's trace as a worker sent it back, with its stage row (None: the worker
    did not compute it, the driver does)."""

    trace: Trace
    row: tuple[Any, ...] | None


def share(limits: Mapping[str, RateLimits], workers: int) -> dict[str, RateLimits]:
    """Each worker's part of the run's rate limits: rpm/W and tpm/W."""
    return {m: RateLimits(rpm=None if lim.rpm is None else lim.rpm / workers,
                          tpm=None if lim.tpm is None else lim.tpm / workers)
            for m, lim in limits.items() if lim.any}


class WorkerPool:
    """Runs whole units in workers; `run_units` uses one in place of an EpisodeExecutor.

    `agent` builds an external agent's executor in each worker (picklable, e.g. a
    `functools.partial` of a module-level function); None runs the native loop over
    models the worker builds from the unit's model id. `reached` is the pre-flight test
    of a trace (default: a model call was made)."""

    kind = "pool"

    def __init__(self, workers: int | None = None, *,
                 agent: Callable[[], Any] | None = None,
                 reached: Callable[[Trace], bool] | None = None) -> None:
        if workers is not None and workers < 1:
            raise RunError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.agent = agent
        self._reached = reached
        self._limited: dict[int, int] = {}
        self._busy: dict[int, int] = {}
        self._dead: set[int] = set()

    @property
    def rate_limited(self) -> int:
        """429 answers the workers' models received (as last reported by each)."""
        return sum(self._limited.values())

    def reached(self, trace: Trace) -> bool:
        if self._reached is not None:
            return self._reached(trace)
        return any(isinstance(ev, ModelCallEvent) for ev in trace.events)

    def size(self) -> int:
        """How many workers the pool will start (known before it starts)."""
        return self.workers or os.cpu_count() or 1

    def _pick(self) -> int:
        alive = [w for w in self._busy if w not in self._dead]
        if not alive:
            raise WorkerLost("no worker is left")
        return min(alive, key=lambda w: self._busy[w])

    async def start(self, job: WorkerJob) -> None:
        raise NotImplementedError

    async def run_unit(self, unit: WorkUnit, task: Task, *, row: bool = False) -> Finished:
        """Run `unit` in a worker; with `row`, the worker also computes its stage row."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


@dataclasses.dataclass
class _Proc:
    process: Any
    conn: Any
    pending: dict[int, asyncio.Future[Any]] = dataclasses.field(default_factory=dict)
    pid: int = 0


class ProcessPool(WorkerPool):
    """`--executor processes [--workers N]`: N spawned processes on this machine."""

    kind = "processes"

    def __init__(self, workers: int | None = None, *, warm: tuple[str, ...] = (),
                 warm_options: Mapping[str, Any] | None = None, **kw: Any) -> None:
        super().__init__(workers, **kw)
        self.warm = warm
        """Model ids each worker builds once when it is spawned (`_worker.warm_up`); an
        external agent (`agent`) is built then too."""
        self.warm_options = dict(warm_options or {})
        self._procs: list[_Proc] = []
        self._keys = itertools.count()
        self._lock = threading.Lock()

    def pids(self) -> list[int]:
        """The worker processes' ids (tests kill one)."""
        return [p.pid for p in self._procs]

    def connect(self) -> None:
        """Spawn the workers now (they import agentprop while the driver loads the suite
        and plans); `start` sends them the run. Called by `run` before the workspace."""
        import multiprocessing

        if self._procs:
            return
        ctx = multiprocessing.get_context("spawn")  # no fork of a threaded driver
        for i in range(self.size()):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=process_main,
                               args=(child, self.warm, self.warm_options, self.agent),
                               daemon=True,
                               name=f"agentprop-worker-{i}")
            proc.start()
            child.close()  # so the driver sees EOF when the worker dies
            self._procs.append(_Proc(proc, parent))
            self._busy[i], self._limited[i] = 0, 0

    async def start(self, job: WorkerJob) -> None:
        try:
            blob = pickle.dumps(job)
        except Exception as e:
            raise RunError(f"this run cannot be sent to worker processes ({e}); models "
                           "or hooks given as Python objects need --executor asyncio") from None
        self.connect()
        loop = asyncio.get_running_loop()
        ready: list[asyncio.Future[Any]] = []
        for i, p in enumerate(self._procs):
            ready.append(fut := loop.create_future())  # its ready message
            p.pending[-1] = fut  # (a worker already dead fails it at once: `_died`)
            threading.Thread(target=self._read, args=(i, loop), daemon=True,
                             name=f"agentprop-pool-reader-{i}").start()
            try:
                p.conn.send_bytes(blob)  # as conn.send(job) would, pickled once
            except OSError:
                self._died(i)
        for p, fut in zip(self._procs, ready, strict=True):
            try:
                p.pid = int(await asyncio.wait_for(fut, READY_TIMEOUT_S))
            except (WorkerLost, TimeoutError) as e:
                await self.close()
                raise RunError(f"a worker process did not start: {e}") from None

    def _read(self, i: int, loop: asyncio.AbstractEventLoop) -> None:
        """Hand each message of worker `i` to its unit's future; at EOF, lose the rest."""
        p = self._procs[i]
        while True:
            try:
                key, trace, extra, row = p.conn.recv()
            except (EOFError, OSError, pickle.UnpicklingError):
                with contextlib.suppress(RuntimeError):  # the run's loop already closed
                    loop.call_soon_threadsafe(self._died, i)
                return
            try:
                loop.call_soon_threadsafe(self._settle, i, key, trace, extra, row)
            except RuntimeError:
                return

    def _settle(self, i: int, key: int, trace: Any, extra: Any, row: Any) -> None:
        fut = self._procs[i].pending.pop(key, None)
        if fut is None or fut.done():
            return
        if trace is None:
            fut.set_exception(WorkerLost(str(extra) or "the worker failed"))
            return
        if key >= 0:
            self._limited[i] = int(extra)
            fut.set_result(Finished(trace, row))
        else:
            fut.set_result(trace)  # ready: the worker's pid

    def _died(self, i: int) -> None:
        self._dead.add(i)
        p = self._procs[i]
        code = p.process.exitcode
        for fut in p.pending.values():
            if not fut.done():
                fut.set_exception(WorkerLost(f"worker {p.pid or i} died (exit code {code})"))
        p.pending.clear()

    async def run_unit(self, unit: WorkUnit, task: Task, *, row: bool = False) -> Finished:
        i = self._pick()
        p = self._procs[i]
        key = next(self._keys)
        fut: asyncio.Future[Finished] = asyncio.get_running_loop().create_future()
        p.pending[key] = fut
        self._busy[i] += 1
        try:
            try:
                p.conn.send((key, unit, task, row))
            except (OSError, ValueError):
                self._died(i)
            return await fut
        finally:
            self._busy[i] -= 1
            p.pending.pop(key, None)

    async def close(self) -> None:
        """Ask each worker to stop; a reaper thread kills what still runs 5 s later. The
        run does not wait for it (a worker's exit is its own business once every trace
        is back), and the workers are daemons: they never outlive the driver."""
        for p in self._procs:
            with contextlib.suppress(Exception):
                p.conn.send(None)
        procs = list(self._procs)

        def reap() -> None:
            for p in procs:
                p.process.join(5)
                if p.process.is_alive():
                    p.process.kill()
                    p.process.join(5)
                with contextlib.suppress(Exception):
                    p.conn.close()

        threading.Thread(target=reap, daemon=True, name="agentprop-pool-reaper").start()
        for i in range(len(self._procs)):
            self._dead.add(i)


def check_ray_address(address: str) -> None:
    """A HOST:PORT that nothing answers on, refused in 2 s (ray.init would retry for
    minutes); `auto` and `ray://` addresses are left to Ray."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise RunError(f"invalid --ray-address {address!r}: expected HOST:PORT, auto or "
                       "ray://HOST:PORT")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=2.0):
            return
    except OSError as e:
        raise RunError(f"no Ray cluster answers at {address} ({e.strerror or e})") from None


class RayPool(WorkerPool):
    """`--executor ray [--ray-address ADDR]`: async Ray actors, one per CPU of the
    cluster (or `workers`); without an address, a local instance with this machine's
    cores. A Ray instance already running in this process (tests) is reused."""

    kind = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None, *,
                 warm: tuple[str, ...] = (), warm_options: Mapping[str, Any] | None = None,
                 **kw: Any) -> None:
        super().__init__(workers, **kw)
        self.address = address
        self.warm = warm
        """Model ids each actor builds once when it is created (as `ProcessPool.warm`)."""
        self.warm_options = dict(warm_options or {})
        self._actors: list[Any] = []
        self._started_ray = False

    def connect(self) -> None:
        """Join (or start) Ray and create the actors, which import agentprop and build the
        run's models or agent while the driver loads the suite and plans; RunError (one
        line) when Ray cannot be reached."""
        self._join()
        if self._actors:
            return
        import ray

        n = self.size()
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        actor_cls = ray.remote(RayEpisodeActor).options(
            max_concurrency=RAY_MAX_CONCURRENCY, num_cpus=min(1.0, cpus / n), max_restarts=0)
        for i in range(n):
            self._actors.append(actor_cls.remote(self.warm, self.warm_options, self.agent))
            self._busy[i], self._limited[i] = 0, 0

    def _join(self) -> None:
        """Join (or start) Ray; RunError (one line) when it cannot be reached."""
        try:
            import ray
        except ImportError:
            raise RunError("--executor ray needs Ray: pip install 'agentprop[ray]'") from None
        if self.address:
            check_ray_address(self.address)
        if ray.is_initialized():
            return
        try:
            ray.init(address=self.address or None,
                     num_cpus=None if self.address else (os.cpu_count() or 1),
                     include_dashboard=False, logging_level=logging.WARNING,
                     log_to_driver=False, configure_logging=True)
        except Exception as e:
            raise RunError(f"cannot start or join Ray: {e}".splitlines()[0]) from None
        self._started_ray = True

    def size(self) -> int:
        if self.workers:
            return self.workers
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def actors(self) -> list[Any]:
        """The actors' handles (tests kill one with ray.kill)."""
        return list(self._actors)

    async def start(self, job: WorkerJob) -> None:
        self.connect()
        try:
            await asyncio.wait_for(asyncio.gather(*(a.ready.remote(job) for a in self._actors)),
                                   READY_TIMEOUT_S)
        except Exception as e:
            await self.close()
            raise RunError(f"a Ray worker did not start: {e}".splitlines()[0]) from None

    async def run_unit(self, unit: WorkUnit, task: Task, *, row: bool = False) -> Finished:
        import ray

        i = self._pick()
        self._busy[i] += 1
        try:
            trace, limited, stage_row = await self._actors[i].run.remote(unit, task, row)
        except ray.exceptions.RayActorError as e:
            self._dead.add(i)
            raise WorkerLost(f"Ray worker {i} died: {type(e).__name__}") from None
        except ray.exceptions.RayError as e:
            raise WorkerLost(str(e).splitlines()[0]) from None
        finally:
            self._busy[i] -= 1
        self._limited[i] = int(limited)
        return Finished(trace, stage_row)

    async def close(self) -> None:
        import ray

        async def stop(a: Any) -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(a.close.remote(), 5)
            with contextlib.suppress(Exception):
                ray.kill(a)

        await asyncio.shield(asyncio.gather(*(stop(a) for a in self._actors)))
        self._dead.update(range(len(self._actors)))
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False


def make_pool(kind: str, *, workers: int | None = None, ray_address: str | None = None,
              agent: Callable[[], Any] | None = None,
              reached: Callable[[Trace], bool] | None = None,
              warm: tuple[str, ...] = (),
              warm_options: Mapping[str, Any] | None = None) -> WorkerPool | None:
    """The pool of `--executor KIND` (None for asyncio); RunError for an unknown kind.
    `warm`: model ids a pool's workers build once when they start."""
    if kind == "asyncio":
        if ray_address:
            raise RunError("--ray-address needs --executor ray")
        return None
    if kind == "processes":
        if ray_address:
            raise RunError("--ray-address needs --executor ray")
        return ProcessPool(workers, agent=agent, reached=reached, warm=warm,
                           warm_options=warm_options)
    if kind == "ray":
        return RayPool(ray_address, workers, agent=agent, reached=reached, warm=warm,
                       warm_options=warm_options)
    import difflib

    near = difflib.get_close_matches(kind, EXECUTORS, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise RunError(f"unknown executor {kind!r}: use {', '.join(EXECUTORS)}{hint}")


def worker_job(pool: WorkerPool, units: Sequence[WorkUnit], suite: Suite,
               models: Mapping[str, Any], model_options: Mapping[str, Any],
               config: GenerateConfig, *, concurrency: int, limits: Mapping[str, RateLimits],
               stages: StageRecorder | None = None, **settings: Any) -> WorkerJob:
    """What every worker of `pool` needs for `units`: the run's settings, its share of
    the concurrency and of the rate limits, the suite only when an in-process
    simulated model looks tasks up in it (else the tasks travel with the units), and
    the run's stage rules (`stages`) without the suite."""
    n = pool.size()
    needs_suite = pool.agent is None and any(
        getattr(m, "simulated", False) and not getattr(m, "base_url", None)
        for m in models.values())
    return WorkerJob(
        model_ids=tuple(dict.fromkeys(u.model for u in units)) if pool.agent is None else (),
        model_options={k: v for k, v in model_options.items() if k not in ("suite", "cache")},
        config=config, concurrency=max(1, -(-concurrency // n)),
        suite=suite if needs_suite else None, limits=share(limits, n), agent=pool.agent,
        stages=None if stages is None else stages.portable(),
        stage_version=None if stages is None else _stage_version(), **settings)


def _stage_version() -> int:
    from agentprop.analysis._stored import STAGE_VERSION

    return STAGE_VERSION
