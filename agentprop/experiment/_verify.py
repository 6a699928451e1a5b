"""`agentprop verify`: recompute a workspace's report numbers from the store, byte for byte,
and check the invariants its data must satisfy (`agentprop.analysis.invariants`).

The report records how it was computed (report/analysis.json: resamples and seed), so
the recomputation uses the same settings; numbers.json is then compared as bytes, written
exactly as `build_report` writes it. `TraceChecks` runs the per-trace checks on traces as
they stream past, so `agentprop report` checks the invariants on what it has just read
(its quick verify) without reading the workspace twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentprop.analysis.invariants import (
    counterfactual_differs,
    landing_violations,
    stage_violations,
    unit_violations,
)
from agentprop.core import Trace
from agentprop.store import Workspace

if TYPE_CHECKING:
    import pandas as pd

    from agentprop.judges import FabricationRule
    from agentprop.suite import Suite

@dataclass
class TraceChecks:
    """The per-trace invariants, gathered while the traces stream past (`tap`)."""

    differs: dict[str, bool | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    n_traces: int = 0

    def tap(self, traces: Iterable[Trace]) -> Iterator[Trace]:
        for t in traces:
            self.n_traces += 1
            self.differs[t.id] = counterfactual_differs(t)
            self.violations += landing_violations(t)
            yield t


def invariant_violations(ws: Workspace, stages: pd.DataFrame, checks: TraceChecks,
                         judge: str) -> list[str]:
    """Every invariant of `agentprop.analysis.invariants` on a workspace whose traces
    `checks` has seen and whose stage table (under `judge`) is `stages`."""
    return (unit_violations(ws.trace_rows()) + checks.violations
            + stage_violations(stages, checks.differs, ws.unscored_ids(judge)))


def report_checked(ws: Workspace, *, resamples: int = 1000, seed: int = 42,
                   suite: Suite | None = None, rule: FabricationRule | None = None
                   ) -> tuple[Path, Verification]:
    """Analyse a workspace, write its report, and check the invariants on the traces and
    stage table the report was made from (the quick verify: no second read, no
    recomputation); the path of index.html and what the checks found."""
    from agentprop.experiment._execute import example_rationales, load_analysis_input
    from agentprop.report import analyze, build_report

    checks = TraceChecks()
    inp = load_analysis_input(ws, suite, rule=rule, tap=checks.tap)
    runs = [r.model_dump(mode="json") for r in ws.runs()]
    result = analyze(inp, n_resamples=resamples, seed=seed)
    path = build_report(result, ws.report_dir, stages=inp.stages, runs=runs,
                        rationales=example_rationales(ws, inp))
    found = invariant_violations(ws, inp.stages, checks, str(inp.primary_judge))
    return path, Verification(found, checks.n_traces, None)


@dataclass
class Verification:
    """What `verify_workspace` checked and found (one line per violation)."""

    violations: list[str]
    n_traces: int
    n_numbers: int | None  # None: numbers not recomputed


def verify_workspace(ws: Workspace, *, suite: Suite | None = None,
                     numbers: bool = True) -> Verification:
    """Recompute the report's numbers (unless not `numbers`) and check the invariants."""
    from agentprop.analysis import numbers_manifest
    from agentprop.experiment._execute import load_analysis_input
    from agentprop.report import analyze

    checks = TraceChecks()
    inp = load_analysis_input(ws, suite, tap=checks.tap)
    out = invariant_violations(ws, inp.stages, checks, str(inp.primary_judge))
    n_numbers = None
    if numbers:
        report = ws.report_dir
        stored = report / "numbers.json"
        if not stored.exists():
            out.append(f"no report to check: {stored} is missing; run `agentprop report "
                       f"-w {ws.path}` first")
        else:
            settings = _settings(report)
            manifest = numbers_manifest(analyze(inp, **settings))
            n_numbers = len(manifest)
            out += _compare(stored, manifest)
    return Verification(out, checks.n_traces, n_numbers)


def _settings(report: Path) -> dict[str, int]:
    from agentprop.report import SETTINGS

    path = report / SETTINGS
    if not path.exists():  # a report from before the settings were recorded: the defaults
        return {"n_resamples": 1000, "seed": 42}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {"n_resamples": int(data["n_resamples"]), "seed": int(data["seed"])}


def _compare(stored: Path, manifest: dict[str, Any]) -> list[str]:
    """numbers.json against the recomputed manifest: identical bytes, or one line per
    number that differs, is missing or is extra."""
    from agentprop.report import numbers_json

    text = numbers_json(manifest)
    raw = stored.read_bytes()
    if raw == text.encode("utf-8"):
        return []
    try:
        old = json.loads(raw)
    except ValueError:
        return [f"{stored}: not valid JSON"]
    out = []
    for name in sorted(set(old) | set(manifest)):
        if name not in manifest:
            out.append(f"numbers.json: {name} is not in the recomputed report")
        elif name not in old:
            out.append(f"numbers.json: {name} is missing (the recomputed report has it)")
        elif json.dumps(old[name]) != json.dumps(manifest[name]):
            out.append(f"numbers.json: {name} differs: stored {json.dumps(old[name])}, "
                       f"recomputed {json.dumps(manifest[name])}")
    return out or [f"{stored}: not byte-identical to the recomputed numbers (layout)"]
