"""Agreement of the `noticed` text rules with labelled examples (issues 12 and 21).

    python bench/bench_noticed.py [--labels PATH] [--write]

For each labelled set in tests/fixtures prints n, agreement on noticed yes/no, Cohen's κ
with a bootstrap CI, precision and recall of the detector, agreement on the kind, and the
time per text. `noticed_v2_dev` (the set the v2 rules were tuned on: its figures are an
upper bound) is also broken down per family and per language. The older sets
(`noticed_validation`, `noticed_holdout`, `noticed_holdout2`) are regression checks.

`--labels PATH` scores one external JSONL file in the same format (one object per line
with text, where, call, noticed, kind; optional family, lang; '#' lines are comments) with
the same breakdown: a held-out set is scored once that way. `--write` stores figures as
the detector's validity card data in agentprop/judges/detectors.json: the `--labels` set's
when given (it is then the held-out set), else `noticed_holdout2`'s.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from agentprop.analysis import cohen_kappa
from agentprop.analysis.noticing import classify_text

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures"
SETS = ("noticed_v2_dev.jsonl", "noticed_validation.jsonl", "noticed_holdout.jsonl",
        "noticed_holdout2.jsonl",
        "noticed_heldout2026.jsonl", "noticed_heldout2026b.jsonl", "noticed_heldout2026c.jsonl")
BROKEN_DOWN = "noticed_v2_dev.jsonl"  # per family and per language
HELD_OUT = "noticed_heldout2026c.jsonl"  # written by --write unless --labels names another set


def load(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]


def _header(path: Path) -> str:
    """The set's first comment lines, up to its copy of the rule: how and when it was
    labelled."""
    head = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#") or "---- rule" in line:
            break
        head.append(line.lstrip("# ").strip())
    return " ".join(head)


def _counts(human: list[bool], det: list[bool]) -> dict[str, int]:
    pairs = list(zip(human, det, strict=True))
    return {"n": len(pairs), "tp": sum(h and d for h, d in pairs),
            "fp": sum(d and not h for h, d in pairs), "fn": sum(h and not d for h, d in pairs),
            "agree": sum(h == d for h, d in pairs)}


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def score(rows: list[dict]) -> dict[str, Any]:
    """The detector against one set: counts, κ with its CI, precision, recall, kind."""
    t0 = time.perf_counter()
    kinds = [classify_text(r["text"], r["where"], r["call"]) for r in rows]
    per_text_us = (time.perf_counter() - t0) / max(1, len(rows)) * 1e6
    human = [bool(r["noticed"]) for r in rows]
    det = [k is not None for k in kinds]
    c = _counts(human, det)
    k = cohen_kappa(det, human, n_resamples=1000, rng=42)
    return {**c, "kappa": k.kappa, "kappa_lo": k.boot_lo, "kappa_hi": k.boot_hi,
            "precision": _ratio(c["tp"], c["tp"] + c["fp"]),
            "recall": _ratio(c["tp"], c["tp"] + c["fn"]),
            "kind_ok": sum(k == r["kind"] for k, r in zip(kinds, rows, strict=True)),
            "per_text_us": per_text_us, "human": human, "det": det}


def _print_set(name: str, s: dict[str, Any]) -> None:
    n = s["n"]
    print(f"{name}: n={n} agree={s['agree']}/{n} ({s['agree'] / max(1, n):.3f}) "
          f"kappa={s['kappa']:.3f} [{s['kappa_lo']:.3f}, {s['kappa_hi']:.3f}] "
          f"precision={_fmt(s['precision'])} recall={_fmt(s['recall'])} "
          f"kind={s['kind_ok']}/{n} {s['per_text_us']:.0f} us/text")


def _print_breakdown(rows: list[dict], s: dict[str, Any], field: str) -> None:
    """Agreement per value of `field` (family, lang): n, agree, tp/fp/fn, P, R."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[str(r.get(field) or "-")].append(i)
    print(f"  per {field}:")
    for key in sorted(groups):
        idx = groups[key]
        c = _counts([s["human"][i] for i in idx], [s["det"][i] for i in idx])
        print(f"    {key:<24} n={c['n']:>3} agree={c['agree']:>3} tp={c['tp']:>3} "
              f"fp={c['fp']:>2} fn={c['fn']:>2} "
              f"P={_fmt(_ratio(c['tp'], c['tp'] + c['fp']))} "
              f"R={_fmt(_ratio(c['tp'], c['tp'] + c['fn']))}")


def _card(path: Path, s: dict[str, Any]) -> dict[str, Any]:
    from datetime import date

    no = s["n"] - s["tp"] - s["fn"]
    try:
        shown = str(path.resolve().relative_to(FIXTURES.parents[1]))
    except ValueError:
        shown = str(path)
    return {"n": s["n"], "accuracy": s["agree"] / s["n"], "kappa": s["kappa"],
            "kappa_lo": s["kappa_lo"], "kappa_hi": s["kappa_hi"],
            "precision": s["precision"], "recall": s["recall"],
            "false_alarms": s["fp"], "false_alarm_rate": s["fp"] / no if no else None,
            "negatives": no, "misses": s["fn"], "held_out": True, "set": shown,
            "measured": str(date.today()), "labels": _header(path)}


def main() -> None:
    import argparse

    from agentprop.judges._validity import update_detector

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--labels", type=Path, default=None,
                    help="score this JSONL file (same format) with the per-family and "
                         "per-language breakdown")
    ap.add_argument("--write", action="store_true",
                    help="store the held-out figures (--labels, else noticed_holdout2) in "
                         "agentprop/judges/detectors.json")
    args = ap.parse_args()
    written = args.labels if args.labels is not None else FIXTURES / HELD_OUT
    paths = [args.labels] if args.labels is not None else [FIXTURES / n for n in SETS]
    for path in paths:
        rows = load(path)
        s = score(rows)
        _print_set(path.name, s)
        if path.name == BROKEN_DOWN or args.labels is not None:
            for field in ("family", "lang"):
                _print_breakdown(rows, s, field)
        if args.write and path == written:
            update_detector("noticed", _card(path, s))
            print("wrote agentprop/judges/detectors.json (noticed)")


if __name__ == "__main__":
    main()
