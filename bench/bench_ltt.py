"""Known-truth check of the interceptor's threshold guarantee (analysis/_ltt.py): simulated
tuning studies whose configurations' true false-abstain rates are stated (`LttScenario`),
1,000 repeated studies per design, and how often the configuration Learn-then-Test chooses
has a true rate above α (promised: at most δ), beside the naive rule (empirical rate ≤ α).

    python bench/bench_ltt.py [--studies 1000] [--seed 42]

bench/README.md records the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import time

from agentprop.analysis import LttScenario, ltt_coverage
from agentprop.analysis._ltt import LttMethod

DESIGNS = (
    LttScenario(prevalence=0.2),
    LttScenario(prevalence=0.5),
    LttScenario(traces=150, prevalence=0.3),
    # a tighter promise with true rates packed around it (0.055 and 0.045 either side)
    LttScenario(traces=1000, prevalence=0.3, alpha=0.05, delta=0.05,
                right=(0.5, 0.3, 0.2, 0.12, 0.09, 0.07, 0.06, 0.055, 0.045, 0.03, 0.01,
                       0.002)),
)
METHODS: tuple[LttMethod, ...] = ("bonferroni", "fixed_sequence")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    start = time.time()
    for sc in DESIGNS:
        slack = 3 * math.sqrt(sc.delta * (1 - sc.delta) / args.studies)
        for method in METHODS:
            r = ltt_coverage(sc, args.studies, seed=args.seed, method=method)
            print(f"N {sc.traces}, prevalence {sc.prevalence}, α {sc.alpha}, δ {sc.delta}, "
                  f"{method}: violation {r['violation']:.3f} (≤ {sc.delta + slack:.3f}), "
                  f"chose {r['chosen_share']:.3f}, mean true recall {r['mean_recall']:.3f}; "
                  f"naive violation {r['naive_violation']:.3f}")
    print(f"{time.time() - start:.2f} s; load {os.getloadavg()[0]:.1f}; "
          f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()
