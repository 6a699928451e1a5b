"""Model providers behind one protocol: openai-compatible, anthropic, google, sim."""

from agentprop.models._base import GenerateConfig, Model, ModelError

__all__ = ["GenerateConfig", "Model", "ModelError"]
