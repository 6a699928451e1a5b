"""Simulated agents (`sim/<profile>`): offline, deterministic policies with stated
parameters, served in-process or over an OpenAI-compatible HTTP endpoint."""

from agentprop.models._registry import register_provider
from agentprop.sim._model import SimAgent, SimModel, get_profile, sim_provider
from agentprop.sim._policy import decide, draw, mismatch, perturb
from agentprop.sim._profiles import PROFILES, SimProfile
from agentprop.sim._server import FAULT_TYPES, ServerConfig, ServerThread, SimServer, serve

register_provider("sim")(sim_provider)

__all__ = [
    "FAULT_TYPES",
    "PROFILES",
    "ServerConfig",
    "ServerThread",
    "SimAgent",
    "SimModel",
    "SimProfile",
    "SimServer",
    "decide",
    "draw",
    "get_profile",
    "mismatch",
    "perturb",
    "serve",
    "sim_provider",
]
