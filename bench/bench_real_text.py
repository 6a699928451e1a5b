"""The instruments on real model text (issue 26 item 8): the facts judge, the heuristic, the
`fabricated` rule and the `noticed` text rules against labels two graders gave, blind and by the
stated rules, to SmolLM2-135M's final answers and to its texts after a (corrupted) tool result.

    python bench/bench_real_text.py [--write]

Reads tests/fixtures/real_text_smollm2.jsonl (the labels, the rules, the graders) and
tests/fixtures/real_traces_smollm2.jsonl.gz (the traces). Prints per instrument: n, the
human prevalence, κ with a CI resampling tasks, accuracy, and per class precision and recall
(a tiny model's answers are mostly wrong, so κ moves with prevalence: read the per-class
figures beside it); and the two graders' agreement per question. `--write` stores the
figures in agentprop/judges/real_text.json, which the report's validity cards show.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LABELS = ROOT / "tests" / "fixtures" / "real_text_smollm2.jsonl"
TRACES = ROOT / "tests" / "fixtures" / "real_traces_smollm2.jsonl.gz"
OUT = ROOT / "agentprop" / "judges" / "real_text.json"


def _items(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
    return lines[0], lines[1:]


def _traces(path: Path) -> dict[str, Any]:
    from agentprop.core import Trace

    with gzip.open(path, "rt", encoding="utf-8") as f:
        return {t.id: t for t in (Trace.model_validate_json(x) for x in f if x.strip())}


def agreement(human: Sequence[bool], instrument: Sequence[bool], tasks: Sequence[str],
              seed: int = 0) -> dict[str, Any]:
    """κ (CI resampling tasks), accuracy, prevalence and per-class precision/recall of
    `instrument` against `human` (True = the positive class of the question)."""
    from agentprop.analysis import Resampler, group_rng

    h, m = np.asarray(human, dtype=bool), np.asarray(instrument, dtype=bool)
    rs = Resampler(np.column_stack([h, m]).astype(float), clusters=np.asarray(tasks),
                   rng=group_rng(seed, "real_text"))
    k = rs.kappa(m, h)
    # the graders saw one class only: κ's expected agreement is the whole agreement, so κ
    # is undefined (reported as None; read the classes' recall instead), never 0
    one_class = len(set(h.tolist())) < 2
    out: dict[str, Any] = {"n": len(h), "prevalence": float(h.mean()) if len(h) else None,
                           "kappa": None if one_class else k.kappa,
                           "kappa_lo": None if one_class else k.boot_lo,
                           "kappa_hi": None if one_class else k.boot_hi,
                           "accuracy": float((h == m).mean()) if len(h) else None}
    for name, cls in (("positive", True), ("negative", False)):
        said, true = (m == cls), (h == cls)
        out[name] = {"n": int(true.sum()),
                     "precision": float((said & true).sum() / said.sum()) if said.sum()
                     else None,
                     "recall": float((said & true).sum() / true.sum()) if true.sum() else None}
    return out


async def _judge_all(judge: Any, traces: list[Any], suite: Any) -> list[Any]:
    return [await judge.judge(t, suite.get(t.task_id)) for t in traces]


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not np.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    return x


def measure() -> dict[str, Any]:
    from agentprop.analysis.noticing import classify_text
    from agentprop.judges import FabricationRule, get_judge, query_vocabulary
    from agentprop.suite import load_suite

    header, items = _items(LABELS)
    traces = _traces(TRACES)
    suite = load_suite()
    answers = [x for x in items if x["item"] == "answer"]
    texts = [x for x in items if x["item"] == "text"]
    out: dict[str, Any] = {"measured": date.today().isoformat(), "labels": header["labels"],
                           "model": header["model"], "graders": header["graders"]}
    # the judges: correct is the positive class
    for name in ("facts", "heuristic"):
        judge = get_judge(name, suite=suite)
        h, m, tk = [], [], []
        scored = [x for x in answers if x["correct"] in ("correct", "incorrect")]
        verdicts = asyncio.run(_judge_all(judge, [traces[x["trace_id"]] for x in scored],
                                          suite))
        for x, v in zip(scored, verdicts, strict=True):
            t = traces[x["trace_id"]]
            if v.correct is None:
                continue
            h.append(x["correct"] == "correct")
            m.append(bool(v.correct))
            tk.append(t.task_id)
        out[name] = agreement(h, m, tk)
    rule = FabricationRule(query_vocabulary(suite.tasks))
    h, m, tk = [], [], []
    for x in answers:
        if x["fabricated"] not in ("yes", "no"):
            continue
        t = traces[x["trace_id"]]
        got = rule(t, suite.get(t.task_id))  # type: ignore[arg-type]
        if got is None:
            continue
        h.append(x["fabricated"] == "yes")
        m.append(bool(got))
        tk.append(t.task_id)
    out["fabricated"] = agreement(h, m, tk)
    out["fabricated"]["undefined"] = sum(1 for x in answers if x["fabricated"] in ("yes", "no")) \
        - len(h)
    h, m, tk = [], [], []
    for x in texts:
        h.append(bool(x["noticed"]))
        m.append(classify_text(x["text"], x["where"], x["call"]) is not None)
        tk.append(traces[x["trace_id"]].task_id)
    out["noticed"] = agreement(h, m, tk)
    out["graders"] = header["graders"]
    out["grader_agreement"] = header["grader_agreement"]
    return _clean(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    res = measure()
    for name in ("facts", "heuristic", "fabricated", "noticed"):
        r = res[name]
        pos, neg = r["positive"], r["negative"]
        print(f"{name:10s} n={r['n']:3d} prevalence={r['prevalence']:.2f} "
              f"kappa={r['kappa'] if r['kappa'] is None else round(r['kappa'], 3)} "
              f"[{r['kappa_lo']}, {r['kappa_hi']}] accuracy={r['accuracy']:.3f} "
              f"positive P/R={pos['precision']}/{pos['recall']} (n={pos['n']}) "
              f"negative P/R={neg['precision']}/{neg['recall']} (n={neg['n']})")
    if args.write:
        OUT.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
