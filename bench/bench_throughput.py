"""Whole-episode throughput over HTTP, as a user sees it: `agentprop serve-sim --latency-ms
200` in one process and the exact `agentprop run ... --json` command in another; the figure
is the run summary's model_calls / wall_s against the ideal C / L.

    python bench/bench_throughput.py [--concurrency 64] [--limit 1000] [--latency-ms 200]
                                     [--repeat 1] [--tpm N [--server-limit-only]]

With `--tpm N`, serve-sim caps tokens per minute at N (answering 429 above it) and the run
gets the same `--tpm`: reported are the share of calls answered 429 and the tokens per
minute reached against the cap. CPU seconds of both processes are reported too (the
machine's 2 cores are shared by client and server).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

CLI = [sys.executable, "-c", "import sys; from agentprop.cli import main; "
       "sys.argv[0] = 'agentprop'; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(port: int, extra: list[str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([*CLI, "serve-sim", "--port", str(port), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "NO_COLOR": "1"})
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=0.5)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                err = proc.stderr.read().decode()[-500:] if proc.stderr else ""
                raise SystemExit(f"serve-sim failed: {err}") from None
            time.sleep(0.1)
    raise SystemExit("serve-sim did not start")


def one_run(port: int, server: subprocess.Popen[bytes], args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [*CLI, "run", "--model", "openai/balanced", "--base-url",
               f"http://127.0.0.1:{port}/v1", "--split", "test", "--limit", str(args.limit),
               "--concurrency", str(args.concurrency), "--no-cache", "--json",
               "-w", str(Path(tmp) / "ws")]
        if args.tpm and not args.server_limit_only:
            cmd += ["--tpm", str(args.tpm)]
        httpx.post(f"http://127.0.0.1:{port}/stats/reset")
        s0 = cpu_s(server.pid)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - t0
        s1 = cpu_s(server.pid)
        if done.returncode != 0:
            raise SystemExit(f"run failed: {done.stderr[-800:]}")
        summary = json.loads(done.stdout)
        stats = httpx.get(f"http://127.0.0.1:{port}/stats").json()
    ideal = args.concurrency / (args.latency_ms / 1000.0)
    rate = summary["model_calls"] / summary["wall_s"]
    out = {"concurrency": args.concurrency, "model_calls": summary["model_calls"],
           "wall_s": round(summary["wall_s"], 2), "calls_per_s": round(rate, 1),
           "ideal": ideal, "efficiency": round(rate / ideal, 3),
           "process_s": round(elapsed, 1), "server_cpu_s": round(s1 - s0, 1),
           "errors": summary["errors"], "rate_limited": summary.get("rate_limited"),
           "load": round(os.getloadavg()[0], 2)}
    if args.tpm:
        requests = stats["requests"]
        out["requests"] = requests
        out["answered_429"] = stats["rate_limited"]
        out["share_429"] = round(stats["rate_limited"] / max(1, requests), 4)
        out["tokens_per_min"] = round(summary["tokens"] / summary["wall_s"] * 60)
        out["of_cap"] = round(summary["tokens"] / summary["wall_s"] * 60 / args.tpm, 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--latency-ms", type=float, default=200.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tpm", type=int, default=0)
    ap.add_argument("--server-limit-only", action="store_true",
                    help="cap the server only: the run reacts to 429s one by one")
    args = ap.parse_args()
    port = free_port()
    extra = ["--latency-ms", str(args.latency_ms)]
    if args.tpm:
        extra += ["--tpm", str(args.tpm)]
    server = start_server(port, extra)
    try:
        for _ in range(args.repeat):
            print(json.dumps(one_run(port, server, args)), flush=True)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
