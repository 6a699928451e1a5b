"""The demo's judging step alone: every trace of a demo workspace judged again from scratch.

    agentprop demo -w W            # once
    python bench/bench_demo_judging.py W [--profile OUT.prof]

Copies W (without its report), deletes the copy's verdicts and response cache, and runs
`judge_workspace` with the demo's judges (heuristic, facts, the three-member sim-judge
ensemble; primary facts) as the demo does. Prints traces per second of wall and of CPU
time (CPU is the steadier figure on a shared machine). Run it with another tree's code by
setting PYTHONPATH to a folder holding that `agentprop/`. With `--profile`, writes cProfile
stats and prints the 25 costliest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

JUDGES = ["heuristic", "facts", "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workspace", type=Path)
    ap.add_argument("--profile", type=Path)
    a = ap.parse_args()

    import agentprop
    from agentprop.judges import judge_workspace
    from agentprop.store import Workspace
    from agentprop.suite import load_suite

    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "ws"
        shutil.copytree(a.workspace, dst, ignore=shutil.ignore_patterns("report"))
        with sqlite3.connect(dst / "agentprop.sqlite") as c:
            c.execute("DELETE FROM verdicts")
            c.execute("DELETE FROM cache")
        suite = load_suite()
        with Workspace(dst, create=False) as ws:
            n = ws.count_traces()
            prof = cProfile.Profile() if a.profile else None
            t0, c0 = time.perf_counter(), time.process_time()
            if prof:
                prof.enable()
            judge_workspace(ws, JUDGES, suite=suite, primary="facts", progress=False)
            if prof:
                prof.disable()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"agentprop from {Path(agentprop.__file__).parent}")
    print(f"traces={n} judges={len(JUDGES)} (+3 ensemble members) wall={wall:.1f}s "
          f"cpu={cpu:.1f}s -> {n / wall:.0f} traces/s wall, {n / cpu:.0f} traces/s cpu")
    if prof and a.profile:
        prof.dump_stats(a.profile)
        pstats.Stats(str(a.profile)).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
