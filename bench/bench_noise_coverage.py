"""Known-truth coverage of the noise floor and of propagation beyond it (analysis/_noise.py):
simulated studies with a stated task-level noise and propagation, 1,000 repeated studies
per design, and how often each 95 % task-clustered bootstrap interval covers its truth
(`NoiseScenario` says what one study is).

    python bench/bench_noise_coverage.py [--studies 1000] [--resamples 1000]

bench/README.md records the figures.
"""

from __future__ import annotations

import argparse
import os
import time

from agentprop.analysis._noise import NoiseScenario, noise_coverage

DESIGNS = (
    NoiseScenario(),
    NoiseScenario(tasks=20, seeds=2),
    NoiseScenario(tasks=100, seeds=5, propagation=0.5),
    NoiseScenario(tasks=40, seeds=3, propagation=0.0, noise_a=1.0, noise_b=19.0),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    start = time.time()
    for sc in DESIGNS:
        res = noise_coverage(sc, args.studies, n_resamples=args.resamples)
        print(f"{sc.tasks} tasks × {sc.seeds} seeds, π {sc.propagation}, q ~ "
              f"Beta({sc.noise_a}, {sc.noise_b}): floor {res['true_floor']:.3f} covered "
              f"{res['floor_coverage']:.3f}; beyond {res['true_beyond']:.3f} covered "
              f"{res['beyond_coverage']:.3f} (bias {res['beyond_bias']:+.4f}, width "
              f"{res['beyond_width']:.3f})")
    print(f"{time.time() - start:.1f} s; load {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
