"""Every instrument's validity card data, assembled from the files the benches ship: the
judges' agreement (judges/validity.json), the detectors' (judges/detectors.json) and the
stress tests' flip rates (judges/stress.json). The report's cards read it through
`analysis.JudgeValidity.from_summary`."""

from __future__ import annotations

from typing import Any

from agentprop.judges._stress import load_stress
from agentprop.judges._validity import (
    DETECTORS_FILE,
    REAL_TEXT_FILE,
    _read_json,
    load_validity,
)

REAL_TEXT_INSTRUMENTS = ("facts", "heuristic", "fabricated", "noticed")
"""The instruments bench/bench_real_text.py measures on real model text."""


def load_instrument_validity() -> dict[str, Any] | None:
    """Every instrument's card data as one summary (`analysis.JudgeValidity.from_summary`):
    the judges' validity, the detectors' (their κ on held-out labels, under `judges` too,
    since a rate names its instrument the same way), where each one's labels come from,
    the stress tests' flip rates, and the agreement on a real model's text. None when
    nothing is shipped."""
    validity = load_validity() or {}
    detectors = _read_json(DETECTORS_FILE) or {}
    stress = load_stress() or {}
    real = _read_json(REAL_TEXT_FILE) or {}
    if not (validity or detectors or stress):
        return None
    judges = dict(validity.get("judges") or {})
    # the judges' labels are one set: its provenance and whether it is held out apply to all
    labels = dict.fromkeys(judges, str(validity.get("labels") or ""))
    held_out = dict.fromkeys(judges, bool(validity.get("held_out", False)))
    for name, figures in detectors.items():
        judges[name] = {k: v for k, v in figures.items() if k not in ("labels", "held_out")}
        labels[name] = str(figures.get("labels", ""))
        held_out[name] = bool(figures.get("held_out", False))
    flips: dict[str, dict[str, dict[str, Any]]] = {}
    for row in stress.get("rows") or []:
        flips.setdefault(str(row["instrument"]), {})[str(row["perturbation"])] = {
            k: row[k] for k in ("expect", "n", "flips", "rate")}
    return {"judges": judges, "tasks": validity.get("tasks"), "labels": labels,
            "held_out": held_out, "stress": flips,
            "stress_measured": stress.get("measured"), "real_text": _real_text(real)}


def _real_text(real: dict[str, Any]) -> dict[str, Any]:
    """Per instrument, its figures on real text, with where they come from under
    ``_source`` (the model, the labels, the date)."""
    out: dict[str, Any] = {k: real[k] for k in REAL_TEXT_INSTRUMENTS
                           if isinstance(real.get(k), dict)}
    if out:
        out["_source"] = {"model": real.get("model"), "labels": real.get("labels"),
                          "measured": real.get("measured")}
    return out
