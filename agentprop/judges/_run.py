"""Judging a whole workspace: resumable, concurrent, batched writes, cost shown.

Rules (docs/judges.md):
- a trace that already has a verdict of a judge is skipped (so a rerun resumes), unless that
  verdict is marked ``retry`` (an agreement judge's "no clean pair yet"): it is redone;
- a trace whose status is not ``ok`` (provider error, step limit) gets an unscored verdict
  with the reason, without calling any model; a trace whose task is not in the suite too;
- a model failure of a transient kind (connection, timeout, rate limit, server, auth) is
  not a verdict: it is counted as ``failed`` and not written, so a rerun retries it;
- if the first calls of a run all fail with connection / auth / timeout errors (no call has
  succeeded yet), the model is unreachable: the run stops with JudgeUnavailableError, and
  the LLM judges' verdicts held until a first call succeeds are dropped;
- verdicts are written as they finish, through the same batching writer `run` uses
  (`store.VerdictWriter`: whole rows, one transaction per batch, flushed every
  `FLUSH_S`): Ctrl-C keeps every finished verdict, a kill -9 loses at most the calls in
  flight and the last `FLUSH_S` of verdicts.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from agentprop._interrupts import checkpoint, run_interruptible
from agentprop._progress import WorkProgress
from agentprop.core import DEFAULT_PRIMARY_JUDGE, Trace, Verdict
from agentprop.errors import AgentpropError
from agentprop.judges._base import Judge, verdicts_for
from agentprop.judges._entities import Vocabulary, query_vocabulary
from agentprop.judges._lookup import canonical_name, get_judge
from agentprop.judges._pending import pending_items
from agentprop.judges._processes import PROCESS_KINDS, ProcessJudging
from agentprop.store import VerdictWriter

if TYPE_CHECKING:
    from agentprop.store import Workspace
    from agentprop.suite import Suite

ABORT_KINDS = frozenset({"connection", "auth", "timeout"})
ABORT_AFTER = 5
BATCH = 200
FLUSH_S = 0.2


class JudgeError(AgentpropError):
    """A judging request that cannot be carried out; one line for the user."""


class JudgeUnavailableError(JudgeError):
    """The judge's model could not be reached at all; nothing of the failed batch written."""

    exit_code = 1


class JudgeStats(BaseModel):
    judge: str
    pending: int = 0
    written: int = 0
    correct: int = 0
    incorrect: int = 0
    unscored: int = 0
    failed: int = 0
    model_calls: int = 0
    cached_calls: int = 0
    cost: float = 0.0


class JudgeSummary(BaseModel):
    judges: dict[str, JudgeStats] = Field(default_factory=dict)
    traces: int = 0
    primary: str = DEFAULT_PRIMARY_JUDGE

    @property
    def failed(self) -> int:
        return sum(s.failed for s in self.judges.values())

    @property
    def model_calls(self) -> int:
        return sum(s.model_calls for s in self.judges.values())


def _llm_level(judge: Judge, verdicts: list[Verdict]) -> list[Verdict]:
    """The verdicts that correspond to one model call each."""
    if judge.kind == "ensemble":
        return verdicts[1:]
    return verdicts if judge.kind == "llm" else []


class _Runner:
    def __init__(self, ws: Workspace, judges: list[Judge], suite: Suite, concurrency: int,
                 progress: bool, workers: int = 0) -> None:
        self.ws = ws
        self.judges = judges
        self.suite = suite
        self.concurrency = max(1, concurrency)
        self.progress = progress
        self.workers = workers
        self.done = 0
        self.bar = WorkProgress("judging", 0, enabled=False)
        self.stats = {j.name: JudgeStats(judge=j.name) for j in judges}
        self.writer: VerdictWriter | None = None
        self.held: list[Verdict] = []
        self.successes = 0
        self.consecutive = 0
        self.abort: str | None = None
        self.abort_after = ABORT_AFTER

    def _record(self, judge: Judge, verdicts: list[Verdict]) -> None:
        st = self.stats[judge.name]
        calls = _llm_level(judge, verdicts)
        transient = False
        for v in calls:
            raw = v.raw if isinstance(v.raw, dict) else {}
            err = raw.get("error")
            if isinstance(err, dict):
                transient = transient or bool(raw.get("transient"))
                if err.get("kind") in ABORT_KINDS:
                    self.consecutive += 1
                continue
            if "output" in raw:
                self.successes += 1
                self.consecutive = 0
                if raw.get("cached"):
                    st.cached_calls += 1
                else:
                    st.model_calls += 1
        if self.successes == 0 and self.consecutive >= self.abort_after and self.abort is None:
            first: dict[str, Any] = next((v.raw["error"] for v in calls if isinstance(v.raw, dict)
                          and isinstance(v.raw.get("error"), dict)), {})
            self.abort = (f"judge {judge.name} unreachable: {first.get('message', 'failed')} "
                          f"({self.consecutive} calls failed, none succeeded); nothing written "
                          "for the failed calls")
            return
        main = verdicts[0]
        if transient:
            st.failed += 1
            # complete member verdicts are kept; the ensemble verdict waits for a rerun
            keep = [v for v in verdicts[1:] if not (isinstance(v.raw, dict)
                                                   and v.raw.get("transient"))]
        else:
            keep = verdicts
            st.written += 1
            st.cost += main.cost
            if main.correct is None:
                st.unscored += 1
            elif main.correct:
                st.correct += 1
            else:
                st.incorrect += 1
        if judge.kind in ("llm", "ensemble") and self.successes == 0:
            self.held.extend(keep)  # until a model call succeeds: it may be unreachable
        else:
            self._release()
            self._write(keep)

    def _write(self, verdicts: list[Verdict]) -> None:
        assert self.writer is not None
        for v in verdicts:
            self.writer.put(v)

    def _release(self) -> None:
        held, self.held = self.held, []
        self._write(held)

    async def _one(self, trace: Trace, judge: Judge) -> None:
        verdicts = await verdicts_for(judge, trace, self.suite.get(trace.task_id))
        if self.abort is None:
            self._record(judge, verdicts)

    def _advance(self) -> None:
        self.done += 1
        self.bar.update(self.done, f"cost ${sum(s.cost for s in self.stats.values()):.4f}")

    async def run(self, run_ids: Sequence[str] | None = None) -> None:
        """Judge what lacks a verdict; with `run_ids`, only the traces of those runs. With
        `workers`, the in-process judges run in that many worker processes first."""
        total = 0
        for j in self.judges:
            # a verdict marked `retry` (made before the clean pair it needs was stored)
            # does not count as done: it is judged again and replaced
            self.stats[j.name].pending = self.ws.pending_count(j.name, run_ids)
            total += self.stats[j.name].pending
        self.abort_after = min(ABORT_AFTER, max(1, total))
        pooled = [j for j in self.judges if self.workers and j.kind in PROCESS_KINDS]
        rest = [j for j in self.judges if j not in pooled]
        self.bar = WorkProgress("judging", total, enabled=self.progress)
        self.writer = VerdictWriter(self.ws.path, batch_size=BATCH, interval_s=FLUSH_S)
        try:
            self.bar.start()
            try:
                if pooled:
                    await ProcessJudging(self.ws, self.suite, pooled, self.workers,
                                         self._record, self._advance
                                         ).run(pending_items(self.ws, pooled, run_ids))
                if rest:
                    await self._work(pending_items(self.ws, rest, run_ids))
            finally:
                self.bar.stop()
        finally:
            if self.abort is None:
                self._release()
            self.writer.close()  # everything finished is stored, also on Ctrl-C
        if self.abort is not None:
            raise JudgeUnavailableError(self.abort)

    async def _work(self, items: Iterator[tuple[str, list[Judge]]]) -> None:
        # Only a page of ids is held (`pending_items`); each worker loads its trace when it
        # gets to it, so judging a large workspace does not hold every trace in memory.
        async def worker() -> None:
            while self.abort is None:
                item = next(items, None)
                if item is None:
                    return
                trace_id, judges = item
                trace = self.ws.get_trace(trace_id)
                for judge in judges:
                    if self.abort is not None or trace is None:
                        break
                    await self._one(trace, judge)
                    self._advance()
                    await checkpoint()  # in-process judges never await: let Ctrl-C in

        await asyncio.gather(*(worker() for _ in range(self.concurrency)))


async def ajudge_workspace(
    workspace: Workspace,
    judge_names: Sequence[str],
    *,
    suite: Suite,
    primary: str | None = None,
    concurrency: int = 16,
    progress: bool = True,
    use_cache: bool = True,
    model_options: dict[str, Any] | None = None,
    run_ids: Sequence[str] | None = None,
    vocabulary: Callable[[], Vocabulary] | None = None,
    workers: int = 0,
) -> JudgeSummary:
    """Async form of `judge_workspace`."""
    names = list(dict.fromkeys(canonical_name(n) for n in judge_names))
    # one vocabulary for every judge of this run (built when first needed): the facts
    # judge and the sim judges then read each (task, answer) once between them
    if vocabulary is None:
        vocabulary = functools.cache(lambda: query_vocabulary(suite.tasks))
    judges = [
        get_judge(n, cache=workspace if use_cache else None, suite=suite,
                  model_options=model_options, vocabulary=vocabulary, workspace=workspace)
        for n in names
    ]
    primary_name = canonical_name(primary) if primary else None
    if primary_name and primary_name not in names and primary_name not in workspace.judges():
        raise JudgeError(f"primary judge {primary_name!r} has no verdicts and is not being "
                         "run; add it with --judge")
    runner = _Runner(workspace, judges, suite, concurrency, progress, workers)
    await runner.run(run_ids)
    if primary_name:
        workspace.update_meta(primary_judge=primary_name)
    return JudgeSummary(judges=runner.stats, traces=workspace.count_traces(),
                        primary=workspace.primary_judge())


def judge_workspace(
    workspace: Workspace,
    judge_names: Sequence[str],
    *,
    suite: Suite,
    primary: str | None = None,
    concurrency: int = 16,
    progress: bool = True,
    use_cache: bool = True,
    model_options: dict[str, Any] | None = None,
    run_ids: Sequence[str] | None = None,
    vocabulary: Callable[[], Vocabulary] | None = None,
    workers: int = 0,
) -> JudgeSummary:
    """Judge every trace of `workspace` (or of the runs `run_ids`) lacking a verdict of
    each named judge.

    `primary` is stored in meta ``primary_judge`` (readers default to ``facts``).
    `vocabulary` gives the suite's vocabulary (default: built once for this call); a
    caller that reads the answers again (the `fabricated` rule) shares its readings.
    `workers` > 0 runs the in-process judges (facts, heuristic) in that many worker
    processes (`_processes.py`), with the same verdicts; the others stay in this one.
    Raises JudgeUnavailableError when the judge model cannot be reached at all. SIGTERM,
    like Ctrl-C, stores every finished verdict and raises KeyboardInterrupt."""
    return run_interruptible(ajudge_workspace(
        workspace, judge_names, suite=suite, primary=primary, concurrency=concurrency,
        progress=progress, use_cache=use_cache, model_options=model_options,
        run_ids=run_ids, vocabulary=vocabulary, workers=workers))
