"""serve-sim refuses what llama-cpp-python's server refuses (an assistant message with
null or missing content), and answers invalid requests with 500 under
`--quirk errors-as-500`, as that server does; agentprop's client does not retry those."""

from __future__ import annotations

import httpx
import pytest

from agentprop.core import Message, ToolCall
from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.models._retry import status_kind
from agentprop.sim._server import ServerConfig, ServerThread

CALL = {"id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def body(assistant: dict) -> dict:
    return {"model": "balanced", "messages": [
        {"role": "user", "content": "weather in Paris?"}, assistant,
        {"role": "tool", "tool_call_id": "c1", "content": None}]}


@pytest.mark.parametrize("assistant", [
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "assistant", "tool_calls": [CALL]},
])
def test_null_or_missing_assistant_content_is_refused(fake_suite, assistant):
    with ServerThread(ServerConfig(port=0), suite=fake_suite) as srv:
        r = httpx.post(srv.base_url + "/chat/completions", json=body(assistant))
        ok = httpx.post(srv.base_url + "/chat/completions",
                        json=body({**assistant, "content": ""}))
    assert r.status_code == 400 and "content" in r.json()["error"]["message"]
    assert ok.status_code == 200  # "" is what agentprop sends; a null tool result is fine


async def test_errors_as_500_are_a_request_error_not_retried(fake_suite):
    cfg = ServerConfig(port=0, quirks=("errors-as-500",))
    with ServerThread(cfg, suite=fake_suite) as srv:
        bad = body({"role": "assistant", "content": None, "tool_calls": [CALL]})
        r = httpx.post(srv.base_url + "/chat/completions", json=bad)
        assert r.status_code == 500 and status_kind(500, r.json()) == ("bad_request", False)
        m = get_model("openai/balanced", base_url=srv.base_url, max_attempts=5)
        sent = [Message(role="user", content="weather?"),
                Message(role="assistant", content=None,
                        tool_calls=[ToolCall(id="c1", name="get_weather", arguments={})]),
                Message(role="tool", tool_call_id="c1", content="{}")]
        out = await m.generate(sent, [], GenerateConfig())  # sent with "": accepted
        assert out.text is not None or out.tool_calls
        with pytest.raises(ModelError) as ei:  # an invalid request: one attempt
            await m.generate([Message(role="user", content="hi")], [],
                             GenerateConfig(extra={"messages": "not a list"}))
        assert ei.value.kind == "bad_request" and ei.value.attempts == 1
        assert srv.stats["chat_completions"] == 3


def test_an_unknown_quirk_is_one_line_with_a_suggestion():
    with pytest.raises(ValueError, match="did you mean 'drop-tools'"):
        ServerConfig(quirks=("drop-tool",))
