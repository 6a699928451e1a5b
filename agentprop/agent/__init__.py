"""The single agent loop and its hook points."""

from agentprop.agent._hooks import AgentHooks, CallRewrite, EpisodeContext

__all__ = ["AgentHooks", "CallRewrite", "EpisodeContext"]
