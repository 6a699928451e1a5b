"""Agreement of an LLM `noticed` classifier (`--noticed llm:MODEL`) with the labelled sets.

    python bench/bench_noticed_llm.py --model MODEL [--labels PATH] [--limit N]

Asks MODEL (e.g. local/smollm2-135m, sim-noticed/noisy) the classifier's question of each
labelled text of the sets bench/bench_noticed.py reads (tests/fixtures/noticed_*.jsonl;
`--labels PATH`: one file in the same format) and prints per set: n, scored, unscored, κ on
the scored texts with a bootstrap CI (the project's `cohen_kappa`), precision and recall of
"noticed", kind agreement on the scored texts, and seconds per text. An unscored reply is
never read as "not noticed": it is left out of κ, precision, recall and kind, and counted.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_noticed import FIXTURES, SETS, load

from agentprop.analysis import cohen_kappa
from agentprop.judges._noticed import NoticedClassifier
from agentprop.models import get_model


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _fmt(x: float | None) -> str:
    return "-" if x is None or x != x else f"{x:.3f}"  # None or NaN: undefined


async def read_all(clf: NoticedClassifier, rows: list[dict]) -> tuple[list[str], float]:
    """The classifier's reading of each row (in order) and the seconds per text."""
    t0 = time.perf_counter()
    readings = []
    for r in rows:
        asked = await clf.ask(r["text"], r["where"], r["call"])
        readings.append(asked.reading or "unscored")  # a failed call is not a reading
    return readings, (time.perf_counter() - t0) / max(1, len(rows))


def score(rows: list[dict], readings: list[str], per_text_s: float) -> dict[str, Any]:
    """n, scored, unscored, κ [CI], precision, recall, kind agreement on the scored."""
    scored = [(r, x) for r, x in zip(rows, readings, strict=True) if x != "unscored"]
    human = [bool(r["noticed"]) for r, _ in scored]
    det = [x != "none" for _, x in scored]
    tp = sum(h and d for h, d in zip(human, det, strict=True))
    fp = sum(d and not h for h, d in zip(human, det, strict=True))
    fn = sum(h and not d for h, d in zip(human, det, strict=True))
    k = cohen_kappa(det, human, n_resamples=1000, rng=42) if scored else None
    kind_ok = sum((None if x == "none" else x) == r["kind"] for r, x in scored)
    return {"n": len(rows), "scored": len(scored), "unscored": len(rows) - len(scored),
            "kappa": None if k is None else k.kappa,
            "kappa_lo": None if k is None else k.boot_lo,
            "kappa_hi": None if k is None else k.boot_hi,
            "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn),
            "agree": sum(h == d for h, d in zip(human, det, strict=True)),
            "kind_ok": kind_ok, "per_text_s": per_text_s}


def line(name: str, s: dict[str, Any]) -> str:
    return (f"{name}: n={s['n']} scored={s['scored']} unscored={s['unscored']} "
            f"agree={s['agree']}/{s['scored']} kappa={_fmt(s['kappa'])} "
            f"[{_fmt(s['kappa_lo'])}, {_fmt(s['kappa_hi'])}] "
            f"precision={_fmt(s['precision'])} recall={_fmt(s['recall'])} "
            f"kind={s['kind_ok']}/{s['scored']} {s['per_text_s']:.3f} s/text")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="provider/name, e.g. local/smollm2-135m")
    ap.add_argument("--labels", type=Path, default=None, help="score this JSONL file only")
    ap.add_argument("--limit", type=int, default=None, help="at most N texts per set")
    ap.add_argument("-o", "--option", action="append", default=[],
                    help="model option KEY=VALUE (e.g. n_threads=2)")
    args = ap.parse_args()
    options = dict(o.split("=", 1) for o in args.option)
    clf = NoticedClassifier(get_model(args.model, **options))
    paths = [args.labels] if args.labels is not None else [FIXTURES / n for n in SETS]
    print(f"classifier {clf.name}")
    for path in paths:
        rows = load(path)[: args.limit]
        readings, per_text = asyncio.run(read_all(clf, rows))
        print(line(path.name, score(rows, readings, per_text)), flush=True)


if __name__ == "__main__":
    main()
