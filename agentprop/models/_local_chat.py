"""agentprop's function-calling chat handler for llama.cpp models without a tool template.

llama-cpp-python's own `chatml-function-calling` handler (0.3.x) has three faults that make
an agent impossible, each seen on SmolLM2 (docs/local-models.md):

* its template has no branch for the `tool` role, so a tool result never reaches the
  prompt and the model calls the same tool again;
* in `tool_choice="auto"`, once the model chooses "message:", the text is generated under
  the grammar of the *next function name*, so a text answer is always empty;
* a schema `pattern` is translated into a grammar llama.cpp cannot parse, and the NULL
  sampler it then gets crashes the process (a segmentation fault).

This handler keeps that handler's protocol (the same ChatML prompt, tools listed in the
system message, a reply that starts with ``message:`` or ``functions.<name>:``, a call's
arguments as JSON), renders tool results, lets an answer be free text, and checks every
grammar with llama.cpp's own parser before sampling with it (a schema it cannot translate
falls back to the schema without `pattern`, then to plain JSON). Like llama.cpp's own
sampler, it constrains only where the model strays: the reply's start and the arguments
are generated freely and checked, and only when the text is not a valid start or holds no
JSON object is it generated again under a grammar (a grammar over the whole vocabulary
costs several times the time per token); a call the request forces by name gets its
schema's grammar at once. It follows llama-cpp-python's handler protocol,
so the same code serves the in-process `local/` provider and `llama_cpp.server`
(`agentprop serve-local`). Generation is greedy at temperature 0, so equal requests give
equal replies.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterable
from typing import Any

HANDLER_NAME = "agentprop-chatml-tools"
MAX_CALLS_PER_TURN = 4
"""The most calls one reply may hold when the request allows parallel tool calls."""
_END = "<|im_end|>"


def _tools_text(tools: list[dict[str, Any]]) -> str:
    lines = ["", "", "You have access to the following functions:"]
    for t in tools:
        fn = t.get("function") or {}
        lines.append(f"\nfunctions.{fn.get('name')}:")
        if fn.get("description"):
            lines.append(f"// {fn['description']}")
        lines.append(json.dumps(fn.get("parameters") or {}, ensure_ascii=False))
    lines += [
        "",
        "You can respond to users messages with either a single message or one or more "
        "function calls.",
        "",
        "To respond with a message begin the message with 'message:', use the following "
        "format:",
        "",
        "message:",
        "<message>",
        "",
        "To respond with one or more function calls begin the message with "
        "'functions.<function_name>:', use the following format:",
        "",
        "functions.<function_name>:",
        '{ "arg1": "value1", "arg2": "value2" }',
    ]
    return "\n".join(lines)


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def render_prompt(messages: Iterable[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """The ChatML prompt, ending with the assistant's opening. Tools are listed at the end
    of the system message (one is added when there is none); a tool result is a `tool`
    turn; an assistant turn shows its text after ``message:`` and each call as
    ``functions.<name>:`` with its arguments, as the model is asked to write them."""
    msgs = list(messages)
    if tools and not any(m.get("role") == "system" for m in msgs):
        msgs.insert(0, {"role": "system", "content": "You are a helpful assistant."})
    out: list[str] = []
    for m in msgs:
        role = m.get("role")
        if role == "system":
            body = _text(m.get("content")) + (_tools_text(tools) if tools else "")
        elif role == "assistant":
            parts = []
            text = _text(m.get("content"))
            calls = m.get("tool_calls") or []
            if text:
                parts.append(f"message:\n{text}" if tools else text)
            for c in calls:
                fn = c.get("function") or {}
                parts.append(f"functions.{fn.get('name')}:\n{fn.get('arguments') or '{}'}")
            body = "\n".join(parts)
        else:  # user, tool (and anything else a client sends) as its own turn
            body = _text(m.get("content"))
            role = role if role in ("user", "tool") else "user"
        out.append(f"<|im_start|>{role}\n{body}{_END}\n")
    out.append("<|im_start|>assistant\n")
    return "".join(out)


def _strip_patterns(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_patterns(v) for k, v in schema.items()
                if k not in ("pattern", "patternProperties")}
    if isinstance(schema, list):
        return [_strip_patterns(v) for v in schema]
    return schema


_ESCAPES = frozenset('xuUtrn\\"[]')


def _known_escapes(gbnf: str) -> bool:
    """Whether every backslash escape in a GBNF text is one llama.cpp's parser knows; its
    parser reports the others on stderr and gives no grammar."""
    i = gbnf.find("\\")
    while i != -1:
        if i + 1 >= len(gbnf) or gbnf[i + 1] not in _ESCAPES:
            return False
        i = gbnf.find("\\", i + 2)
    return True


def _parses(llama: Any, grammar: Any) -> bool:
    """Whether llama.cpp's own parser accepts `grammar`: it answers NULL for one it cannot
    parse, which llama-cpp-python would add to the sampler chain and crash on."""
    import llama_cpp

    if not _known_escapes(grammar._grammar):
        return False
    sampler = llama_cpp.llama_sampler_init_grammar(
        llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def arguments_grammar(llama: Any, schema: dict[str, Any]) -> tuple[Any, str]:
    """The grammar for a tool's arguments and which one it is: ``schema`` (the tool's JSON
    Schema), ``schema-without-pattern`` (the schema's regex patterns dropped: llama.cpp's
    translation of e.g. ``\\d`` does not parse) or ``json`` (any JSON object). Decided once
    per schema and context."""
    from llama_cpp import llama_grammar

    memo: dict[str, tuple[Any, str]] = llama.__dict__.setdefault("agentprop_grammars", {})
    key = json.dumps(schema, sort_keys=True)
    if key in memo:
        return memo[key]
    found: tuple[Any, str] | None = None
    for kind, s in (("schema", schema), ("schema-without-pattern", _strip_patterns(schema))):
        try:
            g = llama_grammar.LlamaGrammar.from_json_schema(json.dumps(s), verbose=False)
        except Exception:  # the converter raises on schemas it does not support
            continue
        if _parses(llama, g):
            found = (g, kind)
            break
    if found is None:
        found = (llama_grammar.LlamaGrammar.from_string(llama_grammar.JSON_GBNF,
                                                        verbose=False), "json")
    memo[key] = found
    return found


class _Run:
    """One request's completions: shared settings, summed usage, and the abort flag the
    provider sets when the request is cancelled (a stopping criterion checks it)."""

    def __init__(self, llama: Any, settings: dict[str, Any], max_tokens: int | None) -> None:
        self.llama = llama
        self.settings = settings
        self.max_tokens = max_tokens if max_tokens and max_tokens > 0 else None
        self.prompt_tokens = 0
        self.completion_tokens = 0
        abort = getattr(llama, "abort_event", None)
        self.abort: threading.Event | None = abort if isinstance(abort, threading.Event) else None

    def complete(self, prompt: str, *, grammar: Any = None, stop: list[str] | None = None,
                 max_tokens: int | None = None, json_object: bool = False) -> str:
        """One completion. `json_object`: stop once the text holds a whole JSON object
        (a small model goes on writing after it)."""
        from llama_cpp import StoppingCriteriaList

        rules = []
        if self.abort is not None:
            abort = self.abort
            rules.append(lambda ids, logits: abort.is_set())
        if json_object:
            start = len(self.llama.tokenize(prompt.encode("utf-8"), special=True))
            llama = self.llama

            def closed(ids: Any, logits: Any) -> bool:
                text = llama.detokenize(list(ids[start:])).decode("utf-8", "ignore")
                return object_end(text) is not None

            rules.append(closed)
        criteria = StoppingCriteriaList(rules) if rules else None
        res = self.llama.create_completion(
            prompt=prompt, grammar=grammar, stop=stop or [_END],
            max_tokens=max_tokens if max_tokens is not None else self.max_tokens,
            stopping_criteria=criteria, stream=False, **self.settings)
        usage = res.get("usage") or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        self.finish = res["choices"][0].get("finish_reason")
        return str(res["choices"][0]["text"])


def object_end(text: str) -> int | None:
    """Where the JSON object that `text` starts with (after whitespace) ends, or None
    while it holds no whole one."""
    body = text.lstrip()
    if not body.startswith("{"):
        return None
    try:
        obj, end = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return None
    return len(text) - len(body) + end if isinstance(obj, dict) else None


def _choice_grammar(names: list[str], *, message: str | None) -> Any:
    from llama_cpp import llama_grammar

    fns = " | ".join(json.dumps(f"functions.{n}:") for n in names)
    root = f"functions | {json.dumps(message)}" if message else "functions"
    return llama_grammar.LlamaGrammar.from_string(
        f"root ::= {root}\nfunctions ::= {fns}\n", verbose=False)


def _response(run: _Run, *, content: str | None, calls: list[dict[str, Any]],
              finish: str, notes: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(getattr(run.llama, "model_path", "")),
        "choices": [{
            "index": 0, "finish_reason": finish, "logprobs": None,
            "message": {"role": "assistant", "content": content,
                        **({"tool_calls": calls} if calls else {})},
        }],
        "usage": {"prompt_tokens": run.prompt_tokens,
                  "completion_tokens": run.completion_tokens,
                  "total_tokens": run.prompt_tokens + run.completion_tokens},
        "agentprop": notes,
    }


def _message(run: _Run, prompt: str, notes: dict[str, Any]) -> dict[str, Any]:
    text = run.complete(prompt)
    finish = "length" if run.finish == "length" else "stop"
    return _response(run, content=text.strip(), calls=[], finish=finish, notes=notes)


def _arguments(run: _Run, prompt: str, schema: dict[str, Any], *,
               constrained: bool = False) -> tuple[str, str]:
    """A call's arguments and how they were made: ``free`` when the model's own text holds
    a JSON object (it is cut after the object), else under a grammar
    (`arguments_grammar`). Free first, as llama.cpp's own sampler checks the grammar only
    when the sampled token breaks it: a grammar over the whole vocabulary costs 3-8x the
    time per token, and a small model writes JSON well. The schema itself is checked where
    the call is executed, as for any model. `constrained` (a call the request forces by
    name, as OpenAI's named tool_choice and llama.cpp's servers do) goes under the grammar
    at once."""
    if constrained:
        grammar, kind = arguments_grammar(run.llama, schema)
        return run.complete(prompt, grammar=grammar).strip(), kind
    text = run.complete(prompt, stop=[_END, "\nfunctions.", "\nmessage:"], json_object=True)
    body = text.strip()
    try:
        obj, end = json.JSONDecoder().raw_decode(body)
    except ValueError:
        obj, end = None, 0
    if isinstance(obj, dict):
        return body[:end], "free"
    grammar, kind = arguments_grammar(run.llama, schema)
    return run.complete(prompt, grammar=grammar).strip(), kind


def _calls(run: _Run, prompt: str, first: str, tools: dict[str, dict[str, Any]],
           notes: dict[str, Any], *, parallel: bool, named: bool = False) -> dict[str, Any]:
    calls: list[dict[str, Any]] = []
    made: list[str] = []
    name: str | None = first
    limit = MAX_CALLS_PER_TURN if parallel else 1
    while name is not None and len(calls) < limit:
        prompt += f"functions.{name}:\n"
        args, kind = _arguments(run, prompt, tools[name].get("parameters") or {},
                                constrained=named and not calls)
        made.append(kind)
        calls.append({"id": f"call_{len(calls)}", "type": "function",
                      "function": {"name": name, "arguments": args}})
        if run.finish == "length" or len(calls) >= limit:
            break
        prompt += args + "\n"
        name = _choose(run, prompt, list(tools), end=True)
    notes["arguments"] = made
    finish = "length" if run.finish == "length" else "tool_calls"
    return _response(run, content=None, calls=calls, finish=finish, notes=notes)


_MESSAGE = "message"


def _choose(run: _Run, prompt: str, names: list[str], *, end: bool = False,
            forced: bool = False) -> str | None:
    """What the reply starts with: a tool's name, ``message`` (None after a call: the turn
    ends). Free first; under the grammar of the allowed starts when the model's own text
    is none of them."""
    allowed = {f"functions.{n}": n for n in names}
    if not forced and not end:
        allowed["message"] = _MESSAGE
    head = run.complete(prompt, stop=[":", "\n", _END], max_tokens=16).strip()
    if head in allowed:
        return allowed[head]
    if end and not head:
        return None
    head = run.complete(prompt, grammar=_choice_grammar(
        names, message=_END if end else None if forced else "message:"),
        stop=[":"], max_tokens=32)
    return allowed.get(head)


def chatml_tools_handler(*, llama: Any, messages: list[dict[str, Any]],
                         tools: list[dict[str, Any]] | None = None,
                         tool_choice: Any = None, max_tokens: int | None = None,
                         temperature: float = 0.0, seed: int | None = None,
                         repeat_penalty: float = 1.1, top_p: float = 0.95, top_k: int = 40,
                         min_p: float = 0.05, parallel_tool_calls: bool = False,
                         reply_cap: int | None = None, **_: Any) -> dict[str, Any]:
    """llama-cpp-python's chat-handler protocol: an OpenAI chat.completion dict.

    `tool_choice`: None or "auto" lets the model choose (as OpenAI's default when tools
    are present), "required" forces some call, {"type": "function", "function": {"name":
    N}} forces N, "none" (or no tools) asks for text. The reply's ``agentprop`` key says
    how each call's arguments were made. One call per reply unless `parallel_tool_calls`
    (OpenAI's name; llama-cpp-python's server does not pass it, so through the server it
    is one call too): each further call costs two completions, and a small model fills
    them with calls nobody asked for. `reply_cap` bounds `max_tokens` (`serve-local` sets
    the in-process provider's cap, so both generate alike)."""
    if reply_cap:
        max_tokens = min(max_tokens, reply_cap) if max_tokens and max_tokens > 0 else reply_cap
    tools = [t for t in tools or [] if (t.get("function") or {}).get("name")]
    by_name = {t["function"]["name"]: t["function"] for t in tools}
    run = _Run(llama, {"temperature": temperature, "repeat_penalty": repeat_penalty,
                       "top_p": top_p, "top_k": top_k, "min_p": min_p, "seed": seed},
               max_tokens)
    notes: dict[str, Any] = {"handler": HANDLER_NAME}
    if not by_name or tool_choice == "none":
        return _message(run, render_prompt(messages, []), notes)
    prompt = render_prompt(messages, tools)
    if isinstance(tool_choice, dict):
        name = (tool_choice.get("function") or {}).get("name")
        if not isinstance(name, str) or name not in by_name:
            raise ValueError(f"tool_choice names {name!r}, which is not among the tools")
        return _calls(run, prompt, name, by_name, notes, parallel=parallel_tool_calls,
                      named=True)
    start = _choose(run, prompt, list(by_name), forced=tool_choice == "required")
    if start is not None and start != _MESSAGE:
        return _calls(run, prompt, start, by_name, notes, parallel=parallel_tool_calls)
    return _message(run, prompt + "message:\n", notes)


def register_handler() -> None:
    """Make the handler known to llama-cpp-python by name (`--chat_format
    agentprop-chatml-tools` for its server); idempotent."""
    from llama_cpp import llama_chat_format

    registry = llama_chat_format.LlamaChatCompletionHandlerRegistry()
    if HANDLER_NAME not in registry._chat_handlers:
        handler: Any = chatml_tools_handler
        registry.register_chat_completion_handler(HANDLER_NAME, handler)
