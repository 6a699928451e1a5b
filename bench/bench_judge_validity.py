"""Judge validity on the labelled validation set (tests/fixtures/judge_validation.jsonl):
accuracy, Cohen's κ with a CI that resamples tasks, false accepts and false rejects per
judge — facts, the paper's heuristic, and the sim-judges (the facts judge plus stated
noise) — overall, by domain and by kind of answer. `--write` stores the facts judge's
figures in agentprop/judges/validity.json, which the report shows next to its statement
that the facts judge is the reference (a test keeps that file in step with this script).

    python bench/bench_judge_validity.py [--write] [--by domain,kind]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from agentprop.analysis import judge_validity
from agentprop.analysis._validity import validity_summary
from agentprop.judges import ValidationSet, validation_verdicts
from agentprop.judges._validity import VALIDITY_FILE, graders_frame
from agentprop.suite import load_suite

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "judge_validation.jsonl"
# answers written to get the decision or severity wrong (a wrong pick or level, a hedge or a
# shotgun over the options)
DECISION_KINDS = ("wrong_decision", "wrong_severity", "hedge", "shotgun")
JUDGES = ["facts", "heuristic", "llm:sim-judge/exact", "llm:sim-judge/strict",
          "llm:sim-judge/lenient", "llm:sim-judge/noisy",
          "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"]
LABELS = ("Answers labelled {labelled}; {graders} Labelling rule: the header of "
          "tests/fixtures/judge_validation.jsonl.")
DEVELOPMENT = ("The facts judge was written with this set in view (its held-out figures "
               "are in docs/judges.md); the simulated judges decide with it.")


def _fmt(df: object) -> str:
    import pandas as pd

    assert isinstance(df, pd.DataFrame)
    cols = [c for c in df.columns if c not in ("kappa_lo", "kappa_hi")]
    out = df.copy()
    out["kappa"] = [f"{k:.3f} [{lo:.3f}, {hi:.3f}]" for k, lo, hi
                    in zip(df["kappa"], df["kappa_lo"], df["kappa_hi"], strict=True)]
    return str(out[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="update agentprop/judges/validity.json")
    ap.add_argument("--by", default="domain,kind")
    args = ap.parse_args()
    suite = load_suite()
    vset = ValidationSet.load(FIXTURE)
    t0 = time.perf_counter()
    verdicts = validation_verdicts(vset, suite, JUDGES)
    dt = time.perf_counter() - t0
    print(f"{len(vset.items)} labelled answers, {verdicts['task_id'].nunique()} tasks, "
          f"{len(JUDGES)} judges in {dt:.1f} s")
    print(_fmt(judge_validity(verdicts)))
    facts = verdicts[verdicts["judge"] == "facts"]
    accepted_wrong = facts[facts["scaled"] & ~facts["human"] & (facts["correct"] == True)]  # noqa: E712
    on_fact = accepted_wrong[accepted_wrong["kind"].isin(DECISION_KINDS)]
    print(f"facts: false accepts of a wrong decision or severity: {len(on_fact)} "
          f"(of {int((facts['scaled'] & facts['kind'].isin(DECISION_KINDS)).sum())}); "
          f"any false accept on a task asking one: {len(accepted_wrong)} "
          f"{sorted(accepted_wrong['id'])}")
    for col in [c for c in args.by.split(",") if c]:
        print(f"\n-- facts by {col}")
        print(_fmt(judge_validity(facts, by=[col])))
    if args.write:
        text = LABELS.format(labelled=vset.header.get("labelled", ""),
                             graders=vset.header.get("graders", "")) + " " + DEVELOPMENT
        meta = {"validation_set": "tests/fixtures/judge_validation.jsonl",
                "answers": len(vset.items), "tasks": int(verdicts["task_id"].nunique()),
                "labelled": vset.header.get("labelled", ""),
                # every judge's card: who labelled, when, by what rule; not held out
                "labels": text, "held_out": False}
        summary = validity_summary(verdicts, graders_frame(vset), meta)
        VALIDITY_FILE.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n",
                                 encoding="utf-8")
        print(f"\nwrote {VALIDITY_FILE}")


if __name__ == "__main__":
    main()
