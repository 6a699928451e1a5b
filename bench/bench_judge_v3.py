"""The facts judge against the v3 labelled answers (issue 21 item 4): n, Cohen's κ with a
CI that resamples tasks, accuracy, false accepts (judged correct, labelled incorrect) and
false rejects, overall, by kind of answer and by domain.

    python bench/bench_judge_v3.py [--labels PATH] [--errors] [--validation]

Default labels: tests/fixtures/judge_v3_dev.jsonl, the development set the judge v3 was
tuned on (its figures are dev figures, not held out). `--labels PATH` scores any JSONL of
the same format (a header line, then one labelled answer per line) — the held-out set is
scored this way once. `--errors` lists every disagreement with the judge's rationale;
`--validation` also scores the older set tests/fixtures/judge_validation.jsonl. Each
answer is judged as a finished trace whose tool calls are the task's gold plan
(`agentprop.judges._validity.as_trace`), so the state check replays a real world.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from agentprop.analysis import judge_validity
from agentprop.judges import ValidationSet, get_judge
from agentprop.judges._validity import as_trace, update_detector
from agentprop.suite import Suite, load_suite

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "tests" / "fixtures" / "judge_v3_dev.jsonl"
OLD = ROOT / "tests" / "fixtures" / "judge_validation.jsonl"


async def _verdicts(vset: ValidationSet, suite: Suite) -> list[dict[str, Any]]:
    judge = get_judge("facts", suite=suite)
    rows = []
    for item in vset.items:
        task = suite.get(item.task_id)
        if task is None:
            print(f"warning: {item.id}: task {item.task_id} not in the suite; skipped",
                  file=sys.stderr)
            continue
        if item.query and item.query != task.query:
            print(f"warning: {item.id}: the task's query changed since it was labelled",
                  file=sys.stderr)
        v = (await judge.judge_many(as_trace(item, task), task))[0]
        rows.append({"id": item.id, "task_id": task.id, "domain": task.domain,
                     "kind": item.kind or "?", "human": item.label == "correct",
                     "judge": "facts", "correct": v.correct, "answer": item.answer,
                     "summary": v.raw.get("summary", v.raw.get("reason", "")),
                     "unsure": bool(getattr(item, "contestable", False))})
    return rows


def _fmt(df: pd.DataFrame, by: str | None = None) -> str:
    cols = ([by] if by else []) + ["n", "accuracy", "kappa", "false_accepts", "wrong",
                                   "false_rejects", "right", "unscored"]
    out = df.copy()
    out["kappa"] = [f"{k:.3f} [{lo:.3f}, {hi:.3f}]" for k, lo, hi
                    in zip(df["kappa"], df["kappa_lo"], df["kappa_hi"], strict=True)]
    return str(out[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}"))


def score(path: Path, suite: Suite, *, errors: bool) -> pd.DataFrame:
    """Print the figures for the labelled set at `path`; return its verdict rows."""
    vset = ValidationSet.load(path)
    t0 = time.perf_counter()
    df = pd.DataFrame(asyncio.run(_verdicts(vset, suite)))
    print(f"== {path.name}: {len(df)} labelled answers, {df['task_id'].nunique()} tasks, "
          f"{time.perf_counter() - t0:.1f} s")
    print(_fmt(judge_validity(df)))
    fa = df[(df["correct"] == True) & ~df["human"]]  # noqa: E712
    fr = df[(df["correct"] == False) & df["human"]]  # noqa: E712
    print(f"false accepts {len(fa)} of {int((~df['human']).sum())} incorrect "
          f"({len(fa) / max(1, int((~df['human']).sum())):.1%}); "
          f"false rejects {len(fr)} of {int(df['human'].sum())} correct")
    for col in ("kind", "domain"):
        print(f"\n-- by {col}")
        print(_fmt(judge_validity(df, by=[col]), col))
    if errors:
        for title, rows in (("FALSE ACCEPTS", fa), ("FALSE REJECTS", fr)):
            print(f"\n-- {title} ({len(rows)})")
            for r in rows.itertuples():
                print(f"{r.id} {r.task_id} [{r.kind}]{' (unsure)' if r.unsure else ''}\n"
                      f"  A: {r.answer}\n  J: {r.summary}")
    return df


def write_card(path: Path, df: pd.DataFrame) -> None:
    """The card of the facts judge: its figures on a held-out set (κ resampled by task, as
    `judge_validity` computes it), with the set's provenance from its header."""
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    f = judge_validity(df).iloc[0]
    wrong, right = int(f["wrong"]), int(f["right"])
    update_detector("facts", {
        "n": int(f["n"]), "unscored": int(f["unscored"]), "tasks": int(df["task_id"].nunique()),
        "accuracy": float(f["accuracy"]), "kappa": float(f["kappa"]),
        "kappa_lo": float(f["kappa_lo"]), "kappa_hi": float(f["kappa_hi"]),
        "false_accepts": int(f["false_accepts"]), "false_rejects": int(f["false_rejects"]),
        "wrong": wrong, "right": right,
        "false_accept_rate": int(f["false_accepts"]) / max(1, wrong),
        "false_reject_rate": int(f["false_rejects"]) / max(1, right),
        "held_out": bool(header.get("held_out")),
        "labels": f"{path.name}: {header.get('labelled', '')}; {header.get('graders', '')} "
                  f"Held out: {header.get('held_out', '')}",
        "measured": datetime.now(UTC).date().isoformat(),
        "set": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)})
    print("wrote agentprop/judges/detectors.json (facts)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=Path, default=DEV, help="a labelled JSONL to score")
    ap.add_argument("--errors", action="store_true", help="list every disagreement")
    ap.add_argument("--validation", action="store_true",
                    help="also score tests/fixtures/judge_validation.jsonl")
    ap.add_argument("--write", action="store_true",
                    help="store the facts judge's figures on --labels (a held-out set scored "
                    "once) as its validity card in agentprop/judges/detectors.json")
    args = ap.parse_args()
    suite = load_suite()
    df = score(args.labels, suite, errors=args.errors)
    if args.write:
        write_card(args.labels, df)
    if args.validation:
        print()
        score(OLD, suite, errors=args.errors)


if __name__ == "__main__":
    main()
