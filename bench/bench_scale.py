"""Benchmark: `agentprop analyze` and `agentprop report` on a workspace of N traces on disk.

    python bench/bench_scale.py --traces 200000 [--workspace DIR] [--keep] [--reuse]

Builds the workspace through the store as a run would (`Workspace.put_traces` and
`put_verdicts` in batches, so a million traces never sit in memory at once), with
bench_analysis.py's trace shapes: six judges' verdicts (primary `facts`), 100 labels.
Then runs `agentprop analyze -w W --json` and `agentprop report -w W` as separate
processes (the way a user does) and measures each one's wall time and peak RSS (its own
rusage, from wait4). The last line printed is one JSON object: traces, build_s,
analyze_s, report_s, peak_rss_mb (the larger of the two commands'), and per command
rss and CPU seconds. Targets (issue #25): 200k traces in 30 s and 1 GB, 1M in 2 min and 4 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_analysis import generate, labels_for

from agentprop.experiment._execute import stage_recorder
from agentprop.store import Workspace

ROOT = Path(__file__).resolve().parents[1]
CLI = "from agentprop.cli import main; main()"


def build(path: Path, n_traces: int, batch: int = 5000, stored_stages: bool = True) -> float:
    """Write n synthetic traces, their verdicts and 100 labels; seconds taken. Each
    trace's stage row is written with it, as the runner's writer does (`stored_stages`
    False: without, as an agentprop before the stage table wrote them)."""
    t0 = time.perf_counter()
    ws = Workspace(path)
    try:
        ws.update_meta(primary_judge="facts")
        stages = None if stored_stages is False else stage_recorder(ws)  # as a run does
        ids: list[str] = []
        traces, verdicts = [], []
        for trace, vs in generate(n_traces):
            traces.append(trace)
            verdicts.extend(vs)
            ids.append(trace.id)
            if len(traces) >= batch:
                ws.put_traces(traces, stages=stages)
                ws.put_verdicts(verdicts)
                traces, verdicts = [], []
        if traces:
            ws.put_traces(traces, stages=stages)
            ws.put_verdicts(verdicts)
        ws.put_labels(labels_for(ids))
    finally:
        ws.close()
    return time.perf_counter() - t0


def timed(args: list[str], out: Path | None = None, ok: tuple[int, ...] = (0,),
          src: Path = ROOT) -> tuple[float, float, str, float]:
    """Run `agentprop ARGS` as a child process: seconds, its peak RSS in MB, stdout, and
    its CPU seconds (user + system: on a shared machine, the wall time also counts the
    time other processes held the cores; an exit status outside `ok` stops the
    benchmark)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as buf, tempfile.TemporaryFile() as err:
        # run in `src`: `python -c` puts the current folder first on sys.path
        proc = subprocess.Popen([sys.executable, "-c", CLI, *args], env=env, cwd=src,
                                stdout=buf, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        buf.seek(0)
        text = buf.read().decode()
        if proc.returncode not in ok:
            err.seek(0)
            raise SystemExit(f"agentprop {' '.join(args)} exited {proc.returncode}: "
                             + err.read().decode()[-2000:])
    if out is not None:
        out.write_text(text)
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, usage.ru_maxrss / 1024, text, cpu  # ru_maxrss is in KB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=20_000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--workspace", type=Path, help="build here (default: a temp folder)")
    ap.add_argument("--reuse", action="store_true", help="time an existing --workspace")
    ap.add_argument("--keep", action="store_true", help="keep the workspace")
    ap.add_argument("--no-stages", action="store_true",
                    help="write no stage rows (the first analysis back-fills them)")
    ap.add_argument("--src", type=Path, default=ROOT,
                    help="folder holding the agentprop package the commands run (e.g. one "
                    "exported from another git ref, to time the code before a change)")
    args = ap.parse_args()
    base = args.workspace or Path(tempfile.mkdtemp(prefix="bench-scale-")) / "ws"
    try:
        build_s = 0.0
        if not args.reuse:
            if base.exists():
                shutil.rmtree(base)
            build_s = build(base, args.traces, stored_stages=not args.no_stages)
            print(f"built {args.traces} traces in {build_s:.1f} s: {base}", flush=True)
        common = ["-w", str(base), "--resamples", str(args.resamples)]
        analyze_s, analyze_mb, _, analyze_cpu = timed(["analyze", *common, "--json"],
                                                      base / "analyze.json", src=args.src)
        print(f"analyze {analyze_s:.1f} s (CPU {analyze_cpu:.1f} s), peak RSS "
              f"{analyze_mb:.0f} MB", flush=True)
        # report exits 1 on invariant violations, which the synthetic arms have (their
        # pairing is bench_analysis's, not a run's): the report is written all the same
        (base / "report" / "numbers.json").unlink(missing_ok=True)
        report_s, report_mb, _, report_cpu = timed(["report", *common], ok=(0, 1),
                                                   src=args.src)
        if not (base / "report" / "numbers.json").is_file():
            raise SystemExit("agentprop report wrote no numbers.json")
        print(f"report {report_s:.1f} s (CPU {report_cpu:.1f} s), peak RSS {report_mb:.0f} MB",
              flush=True)
    finally:
        if not args.keep and args.workspace is None:
            shutil.rmtree(base.parent, ignore_errors=True)
    print(json.dumps({"traces": args.traces, "build_s": round(build_s, 1),
                      "analyze_s": round(analyze_s, 1), "report_s": round(report_s, 1),
                      "analyze_cpu_s": round(analyze_cpu, 1),
                      "report_cpu_s": round(report_cpu, 1),
                      "peak_rss_mb": round(max(analyze_mb, report_mb)),
                      "analyze_rss_mb": round(analyze_mb), "report_rss_mb": round(report_mb),
                      "load": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
