"""The async runner: work units, bounded concurrency, one batching writer, resume."""

from agentprop.runner._errors import RunAborted, RunError, RunLocked
from agentprop.runner._executor import EpisodeExecutor, NativeExecutor
from agentprop.runner._plan import MAX_SEED, check_seeds, default_run_id, plan_units
from agentprop.runner._run import (
    RunSummary,
    make_models,
    run_units,
    run_units_sync,
)
from agentprop.runner._secrets import redact, redact_text

__all__ = [
    "MAX_SEED",
    "EpisodeExecutor",
    "NativeExecutor",
    "RunAborted",
    "RunError",
    "RunLocked",
    "RunSummary",
    "check_seeds",
    "default_run_id",
    "make_models",
    "plan_units",
    "redact",
    "redact_text",
    "run_units",
    "run_units_sync",
]
