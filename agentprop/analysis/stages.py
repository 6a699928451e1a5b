"""Stage-level propagation: the per-trace stage table and the per-group propagation rates.

Both are pure functions. Stage indicators come only from a trace's structured events
(docs/injection.md defines each; docs/architecture.md, "The path of one work unit", shows
where they sit); a judge is consulted only for S3, through the `verdicts` mapping.

Per trace (`stage_table`):

- `opportunity`: the injector found a tool call with an eligible parameter (its
  `injection` event has status "applied").
- `no_tool_call`: the agent made no tool call at all, and tried none (its own outcome,
  never "rejection").
- `leaked_call`, `unknown_tool`, `bad_arguments`: the trace has a `call_issue` event of
  that kind (a call written as text, a call of a tool not offered, arguments that do not
  parse; docs/tool-call-outcomes.md), whatever else it did.
- `undelivered_call`: the agent tried to call a tool but no call arrived as one (call
  issues, and no structured call reached a tool): its own outcome, neither "no tool call"
  nor rejection.
- `S1`: applied, and the executed arguments of the targeted call differ from the proposed
  ones.
- `S2`: S1, and that call's observation differs from its counterfactual (the observation
  the proposed arguments produce on a copy of the state); validation errors count.
- `corrected`: S2, and a later call of the same tool re-issues the proposed call: the
  targeted parameter has its original value again and every other argument both calls
  set agrees (a later plan step that merely reuses the value — the same date for another
  city — is not a correction).
- `noticed`, `noticed_kind`: after the reference step (the corrupted call's observation;
  in a trace without injection, its first observation) the agent showed it saw a problem,
  and how (requery, verify, clarify, abstain, mention); see `agentprop.analysis.noticing`.
  <NA> / None when there is no reference step. Computed for baseline traces too: there it
  is a false alarm. With `readings` (an LLM classifier's stored readings, `agentprop
  judge --noticed llm:MODEL`) the texts are read from them instead of the text rules;
  structural requery still counts.
- `s2_withheld`: why S2 is <NA> for an applied injection whose counterfactual was not
  made (`ToolResultEvent.counterfactual_withheld`: the upstream tool may have side
  effects, so agentprop never called it a second time); None otherwise.
- `noticed_unscored`: `noticed` is <NA> because a reading it needed is unscored or not
  stored (only with `readings`): undefined, never "not noticed".
- `S3`: the final answer is wrong under the given verdicts (True = wrong; <NA> = unjudged
  or unscored). Computed for every trace, baseline included.
- `recovered`: S2 and the answer is right (not S3); <NA> without S2 or when unjudged.
- `stopped_at`: where the error stopped (`agentprop.analysis.outcomes`); None for baseline.
- `n_injected`: how many corruptions were applied (`p2:multi=K` places up to K; the stages
  follow the first).
- `turns_recorded`: the trace records the agent's model turns (False for an external
  agent without the gateway and for imported traces): without them `noticed` is <NA> and
  every rate that needs it is undefined with the reason `noticing.UNOBSERVABLE`.
- `fabricated`: the answer states a graded fact no observation supports
  (`agentprop.judges.FabricationRule`, passed in as `rule`); <NA> without a rule and a
  task lookup, or when the task has no checkable fact.
- `forced`: the answer came only when the agent, out of steps, was asked once more without
  tools (`FinalEvent.forced`); `model_calls`, `tool_calls`, `tokens`, `model_s`: the
  episode's model calls, executed tool calls, tokens and seconds inside the model.

Model-API faults (`api:*`) fault one model call, not a tool call: `S1` means the fault
reached the agent's client (an error, or a cut completion), `S2` that what the agent
ended up with for that call (`InjectionEvent.received`: the completion of its retry of
the same request when it retried, else what the fault delivered) differs from the real
completion (`original`, the counterfactual). A 429 or 500 the client retried into the
same completion is therefore S2 False: nothing of the fault survived. A retry folds into
S2, so `corrected` is False for them. `noticed` reads the agent's turns after the
completion it received for the faulted call (after the fault itself when it received
none).

Corrupted output (`out:*`) and failed calls (`fault:*`) leave the arguments alone: there
`S1` means the corrupted observation reached the agent (the call executed), `S2` that
what it saw differs from the true result (the counterfactual), and `corrected` that a
later call re-issued the same call (for a failure: a retry). So r_12 is 1 by
construction for them; their measurements are S2 onwards.

Baseline traces (no `injection` event) get opportunity/S1/S2/corrected False and
`error_type` None; `no_tool_call`, `S3` and `abstained` are computed as for any trace.
An injected trace whose targeted call has no counterfactual recorded gets S2/corrected
<NA> (the comparison cannot be made), never a guess. Imported traces carry
`Trace.release_stages`, whose non-missing keys override the event-derived values.
Stage columns use pandas' nullable "boolean" dtype.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from agentprop.analysis._stats import Resampler, WeightMemo, group_rng
from agentprop.analysis.noticing import (
    KINDS,
    UNOBSERVABLE,
    UNSCORED,
    CallRelation,
    Reading,
    TextReader,
    Where,
    notice,
    restores,
    turns_recorded,
)
from agentprop.analysis.outcomes import stopped_at
from agentprop.core import (
    CallIssueEvent,
    FinalEvent,
    InjectionEvent,
    ModelCallEvent,
    Task,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)

STAGE_COLUMNS: tuple[str, ...] = (
    "trace_id", "run_id", "model", "task_id", "domain", "split", "difficulty", "condition",
    "error_type", "target_param", "seed", "arm", "status", "simulated", "opportunity",
    "no_tool_call", "leaked_call", "unknown_tool", "bad_arguments", "undelivered_call",
    "S1", "S2", "corrected", "noticed", "noticed_kind", "S3", "recovered", "stopped_at",
    "abstained", "error", "n_injected", "fabricated", "turns_recorded", "forced",
    "model_calls", "tool_calls", "tokens", "model_s", "noticed_unscored", "s2_withheld",
)
_NULLABLE = ("opportunity", "no_tool_call", "S1", "S2", "corrected", "noticed", "S3",
             "recovered", "fabricated", "leaked_call", "unknown_tool", "bad_arguments",
             "undelivered_call")
OBSERVATION_LEVEL = frozenset({"out", "fault"})
"""Injection protocols that corrupt what the agent sees, not what it calls."""
API = "api"
"""Faults of the model API (`api:*`): what the agent's model call returned, not a tool's."""
_OVERRIDABLE = ("opportunity", "no_tool_call", "S1", "S2", "corrected")
TRACE_COLUMNS = ("trace_id", "run_id", "model", "task_id", "domain", "split", "difficulty",
                 "condition", "seed", "arm", "status", "simulated")
"""Stage columns that are the trace's own indexed columns (the store's `traces` table)."""
EVENT_COLUMNS: tuple[str, ...] = tuple(
    c for c in STAGE_COLUMNS
    if c not in TRACE_COLUMNS and c not in ("S3", "recovered", "stopped_at", "error"))
"""Stage columns computed from a trace's events (`event_stages`): what the store's stage
table holds. S3 (the primary judge's verdict), `recovered` and `stopped_at` (derived from
S3) and `error` (from the status) are set when the table is read."""


def _norm(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def _differs(a: Any, b: Any) -> bool:
    return bool(a != b) and _norm(a) != _norm(b)


def _error_type(condition: str, injection: InjectionEvent | None) -> str | None:
    if injection is not None and injection.error_type:
        return injection.error_type
    prefix, sep, kind = condition.partition(":")
    return kind.partition("@")[0] if sep and prefix in ("p2", "out", "fault", API) and kind \
        else None


def _stages(trace: Trace, read: TextReader | None = None) -> dict[str, Any]:
    """Event-derived stage values of one trace (single pass over its events)."""
    injection: InjectionEvent | None = None
    n_injected = 0
    calls: list[tuple[int, ToolCallEvent]] = []
    results: list[tuple[int, ToolResultEvent]] = []
    final: FinalEvent | None = None
    issues: set[str] = set()
    model_calls, tokens, model_s = 0, 0, 0.0
    for i, ev in enumerate(trace.events):
        if isinstance(ev, ModelCallEvent):
            model_calls += 1
            tokens += ev.output.usage.input_tokens + ev.output.usage.output_tokens
            model_s += ev.output.latency_s
        elif isinstance(ev, CallIssueEvent):
            issues.add(ev.kind)
        elif isinstance(ev, ToolCallEvent):
            calls.append((i, ev))
        elif isinstance(ev, ToolResultEvent):
            results.append((i, ev))
        elif isinstance(ev, InjectionEvent):
            if ev.status == "applied":
                n_injected += 1
            # the target is the first applied corruption (else the not-applied record)
            if injection is None or (injection.status != "applied" and ev.status == "applied"):
                injection = ev
        elif isinstance(ev, FinalEvent):
            final = ev

    out: dict[str, Any] = {
        "error_type": _error_type(trace.condition, injection),
        "no_tool_call": not calls and not issues,
        "leaked_call": "leaked" in issues,
        "unknown_tool": "unknown_tool" in issues,
        "bad_arguments": "bad_arguments" in issues,
        "undelivered_call": not calls and bool(issues),
        "opportunity": False,
        "S1": False,
        "S2": False,
        "corrected": False,
        "abstained": bool(final.abstained) if final is not None else False,
        "forced": bool(final.forced) if final is not None else False,
        "model_calls": model_calls,
        "tool_calls": len(calls),
        "tokens": tokens,
        "model_s": model_s,
        "noticed": None,
        "noticed_kind": None,
        "target_param": None,
        "n_injected": n_injected,
        "turns_recorded": turns_recorded(trace),
        "noticed_unscored": False,
        "s2_withheld": None,
    }
    if injection is None:
        _set_noticing(out, trace, None, None, read)
        return out
    out["target_param"] = injection.param
    if injection.status != "applied":
        return out
    out["opportunity"] = True
    if injection.protocol == API:
        _api_stages(out, trace, injection, read)
        return out

    cid = injection.call_id
    target = next((r for r in results if cid and r[1].call_id == cid), None)
    if target is None:  # ids missing: the corrupted call is the one with a counterfactual
        target = next((r for r in results if r[1].counterfactual is not None), None)
    if target is None:  # applied but never executed (e.g. episode cut short)
        return out
    at, result = target
    if injection.protocol in OBSERVATION_LEVEL:
        _observation_stages(out, trace, injection, result, at, calls, read)
        return out
    proposed = next(
        (c.call.arguments for _, c in calls if cid and c.call.id == cid),
        None,
    )
    if proposed is None:
        proposed = {k: v for k, v in result.arguments.items() if k != injection.param}
        if injection.param is not None:
            proposed[injection.param] = injection.original
    _set_noticing(out, trace, injection, proposed, read)
    s1 = _differs(result.arguments, proposed)
    out["S1"] = s1
    if not s1:
        return out
    if result.counterfactual is None:
        out["S2"] = out["corrected"] = None
        out["s2_withheld"] = result.counterfactual_withheld
        return out
    s2 = _differs(result.observation, result.counterfactual)
    out["S2"] = s2
    if s2 and injection.param is not None:
        out["corrected"] = any(
            i > at and c.call.name == result.name
            and restores(c.call.arguments, proposed, injection.param)
            for i, c in calls
        )
    return out


def _observation_stages(out: dict[str, Any], trace: Trace, injection: InjectionEvent,
                        result: ToolResultEvent, at: int,
                        calls: list[tuple[int, ToolCallEvent]],
                        read: TextReader | None = None) -> None:
    """Stages of an observation-level corruption (see the module docstring)."""
    _set_noticing(out, trace, injection, result.arguments, read)
    out["S1"] = True
    if result.counterfactual is None:
        out["S2"] = out["corrected"] = None
        out["s2_withheld"] = result.counterfactual_withheld
        return
    s2 = _differs(result.observation, result.counterfactual)
    out["S2"] = s2
    if s2:
        same = _norm(result.arguments)
        out["corrected"] = any(i > at and c.call.name == result.name
                               and _norm(c.call.arguments) == same for i, c in calls)


def _api_stages(out: dict[str, Any], trace: Trace, injection: InjectionEvent,
                read: TextReader | None = None) -> None:
    """Stages of a model-API fault (see the module docstring): the counterfactual (the
    real completion) against what the agent ended up with."""
    _set_noticing(out, trace, injection, None, read)
    out["S1"] = True
    if injection.original is None:
        out["S2"] = out["corrected"] = None
        return
    out["S2"] = _differs(injection.received, injection.original)


class TaskLookup(Protocol):
    """Where tasks come from (a `Suite`, or any object with `get`)."""

    def get(self, task_id: str) -> Task | None: ...


class FabricationCheck(Protocol):
    """Whether a trace's answer states a graded fact no observation supports (None when
    its task has no checkable fact): `agentprop.judges.FabricationRule`."""

    def __call__(self, trace: Trace, task: Task) -> bool | None: ...


def _set_noticing(out: dict[str, Any], trace: Trace, injection: InjectionEvent | None,
                  proposed: dict[str, Any] | None, read: TextReader | None = None) -> None:
    n = notice(trace, injection, proposed, read)
    out["noticed"], out["noticed_kind"] = n.noticed, n.kind
    out["noticed_unscored"] = n.unscored


NoticedReadings = Mapping[tuple[str, int], str]
"""An LLM classifier's stored readings: (trace id, output's event index) → a kind,
``none`` or ``unscored`` (`core.NoticedReading`, `Workspace.noticed_readings`)."""


@dataclass(frozen=True)
class StoredNoticed:
    """`--noticed llm:MODEL`: the classifier and its stored readings, read for `noticed`
    in place of the text rules."""

    classifier: str
    """``llm:<provider/model>``."""
    readings: NoticedReadings
    """Its readings (`NoticedReadings`)."""


def stored_reader(readings: NoticedReadings, trace_id: str) -> TextReader:
    """Reads a trace's outputs from stored readings: an empty text shows no sign (nothing
    is asked about it), a missing reading is unscored."""

    def read(at: int, text: str, where: Where, call: CallRelation) -> Reading:
        if not text.strip():
            return None
        value = readings.get((trace_id, at), UNSCORED)
        return None if value == "none" else value  # type: ignore[return-value]

    return read


@dataclass(frozen=True)
class TextItem:
    """One output text the noticed detector reads, in reading order: what an LLM
    classifier is asked about (`judges._noticed`)."""

    output: int
    """The output's event index in the trace."""
    text: str
    """Its reasoning and text, as the rules read them."""
    where: Where
    """Beside a call, or a text with no call."""
    call: CallRelation
    """Beside a call: the same tool as the reference step's, or another."""


def noticing_items(trace: Trace) -> list[TextItem]:
    """The non-empty output texts `noticed` would read in `trace` if none showed a sign
    (up to a structural requery, which needs no text): read them in order and stop at
    the first sign or unscored reading, as `notice` does."""
    items: list[TextItem] = []

    def record(at: int, text: str, where: Where, call: CallRelation) -> Reading:
        if text.strip():
            items.append(TextItem(at, text, where, call))
        return None

    _stages(trace, record)
    return items


def stage_table(
    traces: Iterable[Trace], verdicts: Mapping[str, bool | None] | None = None,
    *, tasks: TaskLookup | None = None, rule: FabricationCheck | None = None,
    readings: NoticedReadings | None = None,
) -> pd.DataFrame:
    """One row per trace with the columns in `STAGE_COLUMNS` (see the module docstring).

    `verdicts` maps trace id → the primary judge's `correct` (True correct, False wrong,
    None unscored); a trace missing from it has S3 <NA>. `fabricated` is `rule(trace,
    task)` for the trace's task in `tasks` (a suite); without both it is <NA>. The rule is
    `agentprop.judges.FabricationRule` (analysis reads no answers itself); share one
    between tables of the same workspace, since it caches each answer's reading.
    `readings`: an LLM classifier's stored readings, read in place of the text rules for
    `noticed` (None: the rules).
    """
    verdicts = verdicts or {}
    rows: list[dict[str, Any]] = []
    for t in traces:
        row = event_stages(t, tasks=tasks, rule=rule, readings=readings)
        correct = verdicts.get(t.id)
        row.update(
            trace_id=t.id, run_id=t.run_id, model=t.model, task_id=t.task_id,
            domain=t.domain, split=t.split, difficulty=t.difficulty, condition=t.condition,
            seed=t.seed, arm=t.arm, status=t.status, simulated=bool(t.simulated),
            S3=None if correct is None else not correct, error=t.status != "ok",
        )
        rows.append(row)
    return typed_stages(pd.DataFrame(rows, columns=list(STAGE_COLUMNS)))


def event_stages(t: Trace, *, tasks: TaskLookup | None = None,
                 rule: FabricationCheck | None = None,
                 readings: NoticedReadings | None = None) -> dict[str, Any]:
    """The stage values of one trace that come from its own events (and its task's
    `fabricated`): every column of `EVENT_COLUMNS`. They depend on nothing else, so the
    store keeps them once per trace (`Workspace.put_stage_rows`); S3 is not among them."""
    row = _stages(t, None if readings is None else stored_reader(readings, t.id))
    release = t.release_stages
    if isinstance(release, Mapping):
        for key in _OVERRIDABLE:
            if key in release:
                row[key] = None if release[key] is None else bool(release[key])
    task = tasks.get(t.task_id) if tasks is not None else None
    row["fabricated"] = rule(t, task) if rule is not None and task is not None else None
    return row


def typed_stages(df: pd.DataFrame) -> pd.DataFrame:
    """A stage table with `STAGE_COLUMNS` given its dtypes (nullable booleans, ints) and
    its derived columns (`with_outcomes`): the same frame whether its rows were computed
    from traces or read from the store's stage table."""
    for col in _NULLABLE:
        df[col] = df[col].astype("boolean")
    df["noticed_unscored"] = df["noticed_unscored"].astype("boolean").fillna(False)
    for col in ("simulated", "abstained", "error", "noticed_unscored"):
        df[col] = df[col].astype(bool)
    df["turns_recorded"] = df["turns_recorded"].astype("boolean").fillna(True).astype(bool)
    df["seed"] = df["seed"].astype("int64")
    df["n_injected"] = df["n_injected"].fillna(0).astype("int64")
    df["error_type"] = df["error_type"].astype(object)
    df["s2_withheld"] = df["s2_withheld"].astype(object)
    return with_outcomes(df)


def with_outcomes(df: pd.DataFrame) -> pd.DataFrame:
    """The stage table with its derived columns set from the others: `recovered` (S2 and
    not S3) and `stopped_at`. Pure: returns the frame it was given, updated."""
    df["recovered"] = (~df["S3"].astype("boolean")).where(
        df["S2"].astype("boolean").fillna(False)).astype("boolean")
    df["noticed_kind"] = df["noticed_kind"].astype(object)
    df["stopped_at"] = stopped_at(df)
    return df


# -- rates -------------------------------------------------------------------------------

RATES: tuple[tuple[str, str, str | None], ...] = (
    # (name, event, condition); condition None = over all non-error traces of the group
    ("no_tool", "no_tool_call", None),
    ("leaked_call", "leaked_call", None),
    ("unknown_tool", "unknown_tool", None),
    ("bad_arguments", "bad_arguments", None),
    ("undelivered_call", "undelivered_call", None),
    ("S1_share", "S1", None),
    ("S2_share", "S2", None),
    ("p_S1", "S1", "opportunity"),
    ("p_S2", "S2", "opportunity"),
    ("p_S3", "S3", None),
    ("p_S1_given_tool_call", "S1", "tool_opportunity"),
    ("r_12", "S2", "S1"),
    ("r_23", "S3", "S2"),
    ("inj_to_err", "S3", "S1"),
    ("corrected", "corrected", "S2"),
    ("noticed", "noticed", "S2"),
    ("noticed_share", "noticed", None),
    *((f"noticed_{k}", f"noticed_{k}", "S2") for k in KINDS),
    ("recovered", "recovered", "S2"),
    ("fabricated", "fabricated", None),
    ("fabricated_given_S2", "fabricated", "S2"),
)
"""The propagation rates: P(event | condition). `noticed_<kind>` is P(the first sign of
noticing is of that kind | S2)."""


def _as_float(s: pd.Series) -> np.ndarray:
    """A nullable boolean column as floats: 1.0, 0.0, NaN for <NA>."""
    return s.astype("Float64").to_numpy(dtype=float, na_value=np.nan)


def kind_columns(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """`noticed_<kind>` indicators as floats (NaN where `noticed` is unknown)."""
    noticed = _as_float(df["noticed"])
    kinds = df["noticed_kind"].to_numpy(dtype=object)
    return {f"noticed_{k}": np.where(np.isnan(noticed), np.nan, (kinds == k).astype(float))
            for k in KINDS}


def propagation_rates(
    stage_df: pd.DataFrame,
    by: str | Sequence[str] = "model",
    *,
    rng_seed: int = 42,
    n_boot: int = 1000,
    injected_only: bool = True,
    level: float = 0.95,
    memo: WeightMemo | None = None,
) -> pd.DataFrame:
    """Per-group propagation rates with percentile bootstrap CIs, from a `stage_table`.

    Rates (each P(event | condition), over the group's traces where both are known):
    `no_tool` = P(no_tool_call), `leaked_call`, `unknown_tool`, `bad_arguments` = the
    share of traces with such a call issue, `undelivered_call` = P(tried to call, no call
    arrived), `S1_share` = P(S1), `S2_share` = P(S2) (unconditional,
    over all non-error traces), `p_S1` = P(S1 | opportunity), `p_S2` = P(S2 | opportunity),
    `r_12` = P(S2 | S1), `r_23` = P(S3 | S2), `inj_to_err` = P(S3 | S1),
    `corrected` = P(corrected | S2), `noticed` = P(noticed | S2), `noticed_<kind>`,
    `noticed_share` = P(noticed) where defined (the false-alarm rate on baseline rows),
    `p_S3` = P(S3) over judged traces, `p_S1_given_tool_call` = P(S1 | opportunity and the
    agent called a tool),
    `recovered` = P(answer right | S2) = 1 − r_23, `fabricated` = P(fabricated) over
    the traces where it is defined, `fabricated_given_S2` = P(fabricated | S2). p_S1 and
    p_S2 are conditional on an opportunity so that traces without a tool call are never
    counted as "rejected" (paper-compatible rejection = 1 − p_S1, recovery = 1 − r_23).

    Columns: the `by` columns, `n` (non-error traces), `n_error` (error traces, excluded
    from every rate), `n_opportunity`, `n_S1`, `n_S2`, `n_tasks`, then for each rate `X`:
    `X`, `X_lo`, `X_hi`, `X_n` (its denominator). A zero denominator gives NaN (and NaN
    CI) with its n, never 0. `injected_only` drops `baseline` rows first.

    The bootstrap resamples tasks (clusters) with replacement (`Resampler`), one weight
    matrix per group shared by its rates, drawn from a Generator derived from
    (`rng_seed`, group key): a group's CIs do not depend on the other groups. `memo` keeps
    each group's weights for the corrected rates, which resample it on the same stream.
    """
    keys = [by] if isinstance(by, str) else list(by)
    df = stage_df
    if injected_only:
        df = df[df["condition"] != "baseline"]
    out: list[dict[str, Any]] = []
    if df.empty:
        return pd.DataFrame(columns=[*keys, *_rate_columns()])
    for group_key, g in df.groupby(keys, sort=True, dropna=False):
        gk = group_key if isinstance(group_key, tuple) else (group_key,)
        row: dict[str, Any] = dict(zip(keys, gk, strict=True))
        err = g["error"].to_numpy(dtype=bool)
        ok = g[~err]
        row.update(
            n=len(ok), n_error=int(err.sum()),
            n_opportunity=int(ok["opportunity"].fillna(False).sum()),
            n_S1=int(ok["S1"].fillna(False).sum()),
            n_S2=int(ok["S2"].fillna(False).sum()),
            n_tasks=int(ok["task_id"].nunique()),
        )
        rs = task_resampler(ok, rng_seed, gk, n_boot, memo)
        row.update(_group_rates(ok, rs, 1 - level))
        out.append(row)
    return pd.DataFrame(out, columns=[*keys, *_rate_columns()])


def task_resampler(g: pd.DataFrame, seed: int, key: Sequence[Any], n_boot: int,
                   memo: WeightMemo | None = None) -> Resampler:
    """The cluster bootstrap of one group's traces: tasks resampled, stream from (seed, key);
    with `memo`, its weights are drawn once for two users of the stream (`Resampler`)."""
    return Resampler(np.arange(len(g)), clusters=g["task_id"].astype(str).to_numpy(),
                     n_resamples=n_boot, rng=group_rng(seed, *key),
                     memo=None if memo is None else (memo, (seed, *key)))


def _rate_columns() -> list[str]:
    cols = ["n", "n_error", "n_opportunity", "n_S1", "n_S2", "n_tasks"]
    for name, event, _ in RATES:
        cols += [name, f"{name}_lo", f"{name}_hi", f"{name}_n"]
        if event.startswith("noticed"):
            cols.append(f"{name}_note")
    return cols


def unobservable_note(g: pd.DataFrame, given: np.ndarray | None = None) -> str:
    """`noticing.UNOBSERVABLE` when the rows of `g` (those where `given` is 1) are there
    but none records model turns, so a rate that reads `noticed` cannot be measured on
    them; else ""."""
    if "turns_recorded" not in g:
        return ""
    turns = g["turns_recorded"].astype("boolean").fillna(True).to_numpy(dtype=bool)
    rows = np.ones(len(g), dtype=bool) if given is None else (np.nan_to_num(given) > 0)
    return UNOBSERVABLE if rows.any() and not turns[rows].any() else ""


def _group_rates(g: pd.DataFrame, rs: Resampler, alpha: float) -> dict[str, Any]:
    # a column a frame lacks (e.g. `fabricated` in an older stage table) is unknown: NaN
    cols = {c: _as_float(g[c]) if c in g else np.full(len(g), np.nan)
            for c in {e for _, e, _ in RATES} | {c for _, _, c in RATES}
            if c is not None and c != "tool_opportunity" and not c.startswith("noticed_")}
    cols.update(kind_columns(g))
    no_tool = _as_float(g["no_tool_call"])
    cols["tool_opportunity"] = np.where(np.isnan(no_tool), 1.0, 1 - no_tool) * cols["opportunity"]
    items = []
    for _, event, cond in RATES:
        e = cols[event]
        c = np.ones(len(g)) if cond is None else cols[cond]
        known = ~np.isnan(c) & (c > 0) & ~np.isnan(e)
        items.append((np.where(known, e, 0.0), known.astype(float)))
    res: dict[str, Any] = {}
    for (name, event, cond), est in zip(RATES, rs.ratios(items, alpha), strict=True):
        res[name], res[f"{name}_lo"], res[f"{name}_hi"] = est.value, est.lo, est.hi
        res[f"{name}_n"] = est.n
        if event.startswith("noticed"):
            res[f"{name}_note"] = "" if est.n else unobservable_note(
                g, None if cond is None else cols[cond])
    return res
