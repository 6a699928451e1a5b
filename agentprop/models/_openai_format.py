"""Our Message / ToolSpec ⇄ the OpenAI chat-completions wire format (both directions:
the openai provider sends it, the sim server reads it)."""

from __future__ import annotations

import json
from typing import Any

from agentprop.core import Message, ToolCall, ToolSpec
from agentprop.models._base import TOOL_CHOICE_KEYWORDS


def to_openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "",
                        "content": m.content or ""})
        elif m.role == "assistant":
            # a string, never null: llama-cpp-python's server (and others validating with
            # pydantic) answers HTTP 500 to an assistant message whose content is null
            msg: dict[str, Any] = {"role": "assistant", "content": m.content or ""}
            if m.tool_calls:
                msg["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name,
                                  "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                    for c in m.tool_calls
                ]
            out.append(msg)
        else:
            out.append({"role": m.role, "content": m.content or ""})
    return out


def to_openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"type": "function",
         "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


def to_openai_tool_choice(choice: str) -> str | dict[str, Any]:
    """`GenerateConfig.tool_choice` on the wire: a keyword as is, a tool name as the
    named-function object."""
    if choice in TOOL_CHOICE_KEYWORDS:
        return choice
    return {"type": "function", "function": {"name": choice}}


def from_openai_tool_choice(value: Any) -> str | None:
    """The inverse of `to_openai_tool_choice` (None when absent or unreadable)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        fn = value.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        return name if isinstance(name, str) and name else None
    return None


def parse_arguments(text: Any) -> dict[str, Any]:
    """Tool-call arguments from their JSON text (an object some servers send as is);
    ValueError when not a JSON object."""
    if isinstance(text, dict):
        return text
    if text is None or (isinstance(text, str) and not text.strip()):
        return {}
    if not isinstance(text, str):
        raise ValueError("tool-call arguments are neither a JSON text nor an object")
    try:
        value = json.loads(text)
    except RecursionError:  # a provider's answer nested thousands deep
        raise ValueError("tool-call arguments are nested too deeply") from None
    if not isinstance(value, dict):
        raise ValueError("tool-call arguments are not a JSON object")
    return value


def _content_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def from_openai_messages(messages: list[dict[str, Any]]) -> list[Message]:
    """Parse request messages; malformed tool-call arguments become ``{}``."""
    out: list[Message] = []
    for m in messages:
        role = m.get("role")
        if role == "developer":
            role = "system"
        if role not in ("system", "user", "assistant", "tool"):
            raise ValueError(f"unsupported message role {role!r}")
        calls: list[ToolCall] = []
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            try:
                args = parse_arguments(fn.get("arguments"))
            except ValueError:
                args = {}
            calls.append(ToolCall(id=c.get("id") or "", name=fn.get("name") or "",
                                  arguments=args))
        out.append(Message(role=role, content=_content_text(m.get("content")),
                           tool_calls=calls, tool_call_id=m.get("tool_call_id")))
    return out


def from_openai_tools(tools: list[dict[str, Any]] | None) -> list[ToolSpec]:
    out: list[ToolSpec] = []
    for t in tools or []:
        fn = t.get("function") or {}
        if not fn.get("name"):
            continue
        out.append(ToolSpec(name=fn["name"], description=fn.get("description") or "",
                            parameters=fn.get("parameters") or {"type": "object"}))
    return out
