"""The `local/` provider on the real SmolLM2-135M model: structure, never wording.

A tiny model's replies vary with the prompt; these tests assert what must hold for any reply:
structured calls of offered tools or text, counted tokens, zero cost, determinism, the
context pool, cancellation and the refusals before anything runs."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import Message, ToolSpec
from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.models._local_chat import arguments_grammar, render_prompt
from tests.conftest import local_model_path

WEATHER = ToolSpec(name="get_weather", description="Current weather in a city.",
                   parameters={"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]})
CLOCK = ToolSpec(name="set_alarm", description="Set an alarm at a time of day (HH:MM).",
                 parameters={"type": "object", "required": ["time"],
                             "properties": {"time": {"type": "string",
                                                     "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$"}}})
QUESTION = [Message(role="system", content="You answer with the tools provided."),
            Message(role="user", content="What is the weather in Paris right now?")]
SHORT = GenerateConfig(max_tokens=24)


def test_tool_results_reach_the_prompt() -> None:
    """llama-cpp-python's chatml-function-calling template drops `tool` messages; ours
    renders each as its own turn, and a call as the model is asked to write it."""
    prompt = render_prompt([
        {"role": "user", "content": "weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c0", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "c0", "content": '{"temp_c": 17}'},
    ], [{"type": "function", "function": WEATHER.model_dump()}])
    assert "functions.get_weather:\n{" in prompt  # the tool list and the call
    assert '<|im_start|>tool\n{"temp_c": 17}<|im_end|>' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


@pytest.mark.parametrize("bad", ["missing.gguf", "not-a-model.gguf"])
def test_bad_model_file_is_one_line_exit_2(tmp_path: Path, bad: str) -> None:
    local_model_path()
    path = tmp_path / bad
    if bad.startswith("not"):
        path.write_bytes(b"PK\x03\x04 this is a zip, not a GGUF")
    ws = tmp_path / "ws"
    res = CliRunner().invoke(app, ["run", "-m", f"local/{path}", "-c", "baseline", "-n", "1",
                                   "-w", str(ws)])
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    assert ("no such model file" if bad.startswith("missing") else "not a GGUF") in lines[0]
    assert "Traceback" not in res.output
    assert not (ws / "agentprop.sqlite").exists() or _traces(ws) == 0


def _traces(ws: Path) -> int:
    import sqlite3

    con = sqlite3.connect(ws / "agentprop.sqlite")
    try:
        return int(con.execute("SELECT COUNT(*) FROM traces").fetchone()[0])
    finally:
        con.close()


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def no_llama(name: str, *a: object) -> object:
        return None if name == "llama_cpp" else real(name, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", no_llama)
    with pytest.raises(ModelError, match=r"pip install 'agentprop\[local\]'"):
        get_model("local/smollm2-135m")


def test_unknown_chat_format_is_refused(smollm2_file: Path) -> None:
    model = get_model("local/smollm2-135m", chat_format="no-such-format")
    with pytest.raises(ModelError, match="unknown chat_format"):
        model.open()  # type: ignore[attr-defined]


def test_a_pattern_the_grammar_builder_cannot_parse_falls_back(smollm2) -> None:  # type: ignore[no-untyped-def]
    """llama.cpp cannot parse llama-cpp-python's translation of ``\\d``: with it the process
    died (a NULL sampler). The handler detects that and drops the pattern."""
    llama = smollm2._ensure_first()
    _, kind = arguments_grammar(llama, CLOCK.parameters)
    assert kind == "schema-without-pattern"
    _, kind = arguments_grammar(llama, WEATHER.parameters)
    assert kind == "schema"


async def test_forced_call_is_structured_and_valid(smollm2) -> None:  # type: ignore[no-untyped-def]
    """A forced tool_choice gives a structured call whose arguments parse and validate
    against the tool's schema (the grammar guarantees it), for any model output."""
    import jsonschema

    cfg = GenerateConfig(max_tokens=48, tool_choice="set_alarm")
    msgs = [Message(role="user", content="Wake me up at seven.")]
    out = await smollm2.generate(msgs, [WEATHER, CLOCK], cfg)
    assert [c.name for c in out.tool_calls] == ["set_alarm"]
    args = out.tool_calls[0].arguments
    jsonschema.validate(args, {**CLOCK.parameters, "properties": {"time": {"type": "string"}}})
    assert out.usage.input_tokens > 0 and out.usage.output_tokens > 0
    assert out.cost == 0.0
    assert out.raw and out.raw["chat_format"] == "agentprop-chatml-tools"


async def test_auto_reply_is_a_call_of_an_offered_tool_or_text(smollm2) -> None:  # type: ignore[no-untyped-def]
    out = await smollm2.generate(QUESTION, [WEATHER, CLOCK], SHORT)
    if out.tool_calls:
        assert {c.name for c in out.tool_calls} <= {"get_weather", "set_alarm"}
        assert len(out.tool_calls) == 1  # one call per reply unless parallel calls are asked
    else:
        assert isinstance(out.text, str)
    again = await smollm2.generate(QUESTION, [WEATHER, CLOCK], SHORT)
    assert again.text == out.text
    assert [(c.name, c.arguments) for c in again.tool_calls] == \
        [(c.name, c.arguments) for c in out.tool_calls]


async def test_tool_choice_none_gives_text(smollm2) -> None:  # type: ignore[no-untyped-def]
    out = await smollm2.generate(QUESTION, [WEATHER], SHORT.model_copy(
        update={"tool_choice": "none"}))
    assert out.tool_calls == [] and isinstance(out.text, str)


async def test_prompt_over_n_ctx_is_a_request_error(smollm2_file: Path) -> None:
    model = get_model("local/smollm2-135m", n_ctx=256)
    long = [Message(role="user", content="weather " * 400)]
    with pytest.raises(ModelError) as e:
        await model.generate(long, [], SHORT)
    assert e.value.kind == "context_overflow"


async def test_requests_queue_for_one_context_and_cancel_stops_generation(
        smollm2_file: Path) -> None:
    """One context serves one request at a time; a cancelled request stops at its next
    token, so the next request starts at once instead of after a long generation."""
    model = get_model("local/smollm2-135m", n_ctx=1024)
    model.open()  # type: ignore[attr-defined]
    long = GenerateConfig(max_tokens=900)
    story = [Message(role="user", content="Tell me a very long story about the sea.")]
    first = asyncio.ensure_future(model.generate(story, [], long))
    await asyncio.sleep(1.0)
    first.cancel()
    t0 = time.perf_counter()
    out = await model.generate([Message(role="user", content="Hi")], [],
                               GenerateConfig(max_tokens=4))
    assert isinstance(out.text, str)
    assert time.perf_counter() - t0 < 20  # not the ~900 tokens of the cancelled story
    with pytest.raises(asyncio.CancelledError):
        await first
    await model.aclose()  # type: ignore[attr-defined]


def test_describe_says_how_requests_are_served(smollm2) -> None:  # type: ignore[no-untyped-def]
    d = smollm2.describe()
    assert d["chat_format"] == "agentprop-chatml-tools"
    assert d["contexts"] == 1 and "queue" in d["concurrency"]
    assert d["threads"] >= 1
    json.dumps(d)


def test_a_run_whose_prompts_do_not_fit_stops_before_any_unit(smollm2_file: Path,
                                                               tmp_path: Path) -> None:
    """The preflight sends the run's own tools: a context too small for them is one line
    and exit 2, and no trace is written."""
    ws = tmp_path / "ws"
    res = CliRunner().invoke(app, ["run", "-m", "local/smollm2-135m", "-o", "n_ctx=512",
                                   "-c", "baseline", "-n", "1", "--domain", "weather",
                                   "-w", str(ws)])
    assert res.exit_code == 2, res.output
    assert "do not fit its context" in res.output and "n_ctx" in res.output
    assert "Traceback" not in res.output
    assert not (ws / "agentprop.sqlite").exists() or _traces(ws) == 0
