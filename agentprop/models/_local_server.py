"""`agentprop serve-local`: a local model behind llama-cpp-python's own OpenAI-compatible
server (its FastAPI app, `llama_cpp.server.app.create_app`), with agentprop's chat handler.

It is the path a vLLM, Ollama or llama.cpp user takes (`openai/<name> --base-url`), on the
same model and handler as the in-process `local/` provider, so one seed gives the same
traces both ways; and it lets any agent framework (`run --agent`, examples/) talk to a real
model offline. It binds 127.0.0.1 only.
"""

from __future__ import annotations

import functools
from typing import Any

from agentprop.models._base import ModelError
from agentprop.models._local import LocalModel


def server_app(model: LocalModel, *, port: int, alias: str) -> Any:
    """llama-cpp-python's server app for `model` (its file, context size, threads, chat
    format and reply cap), serving it under the name `alias`."""
    from llama_cpp import llama_chat_format
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    from agentprop.models._local_chat import HANDLER_NAME, chatml_tools_handler

    fmt: str | None = model.chat_format
    if fmt == HANDLER_NAME:  # the reply cap of the in-process provider, applied here too
        handler: Any = functools.partial(chatml_tools_handler, reply_cap=model.max_tokens)
        llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
            HANDLER_NAME, handler, overwrite=True)
    elif fmt == "template":
        fmt = None  # the server reads the GGUF's own template, as the provider does
    settings = ModelSettings(model=str(model.path), model_alias=alias, chat_format=fmt,
                             n_ctx=model.n_ctx, n_threads=model.n_threads,
                             n_threads_batch=model.n_threads, seed=0, verbose=False,
                             cache=model.state_cache_mb > 0, cache_type="ram",
                             cache_size=model.state_cache_mb << 20)
    return create_app(server_settings=ServerSettings(host="127.0.0.1", port=port),
                      model_settings=[settings])


def prepare(model_id: str, *, port: int, options: dict[str, Any]) -> tuple[Any, str]:
    """The server app for `model_id` (``local/<name>``) on 127.0.0.1:`port`, and the model
    name clients use (``openai/<name>``); the model is loaded and checked first."""
    from agentprop.models import get_model

    model = get_model(model_id, **options)
    if not isinstance(model, LocalModel):
        raise ModelError("bad_request", f"serve-local serves local/ models, not {model_id}")
    alias = model.name if "/" not in model.name else model.path.stem
    return server_app(model, port=port, alias=alias), alias
