"""Peak RSS of a 20,000-trace run (target < 500 MB): the runner must stream traces to the
workspace, never hold them all.

    python bench/bench_memory.py [--traces 20000] [--model sim/balanced]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import tempfile
import time
from pathlib import Path

from agentprop.runner import make_models, plan_units, run_units
from agentprop.store import Workspace
from agentprop.suite import load_suite


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--traces", type=int, default=20_000)
    ap.add_argument("--model", default="sim/balanced")
    ap.add_argument("--concurrency", type=int, default=32)
    args = ap.parse_args()

    suite = load_suite()
    tasks = suite.select(split="test")
    seeds = range(-(-args.traces // len(tasks)))
    units = plan_units("mem", [args.model], tasks, ["baseline"], seeds=seeds)[: args.traces]
    before = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "ws")
        models = make_models([args.model], workspace=ws, suite=suite)
        t0 = time.perf_counter()
        summary = asyncio.run(
            run_units(
                units,
                workspace=ws,
                suite=suite,
                models=models,
                concurrency=args.concurrency,
                progress=False,
            )
        )
        wall = time.perf_counter() - t0
        stored = ws.count_traces()
        db_mb = (ws.path / "agentprop.sqlite").stat().st_size / 2**20
        ws.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"traces {stored} (completed {summary.completed})  wall {wall:.1f} s  "
        f"RSS before run {before:.0f} MB  peak RSS {peak:.0f} MB  after {rss_mb():.0f} MB  "
        f"database {db_mb:.0f} MB  load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
