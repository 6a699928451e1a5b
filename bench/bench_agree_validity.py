"""The agreement judge's validity: `answers_agree` (judge `agree`) and the simulated
`agree:sim-judge/...` models against a labelled set of (query, reference, candidate)
triples, each labelled ``agree`` / ``disagree`` by the rule in the set's header.

    python bench/bench_agree_validity.py [--labels PATH] [--errors] [--write]

Default set: tests/fixtures/agree_heldout2026.jsonl (scored once when it was held out;
see docs/judges.md "agree"). κ's 95 % CI resamples queries (triples of one query are not
independent). A false agree is a disagreeing candidate the judge calls agreeing (an S3
missed); a false disagree the opposite. Unscored triples (nothing comparable) are counted
apart and left out of κ. `--write` stores the `agree` figures as its validity card data
(agentprop/judges/detectors.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentprop.analysis import cohen_kappa  # noqa: E402
from agentprop.judges._agree import build_agree_messages, parse_agree  # noqa: E402
from agentprop.judges._agreement import answers_agree  # noqa: E402
from agentprop.judges._simjudge import SIM_JUDGE_PROFILES, SimJudgeModel  # noqa: E402
from agentprop.judges._validity import update_detector  # noqa: E402
from agentprop.models import GenerateConfig  # noqa: E402

DEFAULT = ROOT / "tests" / "fixtures" / "agree_heldout2026.jsonl"
SIM = ("exact", "strict", "lenient", "noisy")


def load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    header = next((r for r in rows if r.get("kind") == "header"), {})
    return header, [r for r in rows if r.get("kind") != "header"]


def _sim(profile: str) -> Callable[[str, str, str], bool | None]:
    model = SimJudgeModel(SIM_JUDGE_PROFILES[profile])
    config = GenerateConfig(temperature=0.0, max_tokens=64, seed=0)

    def decide(q: str, r: str, c: str) -> bool | None:
        out = asyncio.run(model.generate(build_agree_messages(q, r, c), [], config))
        return parse_agree(out.text)

    return decide


def score(rows: list[dict[str, Any]], decide: Callable[[str, str, str], bool | None]
          ) -> tuple[dict[str, Any], list[tuple[dict[str, Any], bool | None]]]:
    """The figures of one judge on the labelled rows, and its wrong or unscored rows."""
    got = [decide(r["query"], r["reference"], r["candidate"]) for r in rows]
    truth = [r["label"] == "agree" for r in rows]
    scored = [(g, t, r["query"]) for g, t, r in zip(got, truth, rows, strict=True)
              if g is not None]
    k = cohen_kappa([t for _, t, _ in scored], [g for g, _, _ in scored],
                    clusters=[q for _, _, q in scored], rng=2026)
    false_agrees = sum(g and not t for g, t, _ in scored)
    false_disagrees = sum(t and not g for g, t, _ in scored)
    disagree = sum(not t for t in truth)
    figures = {
        "n": len(rows), "unscored": len(rows) - len(scored),
        "tasks": len({r["query"] for r in rows}),  # the queries: κ's resampling unit
        "accuracy": sum(g == t for g, t, _ in scored) / max(1, len(scored)),
        "kappa": k.kappa, "kappa_lo": k.boot_lo, "kappa_hi": k.boot_hi,
        "false_accepts": false_agrees, "false_rejects": false_disagrees,
        "wrong": disagree, "right": len(rows) - disagree,
        "false_accept_rate": false_agrees / max(1, disagree),
        "false_reject_rate": false_disagrees / max(1, len(rows) - disagree),
    }
    errors = [(r, g) for r, g, t in zip(rows, got, truth, strict=True) if g != t]
    return figures, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--labels", type=Path, default=DEFAULT)
    ap.add_argument("--errors", action="store_true", help="list the agree judge's errors")
    ap.add_argument("--write", action="store_true",
                    help="store the agree figures in agentprop/judges/detectors.json")
    args = ap.parse_args()
    header, rows = load(args.labels)
    judges: dict[str, Callable[[str, str, str], bool | None]] = {
        "agree": lambda q, r, c: answers_agree(q, r, c)}
    judges.update({f"agree:sim-judge/{p}": _sim(p) for p in SIM})
    print(f"{args.labels.name}: {len(rows)} triples, "
          f"{sum(r['label'] == 'agree' for r in rows)} agree; load {os.getloadavg()[0]:.1f}")
    print(f"{'judge':28} {'κ [95% CI]':24} {'acc':>6} {'false agree':>12} "
          f"{'false disagree':>15} {'unscored':>9}")
    main_figures: dict[str, Any] = {}
    for name, decide in judges.items():
        f, errors = score(rows, decide)
        main_figures = main_figures or f
        print(f"{name:28} {f['kappa']:.3f} [{f['kappa_lo']:.3f}, {f['kappa_hi']:.3f}]  "
              f"{f['accuracy']:6.3f} {f['false_accepts']:>5} of {f['wrong']:<4} "
              f"{f['false_rejects']:>7} of {f['right']:<5} {f['unscored']:>9}")
        if args.errors and name == "agree":
            for r, g in errors:
                print(f"   {r['id']} label={r['label']} got={g}: {r['query']} | "
                      f"{r['reference']} | {r['candidate']}")
    if args.write:
        update_detector("agree", {
            **main_figures, "held_out": bool(header.get("held_out", False)),
            "labels": str(header.get("provenance", "")),
            "measured": datetime.now(UTC).date().isoformat(),
            "set": str(args.labels.relative_to(ROOT) if args.labels.is_relative_to(ROOT)
                       else args.labels)})
        print("wrote agentprop/judges/detectors.json (agree)")


if __name__ == "__main__":
    main()
