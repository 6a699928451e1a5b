"""The single agent loop and its hook points."""

from agentprop.agent._hooks import WARNING_PREFIX, AgentHooks, CallRewrite, EpisodeContext
from agentprop.agent._loop import (
    DEFAULT_MAX_STEPS,
    execute_call,
    finish_episode,
    observation_text,
    run_episode,
    system_prompt,
)
from agentprop.agent._text import parse_react, text_system_prompt

__all__ = [
    "DEFAULT_MAX_STEPS",
    "WARNING_PREFIX",
    "AgentHooks",
    "CallRewrite",
    "EpisodeContext",
    "execute_call",
    "finish_episode",
    "observation_text",
    "parse_react",
    "run_episode",
    "system_prompt",
    "text_system_prompt",
]
