"""The OpenAI dialect real servers accept, unit by unit (docs/real-servers.md): the tool
choice sent, string content, which HTTP errors are retried, short-key redaction, dead
servers; the tool choice on every provider and serve-sim's strictness."""

from __future__ import annotations

import itertools
import json

import httpx
import pytest

from agentprop.core import Message, ToolCall, ToolSpec
from agentprop.models import GenerateConfig, get_model
from agentprop.models._anthropic import from_anthropic_tool_choice, to_anthropic_tool_choice
from agentprop.models._google import from_gemini_tool_config, to_gemini_tool_config
from agentprop.models._openai import redact
from agentprop.models._openai_format import (
    from_openai_tool_choice,
    to_openai_messages,
    to_openai_tool_choice,
)
from agentprop.models._retry import request_invalid, status_kind
from agentprop.models._transport import dead_server

TOOL = ToolSpec(name="get_weather", description="d",
                parameters={"type": "object", "properties": {"city": {"type": "string"}}})
ASK = [Message(role="user", content="weather in Paris?")]


def params(config: GenerateConfig | None = None, tools: tuple[ToolSpec, ...] = (TOOL,),
           **options: object) -> dict:
    m = get_model("openai/m", base_url="http://127.0.0.1:9/v1", **options)
    return m.request_params(ASK, list(tools), config or GenerateConfig())  # type: ignore[attr-defined, no-any-return]


def test_tool_choice_is_auto_whenever_tools_are_sent_unless_set():
    assert params()["tool_choice"] == "auto"
    assert "tool_choice" not in params(tools=())  # never without tools
    assert params(tool_choice="required")["tool_choice"] == "required"  # -o tool_choice=
    forced = params(GenerateConfig(tool_choice="get_weather"))["tool_choice"]
    assert forced == {"type": "function", "function": {"name": "get_weather"}}
    for choice in ("auto", "none", "required", "get_weather"):
        assert from_openai_tool_choice(to_openai_tool_choice(choice)) == choice
        assert from_anthropic_tool_choice(to_anthropic_tool_choice(choice)) == choice
        assert from_gemini_tool_config(to_gemini_tool_config(choice)) == choice


def test_an_unset_tool_choice_leaves_request_hashes_as_they_were():
    assert "tool_choice" not in GenerateConfig().model_dump_json()
    assert json.loads(GenerateConfig(tool_choice="none").model_dump_json())[
        "tool_choice"] == "none"


def test_an_assistant_message_that_calls_tools_has_string_content():
    msg = Message(role="assistant", content=None,
                  tool_calls=[ToolCall(id="c1", name="get_weather", arguments={})])
    assert to_openai_messages([msg])[0]["content"] == ""


LLAMA_500 = {"error": {"message": "7 validation errors:\n  {'type': 'string_type', 'loc': "
                                  "('body', 'messages', 2, 'ChatCompletionRequestAssistant"
                                  "Message', 'content'), 'msg': 'Input should be a valid "
                                  "string', 'input': None}",
                       "type": "internal_server_error", "param": None, "code": None}}


@pytest.mark.parametrize(("status", "body", "expected"), [
    (500, LLAMA_500, ("bad_request", False)),  # llama-cpp-python's validation error
    (500, {"error": {"message": "'dict object' has no attribute 'content'",
                     "type": "internal_server_error"}}, ("bad_request", False)),
    (500, {"error": {"message": "Tool with name 'x' not found in tools"}}, ("bad_request",
                                                                           False)),
    (500, {"error": {"message": "x", "type": "invalid_request_error"}}, ("bad_request",
                                                                        False)),
    (500, {"error": {"message": "CUDA out of memory", "type": "server_error"}},
     ("server", True)),
    (503, "upstream connect error", ("server", True)),
    (500, None, ("server", True)),
    (429, LLAMA_500, ("rate_limit", True)),
    (400, None, ("bad_request", False)),
])
def test_only_answers_a_retry_can_change_are_retried(status, body, expected):
    assert status_kind(status, body) == expected


def test_request_invalid_reads_text_and_objects():
    assert request_invalid("1 validation error for Request\nmessages: Field required")
    assert not request_invalid({"error": "model overloaded"})


def test_a_short_key_is_redacted_only_where_it_stands_as_a_value():
    text = ("expected a string; key=x, Authorization: Bearer x. Incorrect API key "
            "provided: x. the x-ray of x")
    out = redact(text, "x")
    assert out == ("expected a string; key=***, Authorization: Bearer ***. Incorrect API "
                   "key provided: ***. the x-ray of x")
    assert redact("token: 'abc1234' abc1234", "abc1234") == "token: '***' abc1234"
    long = "hunter2hunter2"
    assert redact(f"bad key {long}; {long}!", long) == "bad key ***; ***!"


def test_a_refused_or_reset_connection_is_a_dead_server():
    def chain(*excs: BaseException) -> BaseException:
        for outer, inner in itertools.pairwise(excs):
            outer.__cause__ = inner
        return excs[0]

    assert dead_server(chain(httpx.ConnectTimeout("x"), ConnectionRefusedError(111, "x"))) \
        == "refused"
    assert dead_server(httpx.RemoteProtocolError("Server disconnected without sending a "
                                                 "response.")) == "reset"
    assert dead_server(chain(httpx.ReadError("x"), ConnectionResetError(104, "x"))) == "reset"
    assert dead_server(httpx.ReadTimeout("timed out")) is None
