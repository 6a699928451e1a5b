"""An LLM classifier for `noticed` (`--noticed llm:MODEL`): asking it, and storing what it
read so the analysis stays pure.

`agentprop judge --noticed llm:MODEL` reads, per trace, the outputs the detector reads
(`analysis.stages.noticing_items`, in order) and asks the model about each until one shows
a sign or is unscored (as `notice` stops there), storing one `core.NoticedReading` per
output asked. Readings already stored are not asked again (a rerun resumes); a transient
model failure is not stored (a rerun retries it). Model calls go through
`models.get_model` with the workspace as response cache, temperature 0, seed 0, a short
reply, as the LLM judge does (`_llm.py`). `stages`, `analyze` and `report --noticed
llm:MODEL` then read the stored readings (`stored_readings`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentprop._interrupts import run_interruptible
from agentprop._progress import WorkProgress
from agentprop.analysis.noticing import CallRelation, Where
from agentprop.analysis.stages import StoredNoticed, TextItem, noticing_items
from agentprop.core import NoticedReading, NoticedValue, UnknownNameError, did_you_mean
from agentprop.judges._base import TRANSIENT_KINDS
from agentprop.judges._noticed_prompt import build_noticed_messages, parse_noticed
from agentprop.judges._run import ABORT_AFTER, ABORT_KINDS, JudgeError, JudgeUnavailableError
from agentprop.models import GenerateConfig, Model, ModelError, get_model, split_model_id

if TYPE_CHECKING:
    from agentprop.store import Workspace

NOTICED_FORMS = "rules (the text rules, default) or llm:<provider/model> " \
    "(e.g. llm:sim-noticed/noisy, llm:local/smollm2-135m)"


def classifier_name(spec: str | None) -> str | None:
    """The classifier a `--noticed` value names: None for the text rules, else
    ``llm:<provider/model>``; UnknownNameError (with a did-you-mean) for anything else."""
    value = (spec or "rules").strip()
    if value == "rules":
        return None
    prefix, sep, model_id = value.partition(":")
    if prefix != "llm" or not sep:
        raise UnknownNameError(f"unknown --noticed {value!r}"
                               f"{did_you_mean(prefix, ['rules', 'llm'])}; valid: {NOTICED_FORMS}")
    try:
        split_model_id(model_id)
    except UnknownNameError as e:
        raise UnknownNameError(f"--noticed {value!r}: {e}; valid: {NOTICED_FORMS}") from None
    return f"llm:{model_id}"


def stored_readings(ws: Workspace, spec: str | None) -> StoredNoticed | None:
    """The stored readings `--noticed` names (None for the rules); JudgeError when the
    workspace holds none of that classifier."""
    name = classifier_name(spec)
    if name is None:
        return None
    readings = ws.noticed_readings(name)
    if not readings:
        known = ws.noticed_classifiers()
        raise JudgeError(
            f"no noticed readings by {name} in {ws.path}{did_you_mean(name, known)} "
            f"(stored: {', '.join(known) or 'none'}); run `agentprop judge -w {ws.path} "
            f"--noticed {name}` first")
    return StoredNoticed(name, readings)


@dataclass(frozen=True)
class Asked:
    """One reply: the reading (None when the call failed transiently: nothing to store)."""

    reading: NoticedValue | None
    raw: dict[str, Any]
    cost: float = 0.0
    cached: bool = False
    error_kind: str | None = None


class NoticedClassifier:
    """One model asked the rule's question about one text; strict one-word parse."""

    def __init__(self, model: Model, *, max_tokens: int = 8) -> None:
        self.model = model
        self.name = f"llm:{model.id}"
        self.config = GenerateConfig(temperature=0.0, max_tokens=max_tokens, seed=0)

    async def ask(self, text: str, where: Where, call: CallRelation) -> Asked:
        """The model's reading of `text` at its place (``unscored`` for a reply that is
        not an allowed answer, or a failure of a non-transient kind)."""
        try:
            out = await self.model.generate(build_noticed_messages(text, where, call), [],
                                            self.config)
        except ModelError as e:
            raw = {"error": {"kind": e.kind, "message": e.message, "attempts": e.attempts}}
            transient = e.kind in TRANSIENT_KINDS
            return Asked(None if transient else "unscored", raw, error_kind=e.kind)
        return Asked(parse_noticed(out.text, where, call),
                     {"output": out.text, "cached": out.cached}, out.cost, out.cached)


def make_classifier(spec: str, *, cache: Any = None,
                    model_options: dict[str, Any] | None = None) -> NoticedClassifier:
    """The classifier `--noticed llm:MODEL` names (a UnknownNameError for the rules)."""
    name = classifier_name(spec)
    if name is None:
        raise UnknownNameError("`judge --noticed rules` has nothing to store (the rules run "
                               "in the analysis); give --noticed llm:<provider/model>, e.g. "
                               "llm:sim-noticed/noisy")
    opts = dict(model_options or {})
    if cache is not None:
        opts.setdefault("cache", cache)
    return NoticedClassifier(get_model(name.removeprefix("llm:"), **opts))


@dataclass
class NoticedSummary:
    """What one `judge --noticed` pass did."""

    classifier: str
    traces: int = 0
    """Traces with at least one text to read."""
    asked: int = 0
    """Readings asked of the model (cached replies included)."""
    reused: int = 0
    """Readings already stored, not asked again."""
    unscored: int = 0
    """New readings that are unscored."""
    failed: int = 0
    """Transient failures, not stored (a rerun retries them)."""
    cached: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    """New readings per value."""


class _Reader:
    def __init__(self, ws: Workspace, clf: NoticedClassifier) -> None:
        self.ws, self.clf = ws, clf
        self.stored = ws.noticed_readings(clf.name)
        self.summary = NoticedSummary(clf.name)
        self.successes = 0
        self.failures = 0
        self.abort: str | None = None

    async def trace(self, trace_id: str, items: list[TextItem]) -> None:
        new: list[NoticedReading] = []
        for item in items:
            value = self.stored.get((trace_id, item.output))
            if value is not None:
                self.summary.reused += 1
            else:
                asked = await self.clf.ask(item.text, item.where, item.call)
                if asked.reading is None:
                    self._failed(asked)
                    break
                self.successes += "output" in asked.raw
                value = asked.reading
                new.append(self._record(trace_id, item, asked))
            if value != "none":
                break
        self.ws.put_noticed_readings(new)

    def _failed(self, asked: Asked) -> None:
        self.summary.failed += 1
        self.failures += asked.error_kind in ABORT_KINDS
        if self.successes == 0 and self.failures >= ABORT_AFTER and self.abort is None:
            self.abort = (f"noticed classifier {self.clf.name} unreachable: "
                          f"{asked.raw['error']['message']} ({self.failures} calls failed, "
                          "none succeeded)")

    def _record(self, trace_id: str, item: TextItem, asked: Asked) -> NoticedReading:
        s = self.summary
        s.asked += 1
        s.cached += asked.cached
        s.cost += asked.cost
        assert asked.reading is not None
        s.unscored += asked.reading == "unscored"
        s.counts[asked.reading] = s.counts.get(asked.reading, 0) + 1
        return NoticedReading(trace_id=trace_id, output=item.output, classifier=self.clf.name,
                              reading=asked.reading, where=item.where, call=item.call,
                              raw=asked.raw, cost=asked.cost)


def _work(ws: Workspace) -> Iterator[tuple[str, list[TextItem]]]:
    for trace in ws.iter_traces():
        items = noticing_items(trace)
        if items:
            yield trace.id, items


async def aread_noticed(ws: Workspace, spec: str, *, concurrency: int = 4,
                        progress: bool = True, use_cache: bool = True,
                        model_options: dict[str, Any] | None = None) -> NoticedSummary:
    """Async form of `read_noticed`."""
    clf = make_classifier(spec, cache=ws if use_cache else None, model_options=model_options)
    reader = _Reader(ws, clf)
    todo = list(_work(ws))
    reader.summary.traces = len(todo)
    queue: asyncio.Queue[tuple[str, list[TextItem]]] = asyncio.Queue()
    for it in todo:
        queue.put_nowait(it)
    bar = WorkProgress("noticed", len(todo), enabled=progress)
    done = 0
    t0 = time.perf_counter()

    async def worker() -> None:
        nonlocal done
        while reader.abort is None and not queue.empty():
            trace_id, items = queue.get_nowait()
            await reader.trace(trace_id, items)
            done += 1
            bar.update(done, f"asked {reader.summary.asked}")

    bar.start()
    try:
        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    finally:
        bar.stop()
    reader.summary.seconds = time.perf_counter() - t0
    if reader.abort is not None:
        raise JudgeUnavailableError(reader.abort)
    return reader.summary


def read_noticed(ws: Workspace, spec: str, *, concurrency: int = 4, progress: bool = True,
                 use_cache: bool = True, model_options: dict[str, Any] | None = None
                 ) -> NoticedSummary:
    """Ask the classifier `spec` (``llm:MODEL``) about every trace's texts that lack a
    stored reading, and store its readings (module docstring). SIGTERM, like Ctrl-C,
    keeps every stored reading."""
    return run_interruptible(aread_noticed(ws, spec, concurrency=concurrency,
                                           progress=progress, use_cache=use_cache,
                                           model_options=model_options))
