"""Benchmark: `agentprop judge --judge facts` on a workspace of N real-answer traces on disk.

    python bench/bench_judge_scale.py --traces 200000 [--workers 0 2] [--seed-workspace S]
        [--workspace DIR] [--keep] [--reuse]

The facts judge needs real suite tasks and answers, so the workspace is grown from a seed:
a real `agentprop run` of sim models over the built-in suite (3 models × baseline and
p2:all, `--seed-n` tasks of both splits; or `--seed-workspace`, an existing run). Its
traces are replicated through the store as a run writes them (`put_traces` with their
stage rows, in batches, streamed: never all in memory) until N are stored. Replica k of a
trace gets a new id, seed + 1000·k, and its final answer with k trailing spaces: the facts
judge's verdict is the same (checked on 2,000 answers: raw identical), but its per-answer
reading cache (`Vocabulary.reading`) cannot serve one replica from another, so answers
recur across traces only as often as in the seed run itself.

Then `agentprop judge -w W --judge facts --json [--workers K]` runs as a separate process
for each `--workers` value (0: the serial path, no flag; `--src DIR` runs another tree's
code, e.g. `git archive` of main before the change), after deleting the facts
verdicts of the previous pass. Measured: wall time, the peak RSS of the command's own
process from wait4 (rusage; with workers, the largest single process of the tree), its CPU seconds
(user + system, workers included: steadier than wall on a shared machine), and
the peak summed RSS of the process tree, sampled from /proc every 0.2 s. The last line
printed is one JSON object: traces, judge_s, traces_per_s, peak_rss_mb (of the last
pass) and `passes`, one object per --workers value.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentprop.core import FinalEvent, Trace
from agentprop.experiment._execute import stage_recorder
from agentprop.store import Workspace

ROOT = Path(__file__).resolve().parents[1]
CLI = "from agentprop.cli import main; main()"
SEED_RUN = ["-m", "sim/balanced", "-m", "sim/propagator", "-m", "sim/self-correcting",
            "-c", "baseline", "-c", "p2:all", "--split", "all"]


def agentprop(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, cwd=ROOT, text=True,
                          capture_output=True, check=True)


def seed_workspace(path: Path, n_tasks: int) -> float:
    """A real run of sim models (the traces the replicas copy); seconds taken."""
    t0 = time.perf_counter()
    agentprop(["run", "-w", str(path), *SEED_RUN, "-n", str(n_tasks), "--json"])
    return time.perf_counter() - t0


def replica(trace: Trace, k: int) -> Trace:
    """Copy k of a seed trace: new id and seed, the answer with k trailing spaces."""
    events = list(trace.events)
    for i in range(len(events) - 1, -1, -1):
        ev = events[i]
        if isinstance(ev, FinalEvent):
            if ev.answer is not None and k:
                events[i] = ev.model_copy(update={"answer": ev.answer + " " * k})
            break
    return trace.model_copy(update={"id": f"{trace.id}.{k}", "seed": trace.seed + 1000 * k,
                                    "events": events})


def replicas(seed: Path, n: int) -> Iterator[tuple[Trace, list[Any]]]:
    """n (trace, stage row) pairs: the seed's, pass after pass, re-read from disk."""
    made = 0
    k = 0
    while made < n:
        with Workspace(seed, create=False) as src:
            cols = [c[1] for c in src.conn.execute("PRAGMA table_info(stages)")]
            answer = cols.index("answer")
            cur = src.conn.execute("SELECT t.data, s.* FROM traces t JOIN stages s ON "
                                   "s.trace_id = t.id ORDER BY t.rowid")
            for data, *row in cur:
                t = replica(Trace.model_validate_json(data), k)
                row[0] = t.id
                if row[answer] is not None:
                    row[answer] += " " * k
                yield t, row
                made += 1
                if made >= n:
                    return
        k += 1


def build(path: Path, seed: Path, n: int, batch: int = 5000) -> float:
    """Store n replicated traces with their stage rows, in batches; seconds taken. A
    replica's stage row is its seed trace's (same suite, same context): recomputing it
    (the `fabricated` rule reads every answer) would make the build slower than judging."""
    t0 = time.perf_counter()
    with Workspace(seed, create=False) as src:
        runs = src.runs()
    with Workspace(path) as ws:
        for r in runs:
            ws.put_run(r)
        context = stage_recorder(ws)[0]
        rows: dict[str, list[Any]] = {}
        # put_traces writes each trace's stage row in its transaction, as a run's writer
        # does; the row function hands over the seed's values, context checked
        stages = (context, lambda t: rows.pop(t.id))
        traces: list[Trace] = []
        for t, row in replicas(seed, n):
            if row[1] != context:
                raise SystemExit(f"seed stage rows are of {row[1]}, not {context}")
            traces.append(t)
            rows[t.id] = row[2:]
            if len(traces) >= batch:
                ws.put_traces(traces, stages=stages)
                traces = []
        if traces:
            ws.put_traces(traces, stages=stages)
    return time.perf_counter() - t0


def build_sql(path: Path, seed: Path, n: int) -> float:
    """`build`'s workspace, copied in SQL from the seed database (one INSERT … SELECT per
    pass: ~10x faster, for a million traces); the same ids, seeds, answers and stage rows,
    the trace JSON edited with json_set instead of going through `put_traces`."""
    t0 = time.perf_counter()
    with Workspace(seed, create=False) as src:
        runs = src.runs()
        m = src.count_traces()
    with Workspace(path) as ws:
        for r in runs:
            ws.put_run(r)
        context = stage_recorder(ws)[0]
        c = ws.conn
        c.execute("ATTACH ? AS src", (str(seed / "agentprop.sqlite"),))
        cols = [r[1] for r in c.execute("PRAGMA src.table_info(stages)")]
        if {r[0] for r in c.execute("SELECT DISTINCT context FROM src.stages")} != {context}:
            raise SystemExit(f"seed stage rows are not all of {context}")
        made, k = 0, 0
        while made < n:
            take = min(m, n - made)
            spaces = " " * k
            new_id = f"t.id || '.{k}'"
            at = "'$.events[' || t.i || '].answer'"
            data = (f"CASE WHEN t.i IS NULL OR json_extract(t.data, {at}) IS NULL "
                    f"THEN json_set(t.data, '$.id', {new_id}, '$.seed', t.seed + {1000 * k}) "
                    f"ELSE json_set(t.data, '$.id', {new_id}, '$.seed', t.seed + {1000 * k}, "
                    f"{at}, json_extract(t.data, {at}) || '{spaces}') END")
            final = ("(SELECT max(CAST(e.key AS INTEGER)) FROM json_each(x.data, '$.events') e"
                     " WHERE json_extract(e.value, '$.type') = 'final')")
            stage = ", ".join(f"s.\"{col}\" || '{spaces}'" if col == "answer"
                              else f"s.\"{col}\"" for col in cols[2:])
            with c:
                c.execute(f"""INSERT INTO traces SELECT {new_id}, t.run_id, t.model, t.task_id,
                    t.domain, t.split, t.difficulty, t.condition, t.seed + {1000 * k}, t.arm,
                    t.status, t.simulated, t.started_at, t.ended_at, {data}
                    FROM (SELECT x.*, {final} AS i FROM src.traces x ORDER BY x.rowid
                          LIMIT {take}) t""")
                c.execute(f"""INSERT INTO stages SELECT s.trace_id || '.{k}', s.context, {stage}
                    FROM (SELECT id FROM src.traces ORDER BY rowid LIMIT {take}) t
                    JOIN src.stages s ON s.trace_id = t.id""")
            made += take
            k += 1
    return time.perf_counter() - t0


def _tree_rss_kb(pid: int) -> int:
    """Summed VmRSS of `pid` and its descendants (0 for those already gone)."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(line.split()[1]) for line in f
                               if line.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def timed_judge(ws: Path, workers: int, src: Path = ROOT) -> dict[str, float]:
    """`agentprop judge -w WS --judge facts` as a child process: wall seconds, its own
    peak RSS (wait4) and the peak summed RSS of its process tree, in MB."""
    args = ["judge", "-w", str(ws), "--judge", "facts", "--json"]
    if workers:
        args += ["--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    peak_tree = 0
    done = threading.Event()
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # run in `src`: `python -c` puts the current folder first on sys.path
        proc = subprocess.Popen([sys.executable, "-c", CLI, *args], env=env, cwd=src,
                                stdout=out, stderr=err)

        def sample() -> None:
            nonlocal peak_tree
            while not done.wait(0.2):
                peak_tree = max(peak_tree, _tree_rss_kb(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"agentprop {' '.join(args)} exited {proc.returncode}: "
                             + err.read().decode()[-2000:])
        out.seek(0)
        summary = json.loads(out.read().decode())
    written = summary["judges"]["facts"]["written"]
    return {"workers": workers, "judged": written, "judge_s": round(seconds, 1),
            "traces_per_s": round(written / seconds, 1),
            # CPU of the command and its reaped workers: steadier than wall on a shared machine
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024),  # KB on Linux
            "tree_rss_mb": round(peak_tree / 1024), "load": round(os.getloadavg()[0], 2)}


def forget_verdicts(ws: Path) -> None:
    with sqlite3.connect(ws / "agentprop.sqlite") as c:
        c.execute("DELETE FROM verdicts WHERE judge = 'facts'")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=20_000)
    ap.add_argument("--workers", type=int, nargs="+", default=[0],
                    help="one pass per value; 0 is the serial path (default: 0)")
    ap.add_argument("--seed-workspace", type=Path, help="an existing run to replicate")
    ap.add_argument("--seed-n", type=int, default=600, help="tasks of the seed run")
    ap.add_argument("--workspace", type=Path, help="build here (default: a temp folder)")
    ap.add_argument("--reuse", action="store_true", help="time an existing --workspace")
    ap.add_argument("--sql-build", action="store_true",
                    help="copy the replicas in SQL (build_sql), not through put_traces")
    ap.add_argument("--keep", action="store_true", help="keep the workspace")
    ap.add_argument("--src", type=Path, default=ROOT,
                    help="folder holding the agentprop package the judge runs (e.g. one "
                    "exported from another git ref, to time the code before a change)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-judge-scale-"))
    base = args.workspace or tmp / "ws"
    passes: list[dict[str, float]] = []
    build_s = 0.0
    try:
        if not args.reuse:
            seed = args.seed_workspace
            if seed is None:
                seed = tmp / "seed"
                print(f"seed run in {seed_workspace(seed, args.seed_n):.1f} s", flush=True)
            if base.exists():
                shutil.rmtree(base)
            build_s = (build_sql if args.sql_build else build)(base, seed, args.traces)
            print(f"built {args.traces} traces in {build_s:.1f} s: {base}", flush=True)
        for w in args.workers:
            forget_verdicts(base)
            r = timed_judge(base, w, args.src)
            passes.append(r)
            print(json.dumps(r), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
            if args.workspace is None:
                shutil.rmtree(base, ignore_errors=True)
    last = passes[-1]
    print(json.dumps({"traces": args.traces, "build_s": round(build_s, 1),
                      "judge_s": last["judge_s"], "traces_per_s": last["traces_per_s"],
                      "peak_rss_mb": last["peak_rss_mb"], "passes": passes}))


if __name__ == "__main__":
    main()
