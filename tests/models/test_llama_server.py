"""The `openai/` provider against a real third-party server: llama-cpp-python's
`python -m llama_cpp.server --chat_format chatml-function-calling` with SmolLM2-135M
(the `llama_server` fixture; skipped without the local extra unless
AGENTPROP_REQUIRE_LOCAL=1). Each test also sends the request as agentprop sent it before
the fix and shows the server failing on it, so it fails without the fix. The assertions
hold for any output the model may give: they check structure, never wording."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from agentprop.core import Message, ToolCall
from agentprop.domains import get_domain
from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.models._openai_format import to_openai_messages, to_openai_tools
from agentprop.models._retry import status_kind

WEATHER = get_domain("weather").tool_specs(["get_weather"])
ASK = [Message(role="system", content="You are a helpful assistant with tools."),
       Message(role="user", content="What is the weather in Paris today?")]
CALL = ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
ANSWERED = [*ASK, Message(role="assistant", content=None, tool_calls=[CALL]),
            Message(role="tool", tool_call_id="call_1", name="get_weather",
                    content='{"city": "Paris", "temperature_c": 21, "condition": "sunny"}')]
SMALL = GenerateConfig(max_tokens=24)


def model(url: str, **kw: Any) -> Any:
    return get_model("openai/smollm2", base_url=url, retry_base_s=0.01, retry_max_s=0.05,
                     **kw)


def raw(url: str, body: dict[str, Any]) -> httpx.Response:
    """A request sent as is (the wire form of an older agentprop)."""
    return httpx.post(f"{url}/chat/completions", json={"model": "smollm2", "max_tokens": 8,
                                                        "temperature": 0, **body},
                      timeout=300)


async def test_tools_reach_the_model_because_tool_choice_auto_is_sent(llama_server):
    """Without a tool_choice this server reads "none" and leaves the tools out of the
    prompt: the call is lost before the model sees a tool. The provider sends "auto"."""
    m = model(llama_server)
    bare = await m.generate(ASK, [], SMALL)
    with_tools = await m.generate(ASK, WEATHER, SMALL)
    assert with_tools.usage.input_tokens > bare.usage.input_tokens + 50  # tools in the prompt
    old = raw(llama_server, {"messages": to_openai_messages(ASK),
                             "tools": to_openai_tools(WEATHER)})  # no tool_choice
    assert old.status_code == 200
    assert old.json()["usage"]["prompt_tokens"] == bare.usage.input_tokens  # tools dropped
    assert not old.json()["choices"][0]["message"].get("tool_calls")


async def test_a_tool_result_round_trips_because_assistant_content_is_a_string(llama_server):
    """The assistant message that made the call goes out with content "": the server
    answers the next turn. With null (the old form) it answers HTTP 500."""
    out = await model(llama_server, max_attempts=1).generate(ANSWERED, WEATHER, SMALL)
    assert out.text is not None or out.tool_calls  # an answer, whatever it says
    old = to_openai_messages(ANSWERED)
    old[2]["content"] = None
    resp = raw(llama_server, {"messages": old, "tools": to_openai_tools(WEATHER),
                              "tool_choice": "auto"})
    assert resp.status_code == 500
    assert status_kind(500, resp.json()) == ("bad_request", False)  # and not retried


async def test_a_request_error_answered_with_500_is_not_retried(llama_server):
    """A forced tool that is not among the tools: llama_cpp.server answers HTTP 500 for a
    request no retry can change. One attempt, a bad_request error, no five retries."""
    with pytest.raises(ModelError) as ei:
        await model(llama_server, max_attempts=5).generate(
            ASK, WEATHER, SMALL.model_copy(update={"tool_choice": "box_office"}))
    assert ei.value.kind == "bad_request" and ei.value.attempts == 1
    assert "HTTP 500" in ei.value.message


async def test_a_short_key_does_not_redact_the_servers_message(llama_server):
    """With OPENAI_API_KEY=x (any key works for a loopback server) the error text keeps
    its x's: the key is redacted only where it stands as a value."""
    with pytest.raises(ModelError) as ei:
        await model(llama_server, api_key="x", max_attempts=1).generate(
            ASK, WEATHER, SMALL.model_copy(update={"tool_choice": "xbox"}))
    assert "'xbox' not found" in ei.value.message and "***" not in ei.value.message
