"""Provider registry: a model id ``provider/name`` resolves to a Model instance."""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from agentprop.core import Registry, UnknownNameError, unknown_name
from agentprop.models._base import Model
from agentprop.plugins import explain_unknown, load_plugins


class ProviderFactory(Protocol):
    def __call__(self, name: str, **options: Any) -> Model: ...


PROVIDERS: Registry[ProviderFactory] = Registry("model provider")

# Where each built-in provider lives; imported on first use so optional SDKs stay optional.
_BUILTIN: dict[str, str] = {
    "openai": "agentprop.models._openai",
    "openrouter": "agentprop.models._openai",
    "anthropic": "agentprop.models._anthropic",
    "google": "agentprop.models._google",
    "local": "agentprop.models._local",
    "sim": "agentprop.sim",
    "sim-judge": "agentprop.judges._simjudge",
    "sim-noticed": "agentprop.judges._simnoticed",
}


def register_provider(prefix: str) -> Any:
    """Decorator registering a factory ``(name, **options) -> Model`` for `prefix`."""
    return PROVIDERS.register(prefix)


def split_model_id(model_id: str) -> tuple[str, str]:
    if "/" not in model_id or not model_id.split("/", 1)[1]:
        raise UnknownNameError(
            f"invalid model id {model_id!r}: expected provider/name, e.g. openai/gpt-4o-mini"
            " or sim/balanced"
        )
    prefix, name = model_id.split("/", 1)
    return prefix, name


def check_model_id(model_id: str) -> None:
    """Raise UnknownNameError unless `model_id` names a known provider (no SDK is imported,
    nothing is contacted): for validating a study before anything runs."""
    prefix, _ = split_model_id(model_id)
    if prefix not in PROVIDERS and prefix not in _BUILTIN:
        raise unknown_name("model provider", prefix,
                           sorted(set(PROVIDERS.names()) | set(_BUILTIN)))


def get_model(model_id: str, **options: Any) -> Model:
    """Instantiate `model_id`. Options are provider-specific (base_url, cache, suite...)."""
    prefix, name = split_model_id(model_id)
    if prefix not in PROVIDERS and prefix in _BUILTIN:
        importlib.import_module(_BUILTIN[prefix])
    if prefix not in PROVIDERS:
        load_plugins()  # an installed plugin package may provide it (agentprop/plugins.py)
    if prefix not in PROVIDERS:
        raise explain_unknown(unknown_name("model provider", prefix,
                                           sorted(set(PROVIDERS.names()) | set(_BUILTIN))))
    return PROVIDERS.get(prefix)(name, **options)
