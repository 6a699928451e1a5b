"""Model providers behind one protocol: openai-compatible, anthropic, google, sim."""

from agentprop.models._base import GenerateConfig, Model, ModelError
from agentprop.models._registry import PROVIDERS, get_model, register_provider, split_model_id

__all__ = [
    "PROVIDERS",
    "GenerateConfig",
    "Model",
    "ModelError",
    "get_model",
    "register_provider",
    "split_model_id",
]
