"""Known-truth coverage of the corrected rates (issue 21 item 1): simulated studies with a
simulated judge of stated error rates, 1,000 repeated studies per design, and how often
each method's 95 % interval covers the true rate (agentprop/analysis/_coverage.py says
what one study is). Also checks the PPI++ estimate against `ppi-python` on the studies'
own inputs where the two coincide (one stratum, no shared tasks).

    python bench/bench_ppi_coverage.py [--studies 1000] [--resamples 1000]

Prints one table per design (coverage, mean bias, mean CI width, studies where the method
was defined) and the largest PPI++ vs ppi-python difference. bench/README.md records it.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from agentprop.analysis._coverage import SCENARIOS, Scenario, coverage
from agentprop.analysis._ppi import ppi_mean_ci


def _against_ppi_python(studies: int, seed: int) -> float:
    """The largest |difference| of point, lower and upper bound over random inputs."""
    from ppi_py import ppi_mean_ci as ref_ci
    from ppi_py import ppi_mean_pointestimate as ref_point

    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(studies):
        n, big_n = int(rng.integers(20, 400)), int(rng.integers(50, 5000))
        p, acc = float(rng.uniform(0.05, 0.95)), float(rng.uniform(0.5, 1.0))
        y = (rng.random(n) < p).astype(float)
        f = np.where(rng.random(n) < acc, y, 1 - y)
        y_u = (rng.random(big_n) < p).astype(float)
        f_u = np.where(rng.random(big_n) < acc, y_u, 1 - y_u)
        value, lo, hi, _ = ppi_mean_ci(y, f, f_u)
        r_lo, r_hi = ref_ci(y, f, f_u, alpha=0.05)
        r_v = ref_point(y, f, f_u)
        worst = max(worst, abs(value - float(np.ravel(r_v)[0])),
                    abs(lo - float(np.ravel(r_lo)[0])), abs(hi - float(np.ravel(r_hi)[0])))
    return worst


def _describe(sc: Scenario) -> str:
    rest = (f"; rest: se {sc.rest_sensitivity}, sp {sc.rest_specificity}"
            if sc.errors_differ else "")
    where = ("labels: by verdict inside the target" if sc.by_verdict else
             "labels: at random inside the target" if sc.labels_in_target else
             "labels: at random from the whole workspace")
    tasks = f"; {sc.traces_per_task} traces per task" if sc.traces_per_task > 1 else ""
    return (f"π {sc.prevalence}, rest {sc.rest_prevalence}; judge se {sc.sensitivity}, "
            f"sp {sc.specificity}{rest}; {sc.n_target}+{sc.n_rest} traces, "
            f"{sc.n_labels} {where}{tasks}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261202)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}; {args.studies} studies per design, "
          f"{args.resamples} bootstrap resamples")
    t0 = time.perf_counter()
    worst = _against_ppi_python(200, args.seed)
    print(f"PPI++ vs ppi-python, 200 random inputs: largest |difference| {worst:.2e}")
    pd.set_option("display.width", 120)
    for sc in SCENARIOS:
        t = time.perf_counter()
        table = coverage(sc, args.studies, seed=args.seed, n_resamples=args.resamples)
        print(f"\n{sc.name}\n  {_describe(sc)}  ({time.perf_counter() - t:.0f} s)")
        show = table[["method", "coverage", "bias", "width", "defined"]]
        print(show.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
