"""Offline unit tests: retries, prices, request building and format conversion."""

from __future__ import annotations

import json
import random

import pytest

from agentprop.core import Message, ToolCall, ToolSpec, Usage
from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.models._anthropic import to_anthropic, to_anthropic_tools
from agentprop.models._cache import request_key
from agentprop.models._google import to_gemini, to_gemini_tools
from agentprop.models._openai import is_reasoning_model, redact
from agentprop.models._openai_format import from_openai_messages, to_openai_messages
from agentprop.models._prices import PriceError, PriceTable
from agentprop.models._retry import (
    RetryableError,
    RetryPolicy,
    call_with_retries,
    parse_retry_after,
    status_kind,
)

TOOL = ToolSpec(name="get_weather", description="d",
                parameters={"type": "object", "properties": {"city": {"type": "string"}}})
CONVO = [
    Message(role="system", content="sys"),
    Message(role="user", content="weather in Paris?"),
    Message(role="assistant", content="checking",
            tool_calls=[ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"}),
                        ToolCall(id="c2", name="get_weather", arguments={"city": "Oslo"})]),
    Message(role="tool", tool_call_id="c1", content='{"city": "Paris", "t": 14}'),
    Message(role="tool", tool_call_id="c2", content='{"city": "Oslo", "t": 9}'),
]


# -- retries ----------------------------------------------------------------------------
async def test_retry_then_success_counts_attempts():
    calls = []
    slept = []

    async def fn():
        calls.append(1)
        if len(calls) < 3:
            raise RetryableError("server", "boom", retry_after=0.7 if len(calls) == 1 else None)
        return "ok"

    async def sleep(s):
        slept.append(s)

    out, attempts = await call_with_retries(fn, RetryPolicy(max_attempts=5, base_delay_s=0.1),
                                            random.Random(0), sleep=sleep)
    assert (out, attempts) == ("ok", 3)
    assert slept[0] >= 0.7  # Retry-After honoured
    assert 0.05 <= slept[1] <= 0.2  # backoff 0.1 * 2 with jitter in [0.5, 1]


async def test_permanent_error_is_not_retried():
    calls = []

    async def fn():
        calls.append(1)
        raise ModelError("auth", "no")

    with pytest.raises(ModelError) as ei:
        await call_with_retries(fn, RetryPolicy(), random.Random(0))
    assert len(calls) == 1 and ei.value.attempts == 1


def test_backoff_grows_and_is_capped():
    p = RetryPolicy(base_delay_s=1, max_delay_s=5)
    rng = random.Random(1)
    assert [p.delay(k, None, rng) <= min(5, 2 ** (k - 1)) for k in range(1, 8)] == [True] * 7
    assert p.delay(7, None, rng) >= 2.5
    assert p.delay(1, 1000, rng) == p.max_retry_after_s


def test_status_and_retry_after_parsing():
    assert status_kind(429) == ("rate_limit", True)
    assert status_kind(503) == ("server", True)
    assert status_kind(401) == ("auth", False)
    assert status_kind(400) == ("bad_request", False)
    assert parse_retry_after({"retry-after": "3"}) == 3
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


# -- prices -----------------------------------------------------------------------------
def test_prices_lookup_and_cost(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTPROP_PRICES", raising=False)
    t = PriceTable()
    assert t.lookup("gpt-4o-mini-2024-07-18") == t.prices["gpt-4o-mini"]
    assert t.lookup("openai/gpt-4o") == t.prices["gpt-4o"]
    assert t.lookup("claude-3-5-sonnet-20241022") == t.prices["claude-3-5-sonnet"]
    assert t.lookup("my-local-llama") is None
    assert t.cost("gpt-4o-mini", Usage(input_tokens=1_000_000, output_tokens=1_000_000)) == (
        pytest.approx(0.75))
    assert t.cost("my-local-llama", Usage(input_tokens=10**6)) == 0.0
    f = tmp_path / "p.yaml"
    f.write_text("my-local-llama: {input: 1, output: 2}\ngpt-4o-mini: [9, 9]\n")
    monkeypatch.setenv("AGENTPROP_PRICES", str(f))
    t2 = PriceTable()
    assert t2.lookup("my-local-llama") == (1.0, 2.0) and t2.lookup("gpt-4o-mini") == (9, 9)
    (tmp_path / "bad.json").write_text('{"x": ["cheap", 1]}')
    monkeypatch.setenv("AGENTPROP_PRICES", str(tmp_path / "bad.json"))
    with pytest.raises(PriceError, match="not numeric"):
        PriceTable()


# -- openai request building -------------------------------------------------------------
def test_missing_key_is_one_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError) as ei:
        get_model("openai/gpt-4o-mini")
    assert ei.value.kind == "auth" and "OPENAI_API_KEY" in str(ei.value)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with pytest.raises(ModelError, match="OPENROUTER_API_KEY"):
        get_model("openrouter/openai/gpt-4o-mini")
    # loopback servers need no key
    assert get_model("openai/llama", base_url="http://localhost:8000/v1").id == "openai/llama"


def test_reasoning_models_get_max_completion_tokens(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    o3 = get_model("openai/o3-mini")
    p = o3.request_params(CONVO, [TOOL], GenerateConfig(max_tokens=50))  # type: ignore[attr-defined]
    assert p["max_completion_tokens"] == 50 and "temperature" not in p and "max_tokens" not in p
    g = get_model("openai/gpt-4o-mini")
    p = g.request_params(CONVO, [TOOL], GenerateConfig())  # type: ignore[attr-defined]
    assert p["temperature"] == 0 and p["seed"] == 0 and p["max_tokens"] == 1024
    assert p["tools"][0]["function"]["parameters"] == TOOL.parameters
    assert is_reasoning_model("o4-mini") and is_reasoning_model("openai/o1")
    assert not is_reasoning_model("gpt-4o") and not is_reasoning_model("omni")


def test_openai_format_round_trip():
    wire = to_openai_messages(CONVO)
    assert wire[2]["tool_calls"][0]["function"] == {"name": "get_weather",
                                                    "arguments": '{"city": "Paris"}'}
    assert wire[3] == {"role": "tool", "tool_call_id": "c1", "content": CONVO[3].content}
    back = from_openai_messages(json.loads(json.dumps(wire)))
    assert [m.model_dump(exclude={"name", "reasoning"}) for m in back] == [
        m.model_dump(exclude={"name", "reasoning"}) for m in CONVO]


def test_redaction_and_cache_key_without_secret():
    assert "sk-abcdef123456" not in redact("Incorrect API key provided: sk-abcdef123456", None)
    assert "hunter2hunter2" not in redact("bad key hunter2hunter2", "hunter2hunter2")
    k1 = request_key(provider="openai", model="m", base_url="http://x/v1", messages=CONVO,
                     tools=[TOOL], config=GenerateConfig())
    k2 = request_key(provider="openai", model="m", base_url="http://x/v1/", messages=CONVO,
                     tools=[TOOL], config=GenerateConfig(timeout_s=5))
    k3 = request_key(provider="openai", model="m", base_url="http://x/v1", messages=CONVO,
                     tools=[TOOL], config=GenerateConfig(seed=1))
    assert k1 == k2 != k3


# -- anthropic / google conversion -----------------------------------------------------
def test_anthropic_conversion():
    system, msgs = to_anthropic(CONVO)
    assert system == "sys"
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[1]["content"][1] == {"type": "tool_use", "id": "c1", "name": "get_weather",
                                     "input": {"city": "Paris"}}
    assert [b["tool_use_id"] for b in msgs[2]["content"]] == ["c1", "c2"]
    assert to_anthropic_tools([TOOL])[0]["input_schema"] == TOOL.parameters


def test_gemini_conversion():
    system, contents = to_gemini(CONVO)
    assert system == "sys"
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    fc = contents[1]["parts"][1]["function_call"]
    assert fc == {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}
    fr = contents[2]["parts"]
    assert [p["function_response"]["name"] for p in fr] == ["get_weather", "get_weather"]
    assert fr[0]["function_response"]["response"] == {"city": "Paris", "t": 14}
    decl = to_gemini_tools([TOOL])[0]["function_declarations"][0]
    assert decl["parameters_json_schema"] == TOOL.parameters


def test_sdk_types_accept_our_conversion():
    """The SDKs' own request types validate what we build (no network)."""
    from google.genai import types

    _system, contents = to_gemini(CONVO)
    [types.Content.model_validate(c) for c in contents]
    types.Tool.model_validate(to_gemini_tools([TOOL])[0])


def test_anthropic_and_google_missing_keys(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        get_model("anthropic/claude-3-5-haiku")
    with pytest.raises(ModelError, match="GOOGLE_API_KEY"):
        get_model("google/gemini-2.0-flash")
    m = get_model("anthropic/claude-3-5-haiku", api_key="k")
    p = m.request_params(CONVO, [TOOL], GenerateConfig())  # type: ignore[attr-defined]
    assert p["system"] == "sys" and p["temperature"] == 0 and p["max_tokens"] == 1024


def test_unknown_provider():
    from agentprop.core import UnknownNameError

    with pytest.raises(UnknownNameError, match="unknown model provider 'nope'"):
        get_model("nope/x")
