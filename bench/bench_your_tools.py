"""The your-tools command end to end (docs/your-tools.md): the demo world of
`examples/your_tools.py`, the plain MCP example agent with serve-sim as its LLM, a real
reference server upstream, 20 questions, every out:/fault: class and P2 type over two
seeds; then judge and report. Prints the seconds of each step, the units and the upstream
calls, and, last, one JSON object.

    python bench/bench_your_tools.py --server sqlite   # or git
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentprop.sim import ServerConfig, ServerThread

ROOT = Path(__file__).resolve().parents[1]


def _upstream(server: str, world: Path) -> list[str]:
    if server == "git":
        return ["--upstream", f"{sys.executable} -m mcp_server_git --repository "
                f"{world / 'repo'}", "--tasks", str(world / "git.jsonl")]
    return ["--upstream", f"mcp-server-sqlite --db-path {world / 'shop.db'}",
            "--safe-tool", "read_query", "--safe-tool", "list_tables",
            "--safe-tool", "describe_table", "--tasks", str(world / "sqlite.jsonl")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", choices=("git", "sqlite"), default="sqlite")
    args = ap.parse_args()
    cli = [sys.executable, "-m", "agentprop"]
    with tempfile.TemporaryDirectory() as tmp, ServerThread(ServerConfig(port=0)) as sim:
        world, ws = Path(tmp) / "world", Path(tmp) / "W"
        subprocess.run([sys.executable, str(ROOT / "examples" / "your_tools.py"),
                        str(world)], check=True, capture_output=True)
        env = {**os.environ, "OPENAI_BASE_URL": sim.base_url, "OPENAI_API_KEY": "sk-none"}
        steps = {
            "run": [*cli, "run", "--agent", f"{ROOT / 'examples' / 'mcp_client.py'}:agent",
                    *_upstream(args.server, world), "-c", "baseline", "-c", "p2:all",
                    "-c", "out:all", "-c", "fault:all", "--seed", "0", "--seed", "1",
                    "-w", str(ws), "--json"],
            "judge": [*cli, "judge", "-w", str(ws)],
            "report": [*cli, "report", "-w", str(ws)],
        }
        out: dict[str, object] = {"server": args.server}
        for name, command in steps.items():
            t0 = time.perf_counter()
            done = subprocess.run(command, env=env, check=True, capture_output=True,
                                  text=True)
            out[f"{name}_s"] = round(time.perf_counter() - t0, 1)
            if name == "run":
                summary = json.loads(done.stdout)
                out["units"] = summary["units"]
                out["tool_calls"] = summary.get("tool_calls")
            print(f"{name}: {out[f'{name}_s']} s", flush=True)
        numbers = json.loads((ws / "report" / "numbers.json").read_text())
        applied = sorted(k.split("|")[1].rstrip("]") for k, v in numbers.items()
                         if k.startswith("your_tools.p_S1[") and (v.get("value") or 0) > 0)
        out["conditions_applied"] = len(applied)
        print(json.dumps(out))


if __name__ == "__main__":
    main()
