"""Start-up cost of the `agentprop` command: wall and CPU time of fresh processes.

    python bench/bench_startup.py [--repeat 5] [--src DIR]

Runs each command in a new interpreter (`python -m agentprop ...`), `--repeat` times,
interleaved, and prints the median wall time and the median CPU time (user + sys of the
child, less sensitive to the machine's load than wall time). `--src` runs another source
tree's `agentprop/` instead of this one (e.g. `git archive REF agentprop | tar -x -C DIR`)
for a before/after figure. The last line is the import time of `jsonschema` alone after
`import agentprop` (from `-X importtime`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands(ws: Path) -> dict[str, list[str]]:
    """The commands timed; serve-tools gets a fresh workspace each time (`ws` is new)."""
    return {
        "--help": ["--help"],
        "models list": ["models", "list"],
        "suite stats": ["suite", "stats"],
        "serve-tools --stdio, stdin closed": ["serve-tools", "--stdio", "-w", str(ws),
                                              "-n", "1", "-d", "weather"],
    }


def run_once(args: list[str], env: dict[str, str], src: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one process (run in `src`: `-m` puts the working folder first on
    the path)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "agentprop", *args], env=env, check=True, cwd=src,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def jsonschema_import_s(env: dict[str, str], src: Path) -> float:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c",
                          "import agentprop, jsonschema"], env=env, capture_output=True, cwd=src,
                         text=True, check=True).stderr
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == "jsonschema":
            return int(parts[1]) / 1e6
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--src", type=Path, default=ROOT, help="folder holding agentprop/")
    a = ap.parse_args()
    src = a.src.resolve()
    env = {**os.environ, "PYTHONPATH": str(src)}
    with tempfile.TemporaryDirectory() as tmp:
        times: dict[str, list[tuple[float, float]]] = {}
        for i in range(a.repeat):
            for name, args in commands(Path(tmp) / f"ws{i}").items():
                times.setdefault(name, [])
                times[name].append(run_once(args, env, src))
    print(f"src={a.src} load={os.getloadavg()[0]:.1f} repeat={a.repeat}")
    for name, ts in times.items():
        wall = statistics.median(t[0] for t in ts)
        cpu = statistics.median(t[1] for t in ts)
        print(f"{name:36s} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
    print(f"{'import agentprop, jsonschema':36s} jsonschema {jsonschema_import_s(env, src):.2f} s")


if __name__ == "__main__":
    main()
