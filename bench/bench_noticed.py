"""Agreement of the `noticed` text rules with the labelled examples (issue 12).

    python bench/bench_noticed.py [--write]

For each labelled set in tests/fixtures (noticed_validation, noticed_holdout: development;
noticed_holdout2: held out, never tuned on) prints n, agreement on noticed yes/no, Cohen's
κ, precision and recall of the detector, and agreement on the kind. Also times the
detector on the texts (per text). `--write` stores the held-out set's figures as the
detector's validity card data in agentprop/judges/detectors.json.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from agentprop.analysis import cohen_kappa
from agentprop.analysis.noticing import classify_text

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures"
SETS = ("noticed_validation.jsonl", "noticed_holdout.jsonl", "noticed_holdout2.jsonl")
HELD_OUT = "noticed_holdout2.jsonl"  # labelled before the rules were revised, never tuned on


def load(name: str) -> list[dict]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]


def _header(name: str) -> str:
    """The set's first comment lines: how and when it was labelled."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    head = []
    for line in lines:
        if not line.startswith("#"):
            break
        head.append(line.lstrip("# ").strip())
    return " ".join(head)


def main() -> None:
    import argparse
    from datetime import date

    from agentprop.judges._validity import update_detector

    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    for name in SETS:
        rows = load(name)
        t0 = time.perf_counter()
        kinds = [classify_text(r["text"], r["where"], r["call"]) for r in rows]
        per_text_us = (time.perf_counter() - t0) / len(rows) * 1e6
        human = [bool(r["noticed"]) for r in rows]
        det = [k is not None for k in kinds]
        tp = sum(h and d for h, d in zip(human, det, strict=True))
        fp = sum(d and not h for h, d in zip(human, det, strict=True))
        fn = sum(h and not d for h, d in zip(human, det, strict=True))
        agree = sum(h == d for h, d in zip(human, det, strict=True))
        kind_ok = sum(k == r["kind"] for k, r in zip(kinds, rows, strict=True))
        k = cohen_kappa(det, human, n_resamples=1000, rng=42)
        print(f"{name}: n={len(rows)} agree={agree}/{len(rows)} ({agree / len(rows):.3f}) "
              f"kappa={k.kappa:.3f} [{k.boot_lo:.3f}, {k.boot_hi:.3f}] "
              f"precision={tp / max(1, tp + fp):.3f} recall={tp / max(1, tp + fn):.3f} "
              f"kind={kind_ok}/{len(rows)} {per_text_us:.0f} us/text")
        if args.write and name == HELD_OUT:
            no = sum(not h for h in human)
            update_detector("noticed", {
                "n": len(rows), "accuracy": agree / len(rows), "kappa": k.kappa,
                "kappa_lo": k.boot_lo, "kappa_hi": k.boot_hi,
                "precision": tp / (tp + fp) if tp + fp else None,
                "recall": tp / (tp + fn) if tp + fn else None,
                "false_alarms": fp, "false_alarm_rate": fp / no if no else None,
                "negatives": no,
                "misses": fn, "held_out": True, "set": f"tests/fixtures/{name}",
                "measured": str(date.today()),
                "labels": _header(name)})
            print("wrote agentprop/judges/detectors.json (noticed)")


if __name__ == "__main__":
    main()
