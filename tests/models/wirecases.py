"""Shared checks for the anthropic and google providers against serve-sim on loopback:
whole agent episodes through the runner and the real SDK, compared with the in-process
sim on the same tasks and seeds (test_anthropic_http.py, test_google_http.py)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx

from agentprop.core import ErrorEvent, FinalEvent, ToolCallEvent, ToolResultEvent, Trace
from agentprop.runner import RunSummary, plan_units, run_units_sync
from agentprop.sim import PROFILES, SimModel
from agentprop.sim._server import ServerConfig, ServerThread
from agentprop.store import Workspace

PROFILE = "balanced"
CONDITIONS = ["baseline", "p2:semantic_wrong"]
SEEDS = (0, 1)
RUN_ID = "http"
FAST_RETRIES = {"retry_base_s": 0.005, "retry_max_s": 0.02}


def pick_tasks(suite: Any) -> list[Any]:
    """One multi-step task per injectable domain: every episode has a tool round trip."""
    out = []
    for domain in ("calendar", "weather", "medical", "retail"):
        out.append(next(t for t in suite.tasks if t.domain == domain and len(t.gold_plan) >= 2))
    return out


def server(suite: Any, **config: Any) -> ServerThread:
    return ServerThread(ServerConfig(port=0, **config), suite=suite)


def stats(srv: ServerThread) -> dict[str, Any]:
    return httpx.get(srv.root_url + "/stats").json()


def run(ws: Workspace, model: str, suite: Any, tasks: list[Any], run_id: str = RUN_ID,
        **options: Any) -> tuple[RunSummary, dict[tuple[str, str, int], Trace]]:
    """Run every task × condition × seed; traces keyed by (task, condition, seed). The
    run id is fixed because the injector draws its wrong values from the unit (run,
    model, task, seed)."""
    preflight = options.pop("preflight", 3)
    models = options.pop("models", None)
    units = plan_units(run_id, [model], tasks, CONDITIONS, seeds=SEEDS)
    summary = run_units_sync(units, workspace=ws, suite=suite, model_options=options,
                             models=models, concurrency=4, progress=False,
                             preflight=preflight)
    traces = {(t.task_id, t.condition, t.seed): t for t in ws.iter_traces(run_id=run_id)}
    assert len(traces) == len(units)
    return summary, traces


def view(trace: Trace) -> tuple[str, str | None, list[tuple[str, str]]]:
    """What must agree between the HTTP and in-process paths: status, final answer and
    the proposed tool calls."""
    final = next((e.answer for e in trace.events if isinstance(e, FinalEvent)), None)
    calls = [(e.call.name, json.dumps(e.call.arguments, sort_keys=True))
             for e in trace.events if isinstance(e, ToolCallEvent)]
    return trace.status, final, calls


def in_process(tmp: Path, model: str, suite: Any, tasks: list[Any]
               ) -> dict[tuple[str, str, int], Any]:
    """The same units answered by the in-process sim standing in under the same model id
    and run id, so the injector makes the same choices."""
    _, traces = run(Workspace(tmp / "sim"), model, suite, tasks,
                    models={model: SimModel(PROFILES[PROFILE], suite=suite)})
    return {k: view(t) for k, t in traces.items()}


def check_matches(traces: dict[tuple[str, str, int], Trace],
                  expected: dict[tuple[str, str, int], Any]) -> None:
    assert traces.keys() == expected.keys()
    for k, t in traces.items():
        assert view(t) == expected[k], k
        assert t.status == "ok" and view(t)[1]
    # tool round trips (the profile answers some tasks without tools, as a model does)
    trips = sum(any(isinstance(e, ToolResultEvent) for e in t.events) for t in traces.values())
    assert trips >= len(traces) // 2


def error_traces(traces: dict[tuple[str, str, int], Trace], kind: str, attempts: int) -> None:
    for t in traces.values():
        assert t.status == "error"
        err = next(e for e in t.events if isinstance(e, ErrorEvent))
        assert err.kind == kind and err.attempts == attempts, err


def forget_traces(ws: Workspace) -> None:
    """Drop the traces (not the response cache) so the same run can be run again."""
    with ws.transaction() as conn:
        conn.execute("DELETE FROM traces")


def dump_workspace(ws: Workspace) -> str:
    """Every row of every table, as text (for secret scans)."""
    with closing(sqlite3.connect(ws.db_path)) as conn:  # sees what the writer thread wrote
        tables = [r[0] for r in
                  conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return "\n".join(json.dumps(conn.execute(f"SELECT * FROM {t}").fetchall(),
                                    default=str) for t in tables)
