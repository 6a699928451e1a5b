"""Any agent, not only ours: the suite's tools over MCP with injection at the boundary,
`agentprop run --agent`, and a recording OpenAI-compatible gateway (docs/external-agents.md);
and any tools: the user's own MCP server forwarded with the same boundary
(`run --upstream`, `proxy-tools`; docs/your-tools.md).
"""

from agentprop.external._agent import Abstention, AgentLoadError, Episode, load_agent
from agentprop.external._episode import EpisodeClosed, EpisodeRecorder
from agentprop.external._executor import (
    DEFAULT_EPISODE_TIMEOUT_S,
    AgentExecutor,
    agent_in_worker,
)
from agentprop.external._host import EpisodeHost
from agentprop.external._tools import SUBMIT_TOOL, build_server
from agentprop.external._upstream import (
    SIDE_EFFECTS,
    Upstream,
    UpstreamDomain,
    UpstreamEnvironment,
    UpstreamError,
    discover,
    observation_of,
)

__all__ = [
    "DEFAULT_EPISODE_TIMEOUT_S",
    "SIDE_EFFECTS",
    "SUBMIT_TOOL",
    "Abstention",
    "AgentExecutor",
    "AgentLoadError",
    "Episode",
    "EpisodeClosed",
    "EpisodeHost",
    "EpisodeRecorder",
    "Upstream",
    "UpstreamDomain",
    "UpstreamEnvironment",
    "UpstreamError",
    "agent_in_worker",
    "build_server",
    "discover",
    "load_agent",
    "observation_of",
]
