"""The runner, in three parts (as τ²-bench splits it): building units, hooks and models
(`_plan.py`, `_build.py`), executing one episode (`_executor.py`: the native loop, or an
external agent's executor), and batching (`_run.py`: resume, lock, concurrency, writer,
cost guard, rate limits, the pre-flight check of `_preflight.py`, the tool-calling
probe of `_probe.py`)."""

from agentprop.runner._build import make_models
from agentprop.runner._errors import RunAborted, RunError, RunLocked
from agentprop.runner._executor import EpisodeExecutor, NativeExecutor
from agentprop.runner._plan import MAX_SEED, check_seeds, default_run_id, plan_units
from agentprop.runner._pool import (
    EXECUTORS,
    ProcessPool,
    RayPool,
    WorkerLost,
    WorkerPool,
    make_pool,
)
from agentprop.runner._probe import (
    PROBE_MODES,
    ProbeMode,
    ProbeRefused,
    probe_line,
    probe_model,
)
from agentprop.runner._run import run_units, run_units_sync
from agentprop.runner._secrets import redact, redact_argv, redact_text
from agentprop.runner._summary import RunSummary

__all__ = [
    "EXECUTORS",
    "MAX_SEED",
    "PROBE_MODES",
    "EpisodeExecutor",
    "NativeExecutor",
    "ProbeMode",
    "ProbeRefused",
    "ProcessPool",
    "RayPool",
    "RunAborted",
    "RunError",
    "RunLocked",
    "RunSummary",
    "WorkerLost",
    "WorkerPool",
    "check_seeds",
    "default_run_id",
    "make_models",
    "make_pool",
    "plan_units",
    "probe_line",
    "probe_model",
    "redact",
    "redact_argv",
    "redact_text",
    "run_units",
    "run_units_sync",
]
