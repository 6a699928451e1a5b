"""The three-layer runtime interceptor (one implementation: online hook and offline replay),
its threshold sweep, and the paired control/treatment evaluation's statistics."""

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
    split_output,
)
from agentprop.intercept._sweep import SWEEP_COLUMNS, best_config, sweep

# The evaluation's statistics and workspace operations pull in scipy/statsmodels: loaded on
# first use, so the hook itself stays cheap to import.
_LAZY = {
    "ab_table": "_evaluate", "outcome_frame": "_evaluate", "pair_frame": "_evaluate",
    "replay_frame": "_evaluate", "replay_table": "_evaluate", "risk_coverage": "_evaluate",
    "false_alarm_table": "_evaluate", "InterceptError": "_workflow",
    "run_sweep": "_workflow", "run_evaluation": "_workflow", "plan_evaluation": "_workflow",
    "summarize_evaluation": "_workflow", "resolve_config": "_workflow",
    "treatment_hooks": "_workflow",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"agentprop.intercept.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'agentprop.intercept' has no attribute {name!r}")


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
    "split_output",
    "stated_numbers",
    "sweep",
    "trace_signals",
    "warning_text",
    *_LAZY,
]
