"""Stress tests of every judge and detector (issue 21 item 5; agentprop/judges/_stress.py):
flip rates per perturbation on the shipped validation sets, and the LLM judges' test–retest
(offline, through the sim judges). `--write` stores them in agentprop/judges/stress.json,
which the validity cards of the report read (a test keeps the file in step with this
script's rows).

    python bench/bench_stress.py [--write] [--k 5]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import date
from pathlib import Path

from agentprop.judges import ValidationSet
from agentprop.judges._stress import (
    StressRow,
    retest,
    stress_fabricated,
    stress_judges,
    stress_noticed,
    write_stress,
)
from agentprop.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
JUDGES = ["facts", "heuristic", "llm:sim-judge/strict", "llm:sim-judge/lenient",
          "llm:sim-judge/noisy", "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"]
LLM = JUDGES[2:]
NOTICED_SETS = ("noticed_validation.jsonl", "noticed_holdout.jsonl", "noticed_holdout2.jsonl")


def noticed_texts() -> list[dict[str, object]]:
    out = []
    for name in NOTICED_SETS:
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                out.append(json.loads(line))
    return out


def _print(rows: list[StressRow]) -> None:
    """One block per instrument: perturbation, what must happen, flips / n = rate."""
    last = ""
    for r in rows:
        if r.instrument != last:
            print(f"\n{r.instrument}")
            last = r.instrument
        ok = "" if r.n == 0 else ("  <- should be 0" if r.expect == "stable" and r.flips
                                  else "  <- should be 1" if r.expect == "flip"
                                  and r.flips < r.n else "")
        print(f"  {r.perturbation:11s} {r.expect:6s} {r.flips:4d}/{r.n:<4d} = "
              f"{r.rate:.3f}{ok}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--k", type=int, default=5, help="re-judgements for test-retest")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}")
    suite = load_suite()
    vset = ValidationSet.load(FIXTURES / "judge_validation.jsonl")
    t0 = time.perf_counter()
    rows = stress_judges(vset, suite, JUDGES, seed=args.seed)
    t1 = time.perf_counter()
    rows += stress_fabricated(vset, suite, seed=args.seed)
    rows += stress_noticed(noticed_texts(), seed=args.seed)
    t2 = time.perf_counter()
    rows += retest(vset, suite, LLM, k=args.k)
    t3 = time.perf_counter()
    _print(rows)
    print(f"\njudges {t1 - t0:.0f} s, fabricated + noticed {t2 - t1:.0f} s, "
          f"retest (k={args.k}) {t3 - t2:.0f} s")
    if args.write:
        write_stress(rows, {"measured": str(date.today()), "seed": args.seed, "k": args.k,
                            "answers": "tests/fixtures/judge_validation.jsonl",
                            "texts": [f"tests/fixtures/{n}" for n in NOTICED_SETS]})
        print("wrote agentprop/judges/stress.json")


if __name__ == "__main__":
    main()
