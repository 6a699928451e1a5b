"""A lone UTF-16 surrogate (valid JSON, e.g. "\\ud83d") from a provider's answer, an agent's
answer or an MCP argument is stored as U+FFFD and counted: it never crashes the trace
writer, never loses a batch, and a cached response holding one never poisons a rerun."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from agentprop.safety import REPLACEMENT
from agentprop.store import Workspace
from tests.hostile._helpers import LONE_SURROGATE, canned_openai, invoke
from tests.judges.conftest import WEATHER, make_trace

AGENTS = str(Path(__file__).with_name("_agents.py"))


def _completion(request: dict[str, Any]) -> str:
    """A tool call with a lone surrogate in its arguments, then an answer holding one."""
    if any(m.get("role") == "tool" for m in request["messages"]):
        message = f'{{"role":"assistant","content":"Sunny {LONE_SURROGATE} today"}}'
    else:
        name = request["tools"][0]["function"]["name"]
        args = json.dumps(json.dumps({"city": "x"})).replace('"x', f'"{LONE_SURROGATE}')
        message = ('{"role":"assistant","content":null,"tool_calls":[{"id":"c1",'
                   f'"type":"function","function":{{"name":"{name}","arguments":{args}}}}}]}}')
    return (f'{{"id":"x","object":"chat.completion","choices":[{{"index":0,"message":{message},'
            '"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}')


def _answers(ws: Path) -> list[str]:
    with Workspace(ws, create=False) as w:
        return [w.get_trace(i).final_answer or "" for i in sorted(w.trace_ids())]


def test_a_native_run_stores_surrogates_replaced_and_reruns_from_the_cache(
        tmp_path: Path) -> None:
    # the preflight skips the cache by design (it tests the endpoint now): off here, so
    # every request the server sees is an episode's
    ws = tmp_path / "w"
    with canned_openai(_completion) as (url, seen):
        args = ["run", "-m", "openai/canned", "--base-url", url, "-w", str(ws), "-n", "3",
                "-d", "weather", "--json", "--preflight", "off"]
        first = invoke(*args, OPENAI_API_KEY="sk-none")
        assert first.exit_code == 0, first.output
        summary = json.loads(first.stdout)
        assert summary["completed"] == 3 and summary["errors"] == 0
        assert summary["replaced_code_points"] >= 6  # a call's argument and an answer, each
        assert all(a == f"Sunny {REPLACEMENT} today" for a in _answers(ws))
        calls = len(seen)
        # the same requests in another run: every answer comes from the cache
        again = invoke(*args, "--run-id", "again", OPENAI_API_KEY="sk-none")
        assert again.exit_code == 0, again.output
        assert json.loads(again.stdout)["cached_calls"] == calls and len(seen) == calls


def test_a_cache_poisoned_by_an_older_version_cannot_crash_a_rerun(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    with canned_openai(_completion) as (url, seen):
        args = ["run", "-m", "openai/canned", "--base-url", url, "-w", str(ws), "-n", "2",
                "-d", "weather", "--json", "--preflight", "off"]
        assert invoke(*args, OPENAI_API_KEY="sk-none").exit_code == 0
        con = sqlite3.connect(ws / "agentprop.sqlite")
        with con:  # what an older version stored: the raw surrogate escape
            con.execute("UPDATE cache SET value = replace(value, ?, ?)",
                        (json.dumps(REPLACEMENT), json.dumps("\ud83d")))
            assert con.execute("SELECT count(*) FROM cache WHERE value LIKE ?",
                               ("%\\ud83d%",)).fetchone()[0] > 0
        con.close()
        calls = len(seen)
        rerun = invoke(*args, "--run-id", "rerun", OPENAI_API_KEY="sk-none")
        assert rerun.exit_code == 0, rerun.output
        assert json.loads(rerun.stdout)["completed"] == 2 and len(seen) == calls


def test_the_writer_keeps_the_whole_batch(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w")
    bad = make_trace("bad", WEATHER, "answer \ud83d")
    bad = bad.model_copy(update={"model": "agent\udcff", "meta": {"note\ud800": "\udfff"}})
    good = make_trace("good", WEATHER, "fine")
    assert ws.put_traces([bad, good]) == 2
    stored = ws.get_trace("bad")
    assert stored is not None and stored.final_answer == f"answer {REPLACEMENT}"
    assert stored.model == f"agent{REPLACEMENT}"
    assert stored.meta["replaced_code_points"] == 4 and ws.replaced == 4
    assert ws.get_trace("good") is not None


def test_an_external_agent_with_surrogates_is_stored(tmp_path: Path) -> None:
    result = invoke("run", "--agent", f"{AGENTS}:surrogate", "-w", str(tmp_path / "w"),
                    "-n", "3", "-d", "weather", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["completed"] == 3 and summary["errors"] == 0, summary
    with Workspace(tmp_path / "w", create=False) as w:
        traces = [w.get_trace(i) for i in w.trace_ids()]
    for t in traces:
        assert t.final_answer == f"It is sunny {REPLACEMENT}"
        assert t.meta["replaced_code_points"] == 2  # the argument and the answer
        (call,) = [m for m in t.messages if m.tool_calls]
        assert call.tool_calls[0].arguments == {"city": REPLACEMENT}
