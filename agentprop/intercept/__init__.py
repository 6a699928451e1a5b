"""The three-layer runtime interceptor (one implementation: online hook and offline replay)
and its threshold sweep. Its workflow on a workspace (sweep, paired evaluation) and the
evaluation's statistics live in the application layer (`agentprop.app`)."""

from agentprop.agent import WARNING_PREFIX
from agentprop.intercept._config import (
    DEFAULT_KEYWORDS,
    InterceptConfig,
    InterceptMode,
    default_configs,
    parse_config,
)
from agentprop.intercept._interceptor import Interceptor, warning_text
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
    "SWEEP_COLUMNS",
    "WARNING_PREFIX",
    "EpisodeState",
    "Firing",
    "InterceptConfig",
    "InterceptMode",
    "Interceptor",
    "ReplayResult",
    "Signals",
    "Stated",
    "Support",
    "best_config",
    "decide",
    "default_configs",
    "episode_state",
    "parse_config",
    "replay",
    "signal_strength",
    "split_output",
    "stated_numbers",
    "sweep",
    "trace_signals",
    "warning_text",
]
