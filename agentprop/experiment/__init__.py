"""A whole study from one config file: plan, dry run, resumable execution, the offline demo."""

from agentprop.experiment._config import (
    ConfigError,
    EvaluateBlock,
    ExperimentConfig,
    LabelBlock,
    ModelEntry,
    RunBlock,
    SweepBlock,
    load_config,
)
from agentprop.experiment._plan import Plan, StepPlan, build_plan, select_tasks

__all__ = [
    "ConfigError",
    "EvaluateBlock",
    "ExperimentConfig",
    "LabelBlock",
    "ModelEntry",
    "Plan",
    "RunBlock",
    "StepPlan",
    "SweepBlock",
    "build_plan",
    "load_config",
    "select_tasks",
]
