"""The invariants a workspace's data must satisfy for its numbers to mean what they say.

Pure functions over traces, their stage table and the stored unit columns; each returns
one line per violation ("" never). `agentprop verify` (experiment/_verify.py) runs them,
and `agentprop report` runs them on what it has just read:

- S2 ⇒ S1: a visible effect without an applied corruption is not a propagation;
- S2 ⇒ the corrupted call's counterfactual differs from its observation (S2 says it does);
- no S3 from an unscored verdict (unscored is never "wrong");
- every applied injection landed on its target call: the call ran, and a P2 corruption's
  executed arguments hold the injected value (or lack a removed parameter);
- no unit (run, model, task, condition, seed, arm) stored twice;
- the interceptor's arms paired one to one (one control and one treatment per unit).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agentprop.core import InjectionEvent, ToolResultEvent, Trace

ARMS = ("control", "treatment")
UNIT_FIELDS = ("run_id", "model", "task_id", "condition", "seed", "arm")
_OBSERVATION_LEVEL = frozenset({"out", "fault"})


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True,
                                                                     default=str)


def _target(trace: Trace, injection: InjectionEvent) -> ToolResultEvent | None:
    return next((ev for ev in trace.events if isinstance(ev, ToolResultEvent)
                 and injection.call_id and ev.call_id == injection.call_id), None)


def landing_violations(trace: Trace) -> list[str]:
    """Each applied injection of `trace` that did not land on its target call: the call
    never ran (in a trace that finished), or the executed arguments of a P2 corruption do
    not hold what the injection recorded."""
    out = []
    for inj in (ev for ev in trace.events if isinstance(ev, InjectionEvent)):
        if inj.status != "applied" or not inj.call_id:
            continue
        result = _target(trace, inj)
        if result is None:
            if trace.status == "ok":
                out.append(f"trace {trace.id}: injection on call {inj.call_id} applied, but "
                           "no such call ran")
            continue
        if inj.protocol in _OBSERVATION_LEVEL or inj.param is None:
            continue
        args = result.arguments
        landed = (inj.param not in args) if inj.removed else \
            (inj.param in args and _same(args[inj.param], inj.injected))
        if not landed:
            shown = "absent" if inj.param not in args else json.dumps(args[inj.param],
                                                                      default=str)
            out.append(f"trace {trace.id}: injection on {result.name}.{inj.param} did not "
                       f"land: executed {shown}, recorded "
                       + ("removed" if inj.removed else json.dumps(inj.injected, default=str)))
    return out


def counterfactual_differs(trace: Trace) -> bool | None:
    """Whether the first applied injection's call has a counterfactual that differs from
    its observation (None: no applied injection, or its call did not run)."""
    inj = next((ev for ev in trace.events if isinstance(ev, InjectionEvent)
                and ev.status == "applied"), None)
    if inj is not None and inj.protocol == "api":  # a model call: its real completion
        return inj.original is not None and not _same(inj.original, inj.received)
    result = _target(trace, inj) if inj is not None else None
    if result is None:
        return None
    return result.counterfactual is not None and not _same(result.counterfactual,
                                                           result.observation)


def stage_violations(stages: pd.DataFrame, differs: Mapping[str, bool | None],
                     unscored: Iterable[str]) -> list[str]:
    """S2 ⇒ S1; S2 ⇒ the counterfactual differs (`differs`: trace id → what
    `counterfactual_differs` found); no S3 where the primary verdict is unscored."""
    out: list[str] = []
    if stages.empty:
        return out
    s1 = stages["S1"].astype("boolean")
    s2 = stages["S2"].astype("boolean")
    s3 = stages["S3"].astype("boolean")
    ids = stages["trace_id"].astype(str)
    for tid in ids[(s2.fillna(False)) & ~(s1.fillna(False))]:
        out.append(f"trace {tid}: S2 without S1 (a visible effect of a corruption that was "
                   "not applied)")
    for tid in ids[s2.fillna(False)]:
        if differs.get(tid) is False:
            out.append(f"trace {tid}: S2, but the corrupted call's counterfactual equals its "
                       "observation (or was not recorded)")
    skip = set(unscored)
    for tid in ids[s3.notna() & ids.isin(skip)]:
        out.append(f"trace {tid}: S3 set from an unscored verdict")
    return out


def unit_violations(units: pd.DataFrame) -> list[str]:
    """No unit stored twice; the interceptor's arms paired one to one. `units`: the
    stored unit columns (`UNIT_FIELDS`) of every trace in insertion order
    (`Workspace.unit_table()`); violations come in the order their unit first appears.
    Grouped as columns: a report of a million traces checks them without a Python row
    per trace."""
    out = []
    size = units.groupby(list(UNIT_FIELDS), sort=False).size()
    for unit, n in zip(size.index[size > 1], size[size > 1], strict=True):
        out.append(f"unit stored {n} times: {_unit_text(unit)}")
    armed = units[units["arm"].isin(ARMS)]
    keys = list(UNIT_FIELDS[:-1])
    group = armed.groupby(keys, sort=False).ngroup().to_numpy()
    k = int(group.max()) + 1 if len(group) else 0
    arm = armed["arm"].to_numpy()
    control = np.bincount(group[arm == "control"], minlength=k)
    treatment = np.bincount(group[arm == "treatment"], minlength=k)
    bad = (control != 1) | (treatment != 1)
    first = armed.drop_duplicates(keys)[keys][bad].itertuples(index=False, name=None)
    for key, c, t in zip(first, control[bad], treatment[bad], strict=True):
        out.append(f"interceptor arms not paired one to one ({c} control, "
                   f"{t} treatment): {_unit_text((*key, ''))}")
    return out


def _unit_text(unit: tuple[Any, ...]) -> str:
    fields = dict(zip(UNIT_FIELDS, unit, strict=True))
    text = " ".join(f"{k}={fields[k]}" for k in UNIT_FIELDS[:-1])
    return text + (f" arm={fields['arm']}" if fields["arm"] else "")


@dataclass
class TraceChecks:
    """The per-trace invariants, gathered while the traces stream past (`tap`), so a
    reader of a workspace checks them without reading it twice."""

    differs: dict[str, bool | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    n_traces: int = 0

    def tap(self, traces: Iterable[Trace]) -> Iterator[Trace]:
        for t in traces:
            self.n_traces += 1
            self.differs[t.id] = counterfactual_differs(t)
            self.violations += landing_violations(t)
            yield t


def all_violations(units: pd.DataFrame, stages: pd.DataFrame,
                   checks: TraceChecks, unscored: Iterable[str]) -> list[str]:
    """Every invariant: the units (`units`, see `unit_violations`), what `checks` found on
    the traces, and the stage table's (`stage_violations`; `unscored`: the traces whose
    primary verdict is unscored in its stored payload)."""
    return (unit_violations(units) + checks.violations
            + stage_violations(stages, checks.differs, unscored))
