"""Agreement of the `fabricated` indicator with labels made by its rule, by reading.

Rebuilds the labelled workspace (three simulated profiles × baseline, p2:semantic_wrong,
out:wrong_value, fault:timeout, fault:empty; 30 tasks, seed 7: deterministic, so the
trace ids in tests/fixtures/fabricated_validation.jsonl match), then compares the indicator
with the labels: the 36 labelled before the rule was tuned ("tuning", in-sample since) and
the 20 labelled afterwards ("held-out"). Also times the indicator per trace.

    python bench/bench_fabricated.py [--write]

`--write` stores the held-out figures as the rule's validity card data in
agentprop/judges/detectors.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "fabricated_validation.jsonl"
PROFILES = ("sim/propagator", "sim/self-correcting", "sim/tool-averse")
CONDITIONS = ("baseline", "fault:timeout", "fault:empty", "out:wrong_value", "p2:semantic_wrong")


def main() -> None:
    import argparse
    from datetime import date

    from agentprop.analysis import cohen_kappa
    from agentprop.judges._validity import update_detector

    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    from agentprop.judges import FabricationRule, query_vocabulary
    from agentprop.store import Workspace
    from agentprop.suite import load_suite

    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        ws_path = Path(tmp) / "ws"
        for model in PROFILES:  # one run per profile, as the labelled workspace was made
            cmd = [sys.executable, "-m", "agentprop", "run", "--model", model,
                   *(a for c in CONDITIONS for a in ("--condition", c)),
                   "--limit", "30", "--seed", "7", "--workspace", str(ws_path)]
            subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        suite = load_suite()
        rule = FabricationRule(query_vocabulary(suite.tasks))
        ws = Workspace(ws_path)
        traces = list(ws.iter_traces())
        t0 = time.perf_counter()
        values = {t.id: rule(t, suite.get(t.task_id)) for t in traces}  # type: ignore[arg-type]
        per_trace_ms = (time.perf_counter() - t0) / len(traces) * 1000
        ws.close()
    for name in ("tuning", "held-out", "all"):
        part = [r for r in rows if name == "all" or r["set"] == name]
        got = [values.get(r["trace_id"]) for r in part]
        missing = sum(g is None for g in got)
        pairs = [(bool(r["label"]), bool(g)) for r, g in zip(part, got, strict=True)
                 if g is not None]
        agree = sum(a == b for a, b in pairs)
        k = cohen_kappa([a for a, _ in pairs], [b for _, b in pairs], n_resamples=2000, rng=0)
        print(f"{name:9s} n={len(part):3d} agree={agree}/{len(pairs)} "
              f"({agree / max(len(pairs), 1):.3f}) kappa={k.kappa:.3f} "
              f"[{k.boot_lo:.3f}, {k.boot_hi:.3f}] missing={missing}")
        if args.write and name == "held-out":
            fa = sum(1 for h, g in pairs if g and not h)
            no = sum(1 for h, _ in pairs if not h)
            update_detector("fabricated", {
                "n": len(pairs), "accuracy": agree / max(len(pairs), 1), "kappa": k.kappa,
                "kappa_lo": k.boot_lo, "kappa_hi": k.boot_hi, "false_alarms": fa,
                "false_alarm_rate": fa / no if no else None, "negatives": no,
                "misses": sum(1 for h, g in pairs if h and not g), "unscored": missing,
                "held_out": True, "set": "tests/fixtures/fabricated_validation.jsonl "
                "(set = held-out)", "measured": str(date.today()),
                "labels": "Traces of three simulated profiles labelled by reading, by the "
                          "rule in docs/injection.md (\"fabricated\"), by the session that "
                          "wrote the rule; 36 before it was tuned, these 20 after its last "
                          "change, never tuned on (issue 14)."})
            print("wrote agentprop/judges/detectors.json (fabricated)")
    print(f"indicator: {per_trace_ms:.2f} ms/trace over {len(traces)} traces (cold cache)")


if __name__ == "__main__":
    main()
