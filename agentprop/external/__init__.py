"""Any agent, not only ours: the suite's tools over MCP with injection at the boundary,
`agentprop run --agent`, and a recording OpenAI-compatible gateway (docs/external-agents.md).
"""

from agentprop.external._agent import AgentLoadError, Episode, load_agent
from agentprop.external._episode import EpisodeClosed, EpisodeRecorder
from agentprop.external._executor import DEFAULT_EPISODE_TIMEOUT_S, AgentExecutor
from agentprop.external._host import EpisodeHost
from agentprop.external._tools import SUBMIT_TOOL, build_server

__all__ = [
    "DEFAULT_EPISODE_TIMEOUT_S",
    "SUBMIT_TOOL",
    "AgentExecutor",
    "AgentLoadError",
    "Episode",
    "EpisodeClosed",
    "EpisodeHost",
    "EpisodeRecorder",
    "build_server",
    "load_agent",
]
