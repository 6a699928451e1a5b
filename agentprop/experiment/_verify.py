"""`agentprop verify`: recompute a workspace's report numbers from the store, byte for byte,
and check the invariants its data must satisfy (`agentprop.analysis.invariants`).

The report records how it was computed (report/analysis.json: resamples and seed), so
the recomputation uses the same settings; numbers.json is then compared as bytes, written
exactly as `build_report` writes it. `agentprop report` checks the invariants on what it
has just read (`experiment._execute.report_checked`, its quick verify).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentprop.analysis.invariants import TraceChecks, all_violations
from agentprop.store import Workspace

if TYPE_CHECKING:
    from agentprop.suite import Suite


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
    from agentprop.judges import stored_readings
    from agentprop.report import analyze

    checks = TraceChecks()
    settings = _settings(ws.report_dir)
    noticed = stored_readings(ws, settings.pop("noticed", None)) if numbers else None
    inp = load_analysis_input(ws, suite, tap=checks.tap, noticed=noticed)
    out = all_violations(ws.unit_table(), inp.stages, checks,
                         ws.unscored_ids(str(inp.primary_judge)))
    n_numbers = None
    if numbers:
        report = ws.report_dir
        stored = report / "numbers.json"
        if not stored.exists():
            out.append(f"no report to check: {stored} is missing; run `agentprop report "
                       f"-w {ws.path}` first")
        else:
            manifest = numbers_manifest(analyze(inp, **settings))
            n_numbers = len(manifest)
            out += _compare(stored, manifest)
    return Verification(out, checks.n_traces, n_numbers)


def _settings(report: Path) -> dict[str, Any]:
    """The report's settings (analysis.json): resamples, seed, and the noticed classifier
    when the report read one (the defaults for a report from before they were recorded)."""
    from agentprop.report import SETTINGS

    path = report / SETTINGS
    if not path.exists():
        return {"n_resamples": 1000, "seed": 42}
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Any] = {"n_resamples": int(data["n_resamples"]), "seed": int(data["seed"])}
    if isinstance(data.get("noticed"), str):
        out["noticed"] = data["noticed"]
    return out


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
