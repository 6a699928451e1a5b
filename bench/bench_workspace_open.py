"""Benchmark: what the integrity check on open costs (issue 16).

    python bench/bench_workspace_open.py [--traces 20000]

Runs `sim/balanced` over the built-in suite (baseline and P2, in process) until the
workspace holds about `--traces` real traces, then times opening it with and without
`PRAGMA quick_check` (median of 5 opens; the file is in the page cache, as it is right
after a run), and the size of the database.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from agentprop.runner import plan_units, run_units_sync
from agentprop.store import Workspace
from agentprop.suite import load_suite


def _open_s(path: Path, check: bool, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        Workspace(path, create=False, check=check).close()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=20_000)
    args = ap.parse_args()
    suite = load_suite()
    tasks = [t for t in suite.tasks if t.domain != "knowledge"]
    seeds = range(max(1, -(-args.traces // (2 * len(tasks)))))
    units = plan_units("bench", ["sim/balanced"], tasks, ["baseline", "p2:semantic_wrong"],
                       seeds=seeds)[: args.traces]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "w")
        t0 = time.perf_counter()
        run_units_sync(units, workspace=ws, suite=suite, progress=False)
        run_s = time.perf_counter() - t0
        n = ws.count_traces()
        ws.close()
        size = (Path(tmp) / "w" / "agentprop.sqlite").stat().st_size / 1e6
        plain, checked = _open_s(Path(tmp) / "w", False), _open_s(Path(tmp) / "w", True)
    print(f"traces={n} db={size:.0f}MB run={run_s:.1f}s open={plain * 1000:.1f}ms "
          f"open+quick_check={checked * 1000:.1f}ms")


if __name__ == "__main__":
    main()
