"""Simulated agents (`sim/<profile>`): offline, deterministic policies with stated
parameters, served in-process or over an OpenAI-compatible HTTP endpoint."""

from agentprop.models._registry import register_provider
from agentprop.sim._model import SimAgent, SimModel, get_profile, sim_provider
from agentprop.sim._policy import decide, draw, mismatch, perturb
from agentprop.sim._profiles import PROFILES, SimProfile

register_provider("sim")(sim_provider)

__all__ = [
    "PROFILES",
    "SimAgent",
    "SimModel",
    "SimProfile",
    "decide",
    "draw",
    "get_profile",
    "mismatch",
    "perturb",
    "sim_provider",
]
