"""Agreement of the leaked-call detector with the labelled examples (issue 26 item 5).

    python bench/bench_leaked.py             # the development set (tuned on)
    python bench/bench_leaked.py --holdout   # the held-out set: score it once

Prints n, agreement on leaked yes/no, Cohen's κ with its cluster-bootstrap CI, precision,
recall and agreement on the tool named, per source (written, smollm2) and overall, then
the detector's time per text. The labelling rule is at the top of each fixture.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agentprop.agent._leaked import leaked_calls
from agentprop.analysis import cohen_kappa
from agentprop.core import ToolSpec

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures"


def load(name: str) -> list[dict]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]


def detect(row: dict) -> list:
    specs = [ToolSpec(name=n, description="", parameters={"type": "object"})
             for n in row["tools"]]
    return leaked_calls(row["text"], specs)


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "undefined (n=0)"


def score(rows: list[dict], label: str) -> None:
    if not rows:
        return
    found = [detect(r) for r in rows]
    det = [bool(f) for f in found]
    human = [bool(r["leaked"]) for r in rows]
    tp = sum(h and d for h, d in zip(human, det, strict=True))
    fp = sum(d and not h for h, d in zip(human, det, strict=True))
    fn = sum(h and not d for h, d in zip(human, det, strict=True))
    agree = sum(h == d for h, d in zip(human, det, strict=True))
    tool_ok = sum((f[0].name if f else None) == r["tool"] for f, r in zip(found, rows,
                                                                             strict=True))
    k = cohen_kappa(det, human, n_resamples=1000, rng=42)
    print(f"{label}: n={len(rows)} (leaked {sum(human)}) agree={agree}/{len(rows)} "
          f"kappa={k.kappa:.3f} [{k.boot_lo:.3f}, {k.boot_hi:.3f}] "
          f"precision={_ratio(tp, tp + fp)} recall={_ratio(tp, tp + fn)} "
          f"tool={tool_ok}/{len(rows)}")
    for r, d in zip(rows, det, strict=True):
        if d != r["leaked"] and "--show" in sys.argv:
            print(f"   disagree {r['id']}: human={r['leaked']} detector={d}: {r['text']!r:.160}")


def main() -> None:
    name = "leaked_holdout.jsonl" if "--holdout" in sys.argv else "leaked_dev.jsonl"
    rows = load(name)
    for source in sorted({r["source"] for r in rows}):
        score([r for r in rows if r["source"] == source], f"{name} [{source}]")
    score(rows, f"{name} [all]")
    t0 = time.perf_counter()
    for r in rows:
        detect(r)
    print(f"{(time.perf_counter() - t0) / len(rows) * 1e6:.0f} us/text")


if __name__ == "__main__":
    main()
