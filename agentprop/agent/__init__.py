"""The single agent loop and its hook points."""

from agentprop.agent._hooks import (
    MAX_RETRIES,
    WARNING_PREFIX,
    AgentHooks,
    CallRewrite,
    EpisodeContext,
    EpisodeStates,
    ResultReview,
)
from agentprop.agent._leaked import LeakedCall, leaked_calls
from agentprop.agent._loop import (
    DEFAULT_MAX_STEPS,
    NativeDialect,
    execute_call,
    finish_episode,
    observation_text,
    run_episode,
    system_prompt,
)
from agentprop.agent._text import parse_react, text_system_prompt

__all__ = [
    "DEFAULT_MAX_STEPS",
    "MAX_RETRIES",
    "WARNING_PREFIX",
    "AgentHooks",
    "CallRewrite",
    "EpisodeContext",
    "EpisodeStates",
    "LeakedCall",
    "NativeDialect",
    "ResultReview",
    "execute_call",
    "finish_episode",
    "leaked_calls",
    "observation_text",
    "parse_react",
    "run_episode",
    "system_prompt",
    "text_system_prompt",
]
