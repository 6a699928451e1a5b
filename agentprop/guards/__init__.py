"""agentprop's guards inside the user's framework: any `agentprop.intercept.Guard` (by
default the interceptor) as LangChain v1 middleware (`agentprop.guards.langchain`) or as
OpenAI Agents SDK guardrails (`agentprop.guards.openai_agents`) and as an Inspect AI
approver (`agentprop.guards.inspect_approver`), so the decision code agentprop's own loop
runs is what runs in the framework (docs/guardrails.md, "Inside your framework"). The
frameworks are optional (the ``agents`` and ``inspect`` extras): they are imported only by
those modules, never by this package or by `import agentprop`.
"""

from agentprop.guards._common import (
    Turn,
    content_text,
    default_guard,
    observation_of,
    to_events,
)

__all__ = ["Turn", "content_text", "default_guard", "observation_of", "to_events"]
