"""The same study in-process and through a real server gives the same traces.

The path a vLLM, Ollama or llama.cpp user takes is `openai/<name> --base-url`: here the same
units (same model id, so the same injections) run once on the in-process `local/` provider
and once through the `openai/` provider against (a) `agentprop serve-local`, llama-cpp-python's
own server app with agentprop's handler, and (b) the stock `python -m llama_cpp.server
--chat_format chatml-function-calling`, against the in-process provider with that same stock
handler. Every event must agree (what the model said and called, what the tools returned,
the injection, the answer), but for call ids (the stock handler draws a uuid per call) and
timings. Structure only: whatever SmolLM2 says, both paths must say it alike."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentprop.app import RunConfig, plan_run
from agentprop.core import Trace
from agentprop.models import GenerateConfig, get_model
from agentprop.runner import run_units
from agentprop.store import Workspace
from agentprop.suite import load_suite

MODEL_ID = "local/smollm2-135m"


def _units() -> tuple[Any, list[Any]]:
    suite = load_suite()
    cfg = RunConfig(models=(MODEL_ID,), conditions=("baseline", "p2:semantic_wrong"),
                    domains=("weather",), split="test", n=1, run_id="equivalence")
    return suite, plan_run(suite, cfg).units


def _run(model: Any, ws_path: Path) -> list[Trace]:
    suite, units = _units()
    with Workspace(ws_path, create=True) as ws:
        asyncio.run(run_units(units, workspace=ws, suite=suite, models={MODEL_ID: model},
                              concurrency=1, progress=False, use_cache=False, max_steps=2,
                              answer_on_step_limit=True,
                              config=GenerateConfig(timeout_s=600)))
        return sorted(ws.iter_traces(), key=lambda t: t.id)


def _events(trace: Trace) -> list[Any]:
    """A trace's events without call ids, timings and raw provider bodies."""
    out: list[Any] = [trace.status]
    for e in trace.events:
        d = e.model_dump(mode="json")
        if d["type"] == "model_call":
            o = d["output"]
            d = {"type": "model_call", "text": o["text"] or None, "usage": o["usage"],
                 "calls": [(c["name"], c["arguments"]) for c in o["tool_calls"]]}
        for k in ("call_id", "id", "latency_s", "request_hash"):
            d.pop(k, None)
        if isinstance(d.get("call"), dict):
            d["call"].pop("id", None)
        out.append(d)
    return out


def test_serve_local_gives_the_in_process_traces(serve_local: str, tmp_path: Path) -> None:
    local = get_model(MODEL_ID, n_threads=2)
    served = get_model("openai/smollm2-135m", base_url=serve_local, max_attempts=1)
    a, b = _run(local, tmp_path / "in"), _run(served, tmp_path / "srv")
    assert [t.id for t in a] == [t.id for t in b] and len(a) == 2
    for ta, tb in zip(a, b, strict=True):
        assert _events(ta) == _events(tb)
    assert any(e.type == "injection" for t in a for e in t.events)


def test_stock_llama_cpp_server_gives_the_in_process_traces(llama_server: str,
                                                            tmp_path: Path) -> None:
    """The fixture's server: chatml-function-calling, n_ctx 2048, 2 threads, no state cache,
    and the request's own max_tokens (1,024)."""
    local = get_model(MODEL_ID, n_threads=2, n_ctx=2048, chat_format="chatml-function-calling",
                      max_tokens=1024, state_cache_mb=0)
    served = get_model("openai/smollm2-135m", base_url=llama_server, max_attempts=1)
    a, b = _run(local, tmp_path / "in"), _run(served, tmp_path / "srv")
    for ta, tb in zip(a, b, strict=True):
        assert _events(ta) == _events(tb)
