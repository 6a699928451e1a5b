"""Harness overhead: 2,000 test tasks, in-process sim model at zero latency, concurrency 32,
including storage. Reports wall ms per trace (target < 2 ms on a 2-core machine).

    python bench/bench_harness.py [--tasks 2000] [--model sim/balanced] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import tempfile
import time
from pathlib import Path

from agentprop.core import ModelCallEvent
from agentprop.runner import make_models, plan_units, run_units
from agentprop.store import Workspace
from agentprop.suite import load_suite


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tasks", type=int, default=2000)
    ap.add_argument("--model", default="sim/balanced")
    ap.add_argument("--condition", default="baseline")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    suite = load_suite()
    tasks = suite.select(split="test")[: args.tasks]
    units = plan_units("bench", [args.model], tasks, [args.condition])
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "ws")
        models = make_models([args.model], workspace=ws, suite=suite)
        prof = cProfile.Profile() if args.profile else None
        t0 = time.perf_counter()
        c0 = time.process_time()
        if prof:
            prof.enable()
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
        if prof:
            prof.disable()
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        stored = ws.count_traces()
        calls = sum(isinstance(e, ModelCallEvent) for t in ws.iter_traces() for e in t.events)
        ws.close()
    per = wall / len(units) * 1000
    print(
        f"traces {stored}/{len(units)}  model calls {calls}  wall {wall:.2f} s  "
        f"{per:.2f} ms/trace  ({summary.completed / wall:.0f} traces/s)  "
        f"process CPU {cpu / len(units) * 1000:.2f} ms/trace  load {os.getloadavg()[0]:.1f}"
    )
    if prof:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
        print(s.getvalue())


if __name__ == "__main__":
    main()
