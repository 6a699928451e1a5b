"""The application layer: the one planner every command that runs episodes goes through
(`agentprop run`, `serve-tools`, `intercept evaluate`, experiment steps), and the
interceptor's workflow built on it (sweep, paired evaluation, their statistics)."""

from agentprop.app._planner import (
    CostEstimate,
    ModelCost,
    PlanError,
    RunConfig,
    RunPlan,
    check_domains,
    estimate,
    known_domains,
    plan_run,
    resolve,
)

# The interceptor workflow pulls in pandas, scipy and statsmodels: loaded on first use, so
# planning a run stays cheap to import.
_LAZY = {
    "ab_table": "_evaluation", "outcome_frame": "_evaluation", "pair_frame": "_evaluation",
    "replay_frame": "_evaluation", "replay_table": "_evaluation",
    "risk_coverage": "_evaluation", "false_alarm_table": "_evaluation",
    "InterceptError": "_intercept", "run_sweep": "_intercept",
    "run_evaluation": "_intercept", "plan_evaluation": "_intercept",
    "summarize_evaluation": "_intercept", "resolve_config": "_intercept",
    "treatment_hooks": "_intercept",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"agentprop.app.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'agentprop.app' has no attribute {name!r}")


__all__ = [
    "CostEstimate",
    "ModelCost",
    "PlanError",
    "RunConfig",
    "RunPlan",
    "check_domains",
    "estimate",
    "known_domains",
    "plan_run",
    "resolve",
    *_LAZY,
]
