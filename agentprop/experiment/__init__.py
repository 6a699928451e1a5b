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
from agentprop.experiment._execute import (
    ExperimentResult,
    compute_simulation_check,
    load_analysis_input,
    report_workspace,
    run_experiment,
)
from agentprop.experiment._plan import Plan, StepPlan, build_plan, evaluation_plan
from agentprop.experiment._simcheck import simulation_check
from agentprop.suite import select_tasks

__all__ = [
    "ConfigError",
    "EvaluateBlock",
    "ExperimentConfig",
    "ExperimentResult",
    "LabelBlock",
    "ModelEntry",
    "Plan",
    "RunBlock",
    "StepPlan",
    "SweepBlock",
    "build_plan",
    "compute_simulation_check",
    "evaluation_plan",
    "load_analysis_input",
    "load_config",
    "report_workspace",
    "run_experiment",
    "select_tasks",
    "simulation_check",
]
