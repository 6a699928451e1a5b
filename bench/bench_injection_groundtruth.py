"""Ground truth for P2: run every sim profile under p2:semantic_wrong on test tasks of the
four injectable domains, judge with the facts judge, and compare the measured rates (95 %
cluster-bootstrap CIs) with each profile's stated `true_rates()`.

    python bench/bench_injection_groundtruth.py [tasks_per_domain=100]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from agentprop.analysis.stages import propagation_rates, stage_table
from agentprop.judges import judge_workspace
from agentprop.runner import plan_units, run_units_sync
from agentprop.sim import PROFILES
from agentprop.store import Workspace
from agentprop.suite import Suite, get_generator

DOMAINS = ("weather", "calendar", "medical", "retail")


def main(per_domain: int = 100) -> None:
    tasks = [t for d in DOMAINS for t in get_generator(d).generate(per_domain, seed=7)]
    suite = Suite(tasks, seed=7)
    units = plan_units("gt", [f"sim/{p}" for p in sorted(PROFILES)], tasks,
                       ["p2:semantic_wrong"])
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "ws") as ws:
        t0 = time.perf_counter()
        run_units_sync(units, workspace=ws, suite=suite, progress=False, concurrency=16)
        t1 = time.perf_counter()
        judge_workspace(ws, ["facts"], suite=suite, progress=False)
        verdicts = {v.trace_id: v.correct for v in ws.verdicts("facts")}
        df = stage_table(ws.iter_traces(), verdicts)
    rates = propagation_rates(df, by="model", rng_seed=42, n_boot=1000)
    print(f"{len(units)} episodes in {t1 - t0:.1f}s ({len(tasks)} tasks per profile)\n")
    print("| profile | rate | stated | measured [95% CI] | n | inside |")
    print("|---|---|---|---|---|---|")
    for r in rates.to_dict("records"):
        truth = PROFILES[r["model"].removeprefix("sim/")].true_rates()
        for rate, key in (("no_tool", "no_tool"), ("S2_share", "tool_use"),
                          ("corrected", "correction_given_S2"), ("r_23", "r_23")):
            lo, hi, v = r[f"{rate}_lo"], r[f"{rate}_hi"], truth[key]
            ok = "yes" if lo - 1e-9 <= v <= hi + 1e-9 else "NO"
            print(f"| {r['model']} | {rate} | {v:.3f} | {r[rate]:.3f} [{lo:.3f}, {hi:.3f}] "
                  f"| {r[f'{rate}_n']} | {ok} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
