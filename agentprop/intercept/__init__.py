"""The three-layer runtime interceptor (one implementation: online hook and offline replay)
and its threshold sweep; any guardrail or mitigation as a hook (`Guard`, `GuardHooks`) and
the built-in mitigations. Its workflow on a workspace (sweep, paired evaluation) and the
evaluation's statistics live in the application layer (`agentprop.app`)."""

from agentprop.agent import WARNING_PREFIX
from agentprop.intercept._config import (
    DEFAULT_KEYWORDS,
    InterceptConfig,
    InterceptMode,
    default_configs,
    parse_config,
)
from agentprop.intercept._guard import GUARD_ERROR, Decision, Guard, GuardHooks, GuardView
from agentprop.intercept._guardspec import GuardKind, GuardSpec, builtin_names, resolve_guard
from agentprop.intercept._interceptor import Interceptor, warning_text
from agentprop.intercept._mitigations import MITIGATIONS, Mitigation, mitigation
from agentprop.intercept._numbers import Stated, Support, stated_numbers
from agentprop.intercept._replay import ReplayResult, episode_state, replay, trace_signals
from agentprop.intercept._signals import (
    ABSTENTION_TEXT,
    EpisodeState,
    Firing,
    Signals,
    decide,
    signal_strength,
    split_output,
)
from agentprop.intercept._sweep import SWEEP_COLUMNS, best_config, sweep

__all__ = [
    "ABSTENTION_TEXT",
    "DEFAULT_KEYWORDS",
    "GUARD_ERROR",
    "MITIGATIONS",
    "SWEEP_COLUMNS",
    "WARNING_PREFIX",
    "Decision",
    "EpisodeState",
    "Firing",
    "Guard",
    "GuardHooks",
    "GuardKind",
    "GuardSpec",
    "GuardView",
    "InterceptConfig",
    "InterceptMode",
    "Interceptor",
    "Mitigation",
    "ReplayResult",
    "Signals",
    "Stated",
    "Support",
    "best_config",
    "builtin_names",
    "decide",
    "default_configs",
    "episode_state",
    "mitigation",
    "parse_config",
    "replay",
    "resolve_guard",
    "signal_strength",
    "split_output",
    "stated_numbers",
    "sweep",
    "trace_signals",
    "warning_text",
]
