"""agentprop: error propagation, judge reliability and runtime interception for tool-using
LLM agents (the AgentProp-Bench method)."""

from importlib.metadata import PackageNotFoundError, version

from agentprop._deferred import defer_rfc3987_syntax

defer_rfc3987_syntax()  # seconds off every process that imports jsonschema (see the module)

try:
    __version__ = version("agentprop")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+local"

__all__ = ["__version__"]
