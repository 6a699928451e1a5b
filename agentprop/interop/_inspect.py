"""A workspace's traces as Inspect AI `.eval` logs (`traces export --format inspect`), so a
run opens in Inspect View and Inspect's log tools read it.

One log per model × condition (Inspect's unit of a log is one task on one model): each
trace is one sample whose messages are the conversation the model saw, whose output is
the final answer and whose scores are the stored verdicts (the primary judge's first, so
its accuracy is the log's headline). Nothing is re-run or re-judged: a verdict a judge
left unscored is no score, and an error trace keeps its error.

The logs are written through inspect_ai's own log API (the ``inspect`` extra), imported
only when an export runs: `import agentprop` never loads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentprop.core import ErrorEvent, InjectionEvent, Message, ModelCallEvent, Trace
from agentprop.store import ExportError, Workspace

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ChatMessage
    from inspect_ai.scorer import Score

    from agentprop.analysis.stages import TaskLookup

INSTALL_HINT = "the inspect format needs inspect_ai: pip install 'agentprop[inspect]'"
STAGE_KEYS: tuple[str, ...] = (
    "opportunity", "no_tool_call", "S1", "S2", "corrected", "noticed", "noticed_kind", "S3",
    "recovered", "stopped_at",
)
"""The stage indicators (`agentprop.analysis.stages`) each sample's metadata carries."""


@dataclass(frozen=True)
class InspectLog:
    """One written log: where, what it holds, and its primary judge's accuracy."""

    path: Path
    model: str
    condition: str
    samples: int
    errors: int
    scored: int
    """Samples the primary judge scored (right or wrong)."""
    accuracy: float | None
    """The primary judge's share right among `scored` (None when none is scored)."""


def file_stem(model: str, condition: str) -> str:
    """`<model>__<condition>` with every character a file name may not safely hold as
    `-` (``sim/propagator``, ``p2:type_mismatch`` → ``sim-propagator__p2-type_mismatch``)."""
    safe = [re.sub(r"[^A-Za-z0-9._-]+", "-", part).strip(".-") or "x"
            for part in (model, condition)]
    return "__".join(safe)


def _stems(groups: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A distinct stem per group: two groups that sanitise alike get their hash appended."""
    counts: dict[str, int] = defaultdict(int)
    for g in groups:
        counts[file_stem(*g).lower()] += 1
    out = {}
    for g in groups:
        stem = file_stem(*g)
        if counts[stem.lower()] > 1:
            stem += "-" + hashlib.sha256("\x1f".join(g).encode()).hexdigest()[:8]
        out[g] = stem
    return out


def export_inspect(ws: Workspace, out_dir: str | Path, *, model: str | None = None,
                   run_id: str | None = None, condition: str | None = None,
                   tasks: TaskLookup | None = None) -> list[InspectLog]:
    """Write `out_dir/<model>__<condition>.eval` for every model × condition among the
    traces the filters select; `tasks` gives each sample its target (the task's reference
    answer). Each file is written beside its name and renamed into place."""
    try:
        from inspect_ai.log import write_eval_log
    except ImportError:
        raise ExportError(INSTALL_HINT) from None
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ExportError(f"output path {out} is not a folder")
    if not out.exists() and not out.parent.is_dir():
        raise ExportError(f"output folder {out.parent} does not exist")
    filters = {"model": model, "run_id": run_id, "condition": condition}
    rows = ws.trace_rows(**filters)
    if not rows:
        chosen = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in filters.items() if v)
        raise ExportError(f"no traces match {chosen}" if chosen else "no traces to export")
    groups = list(dict.fromkeys((r["model"], r["condition"]) for r in rows))
    stems = _stems(groups)
    verdicts = _verdicts(ws, {r["id"] for r in rows})
    primary = ws.primary_judge()
    try:
        out.mkdir(exist_ok=True)
    except OSError as e:
        raise ExportError(f"cannot create {out}: {e.strerror or e}") from None
    written = []
    for m, c in groups:
        traces = list(ws.iter_traces(model=m, condition=c, run_id=run_id))
        log, info = _eval_log(traces, m, c, verdicts, primary, tasks)
        path = out / f"{stems[(m, c)]}.eval"
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            write_eval_log(log, str(tmp), format="eval")
            os.replace(tmp, path)
        except OSError as e:
            raise ExportError(f"cannot write {path}: {e.strerror or e}") from None
        finally:
            tmp.unlink(missing_ok=True)
        written.append(InspectLog(path=path, model=m, condition=c, **info))
    return written


@dataclass(frozen=True)
class _Verdict:
    correct: bool | None
    members: dict[str, Any]
    rationale: str | None


def _verdicts(ws: Workspace, ids: set[str]) -> dict[str, dict[str, _Verdict]]:
    """trace id → judge → its stored verdict (members and one-line rationale included)."""
    rows = [r for r in ws.verdict_rows() if r[0] in ids]
    by_judge: dict[str, list[str]] = defaultdict(list)
    for tid, judge, _, _ in rows:
        by_judge[judge].append(tid)
    why = {j: ws.rationales(j, tids) for j, tids in by_judge.items()}
    out: dict[str, dict[str, _Verdict]] = defaultdict(dict)
    for tid, judge, correct, members in rows:
        out[tid][judge] = _Verdict(correct, members, why[judge].get(tid))
    return out


def _eval_log(traces: list[Trace], model: str, condition: str,
              verdicts: dict[str, dict[str, _Verdict]], primary: str,
              tasks: TaskLookup | None) -> tuple[EvalLog, dict[str, Any]]:
    """The log of one model × condition, and the numbers `InspectLog` reports."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec, EvalStats

    from agentprop import __version__
    from agentprop.analysis.stages import stage_table

    correct = {t.id: verdicts.get(t.id, {}).get(primary) for t in traces}
    stages = stage_table(traces, {k: v.correct for k, v in correct.items() if v is not None})
    samples = [
        _sample(t, verdicts.get(t.id, {}), primary, tasks, _plain(row))
        for t, row in zip(traces, stages.to_dict("records"), strict=True)
    ]
    runs = sorted({t.run_id for t in traces})
    starts = [t.started_at for t in traces]
    ends = [t.ended_at for t in traces if t.ended_at is not None]
    ident = hashlib.sha256("\x1f".join([*runs, model, condition]).encode()).hexdigest()[:22]
    spec = EvalSpec(
        eval_id=ident, run_id=",".join(runs), task_id=ident, created=min(starts).isoformat(),
        task="agentprop", task_display_name=f"agentprop {condition}",
        task_args={"condition": condition}, task_args_passed={"condition": condition},
        solver="agentprop", tags=["agentprop", condition],
        dataset=EvalDataset(name="agentprop", samples=len(samples),
                            sample_ids=[t.id for t in traces]),
        model=model, config=EvalConfig(), packages={"agentprop": __version__},
        metadata={"agentprop_version": __version__, "run_ids": runs, "model": model,
                  "condition": condition, "primary_judge": primary,
                  "simulated": any(t.simulated for t in traces)},
    )
    results, scored, accuracy = _results(samples, primary)
    stats = EvalStats(started_at=min(starts).isoformat(),
                      completed_at=max(ends).isoformat() if ends else "",
                      model_usage=_usage(traces, model))
    log = EvalLog(status="success", eval=spec, results=results, stats=stats, samples=samples)
    errors = sum(s.error is not None for s in samples)
    return log, {"samples": len(samples), "errors": errors, "scored": scored,
                 "accuracy": accuracy}


def _results(samples: Sequence[EvalSample], primary: str) -> tuple[Any, int, float | None]:
    """Each judge's accuracy over the samples it scored, the primary judge's first (the
    log's headline)."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    judges = sorted({j for s in samples for j in (s.scores or {})},
                    key=lambda j: (j != primary, j))
    scores = []
    head: tuple[int, float | None] = (0, None)
    for judge in judges:
        values = [s.scores[judge].value == "C" for s in samples
                  if s.scores and judge in s.scores]
        acc = sum(values) / len(values)
        scores.append(EvalScore(
            name=judge, scorer=judge, scored_samples=len(values),
            unscored_samples=len(samples) - len(values),
            metrics={"accuracy": EvalMetric(name="accuracy", value=acc)}))
        if judge == primary:
            head = (len(values), acc)
    results = EvalResults(total_samples=len(samples), completed_samples=len(samples),
                          scores=scores, metadata={"primary_judge": primary})
    return results, head[0], head[1]


def _usage(traces: Iterable[Trace], model: str) -> dict[str, Any]:
    """The log's token and cost totals, as Inspect keeps them per model."""
    from inspect_ai.model import ModelUsage

    tin = tout = 0
    cost = 0.0
    for t in traces:
        u = t.usage
        tin, tout, cost = tin + u.input_tokens, tout + u.output_tokens, cost + t.cost
    return {model: ModelUsage(input_tokens=tin, output_tokens=tout, total_tokens=tin + tout,
                              total_cost=cost)}


def _plain(row: Mapping[Any, Any]) -> dict[str, Any]:
    """A stage row's indicators as JSON values (pandas' missing values as None)."""
    import pandas as pd

    out: dict[str, Any] = {}
    for key in STAGE_KEYS:
        v = row.get(key)
        out[key] = None if v is None or pd.isna(v) else (v.item() if hasattr(v, "item") else v)
    return out


def _sample(trace: Trace, verdicts: dict[str, _Verdict], primary: str,
            tasks: TaskLookup | None, stages: dict[str, Any]) -> EvalSample:
    """One trace as an Inspect sample."""
    from inspect_ai.log import EvalError, EvalSample, EvalSampleLimit
    from inspect_ai.model import ModelOutput, ModelUsage

    task = tasks.get(trace.task_id) if tasks is not None else None
    # an imported trace may record no conversation: its task's query is the question
    question = next((m.content or "" for m in trace.messages if m.role == "user"),
                    task.query if task is not None else "")
    final = trace.final
    answer = final.answer if final is not None else None
    output = (ModelOutput.from_content(trace.model, answer) if answer is not None
              else ModelOutput(model=trace.model))
    failure = next((e for e in reversed(trace.events) if isinstance(e, ErrorEvent)), None)
    error = limit = None
    if trace.status != "ok":
        message = (f"{failure.kind}: {failure.message}" if failure is not None
                   else trace.status)
        error = EvalError(message=message, traceback="", traceback_ansi="")
        if trace.status == "step_limit" and failure is not None:
            limit = EvalSampleLimit(type="turn", limit=failure.step)
    u = trace.usage
    ended = trace.ended_at
    return EvalSample(
        id=trace.id, epoch=1, input=question,
        target=task.reference_answer if task is not None else "",
        messages=_messages(trace), output=output,
        scores=_scores(verdicts, answer, primary) or None,
        metadata=_metadata(trace, stages),
        model_usage={trace.model: ModelUsage(
            input_tokens=u.input_tokens, output_tokens=u.output_tokens,
            total_tokens=u.input_tokens + u.output_tokens, total_cost=trace.cost)},
        started_at=trace.started_at.isoformat(),
        completed_at=ended.isoformat() if ended is not None else None,
        total_time=_seconds(trace.started_at, ended),
        error=error, limit=limit,
    )


def _seconds(start: datetime, end: datetime | None) -> float | None:
    """The episode's wall time (None when it never ended)."""
    return None if end is None else round((end - start).total_seconds(), 3)


def _scores(verdicts: dict[str, _Verdict], answer: str | None,
            primary: str) -> dict[str, Score]:
    """Every judge's scored verdict as `C`/`I` (Inspect's correct/incorrect), the primary
    judge's first; an unscored verdict is no score, never a wrong one."""
    from inspect_ai.scorer import Score

    out: dict[str, Score] = {}
    for judge in sorted(verdicts, key=lambda j: (j != primary, j)):
        v = verdicts[judge]
        if v.correct is None:
            continue
        out[judge] = Score(value="C" if v.correct else "I", answer=answer,
                           explanation=v.rationale,
                           metadata={"members": v.members} if v.members else None)
    return out


def _metadata(trace: Trace, stages: dict[str, Any]) -> dict[str, Any]:
    """What a reader of the sample needs to place it in the study."""
    final = trace.final
    injection = next((e for e in trace.events if isinstance(e, InjectionEvent)), None)
    meta: dict[str, Any] = {
        "run_id": trace.run_id, "task_id": trace.task_id, "domain": trace.domain,
        "split": trace.split, "difficulty": trace.difficulty, "condition": trace.condition,
        "seed": trace.seed, "arm": trace.arm, "status": trace.status,
        "simulated": trace.simulated,
        "abstained": bool(final and final.abstained),
        "abstain_reason": final.reason if final and final.abstained else None,
        "forced_answer": bool(final and final.forced),
        "model_calls": sum(isinstance(e, ModelCallEvent) for e in trace.events),
        "injection": None if injection is None else injection.model_dump(
            mode="json", include={"protocol", "error_type", "status", "call_id", "tool",
                                  "param", "original", "injected", "removed",
                                  "call_index"}),
        "stages": stages,
    }
    return meta


def _messages(trace: Trace) -> list[ChatMessage]:
    """The conversation the model saw, as Inspect chat messages: calls keep their ids, so
    each tool message answers its call."""
    return [_message(m, trace.model) for m in trace.messages]


def _message(m: Message, model: str) -> ChatMessage:
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
        ContentReasoning,
        ContentText,
    )
    from inspect_ai.tool import ToolCall, ToolCallError

    text = m.content or ""
    if m.role == "system":
        return ChatMessageSystem(content=text)
    if m.role == "user":
        return ChatMessageUser(content=text)
    if m.role == "tool":
        failure = _tool_error(text)
        return ChatMessageTool(
            content=text, tool_call_id=m.tool_call_id, function=m.name,
            error=None if failure is None else ToolCallError("unknown", failure))
    calls = [ToolCall(id=c.id, function=c.name, arguments=dict(c.arguments))
             for c in m.tool_calls]
    content: Any = text
    if m.reasoning:
        content = [ContentReasoning(reasoning=m.reasoning), ContentText(text=text)]
    return ChatMessageAssistant(content=content, tool_calls=calls or None, model=model,
                                source="generate")


def _tool_error(text: str) -> str | None:
    """The message of a tool result that is an ``error`` object, else None."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or "error")
    return str(err) if err else None
