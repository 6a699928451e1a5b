"""Pydantic models of everything agentprop persists, and the shared registry type."""

from agentprop.core._records import Label, LabelValue, RunSpec, Verdict, VerdictRow
from agentprop.core._registry import Registry, UnknownNameError
from agentprop.core._task import (
    Difficulty,
    Fact,
    FactKind,
    FactRole,
    Split,
    Task,
    ToolCall,
    ToolSpec,
)
from agentprop.core._trace import (
    ErrorEvent,
    FinalEvent,
    InjectionEvent,
    InjectionStatus,
    InterceptEvent,
    Message,
    ModelCallEvent,
    ModelOutput,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    TraceEvent,
    TraceStatus,
    Usage,
    WorkUnit,
    stable_hash,
    utcnow,
)

REFERENCE_DATE = "2025-06-16"
"""The suite's fixed "today" (a Monday): relative dates and forecasts are anchored on it."""

__all__ = [
    "REFERENCE_DATE",
    "Difficulty",
    "ErrorEvent",
    "Fact",
    "FactKind",
    "FactRole",
    "FinalEvent",
    "InjectionEvent",
    "InjectionStatus",
    "InterceptEvent",
    "Label",
    "LabelValue",
    "Message",
    "ModelCallEvent",
    "ModelOutput",
    "Registry",
    "RunSpec",
    "Split",
    "Task",
    "ToolCall",
    "ToolCallEvent",
    "ToolResultEvent",
    "ToolSpec",
    "Trace",
    "TraceEvent",
    "TraceStatus",
    "UnknownNameError",
    "Usage",
    "Verdict",
    "VerdictRow",
    "WorkUnit",
    "stable_hash",
    "utcnow",
]
