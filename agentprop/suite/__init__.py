"""The task suite: generators per domain, gold plans, grounded references, checks.

A plugin domain builds its generator from the exported `Intent`, `Intents`,
`IntentGenerator`, `Draft` and `GoldError` (docs/architecture.md, "Add a domain intent")."""

from agentprop.suite._check import CheckFailure, check_suite, check_task, execute_gold_plan
from agentprop.suite._draw import Draft, GoldError
from agentprop.suite._generator import GENERATORS, TaskGenerator
from agentprop.suite._intent import Intent, IntentGenerator, Intents
from agentprop.suite._sample import select_tasks
from agentprop.suite._suite import (
    CORE_DOMAINS,
    DEFAULT_SEED,
    DOMAIN_COUNTS,
    HELD_OUT_DOMAINS,
    SUITE_VERSION,
    Suite,
    SuiteError,
    build_suite,
    default_suite_path,
    get_generator,
    load_suite,
)
from agentprop.suite._user import USER_SUITE_VERSION, load_user_tasks, user_suite

__all__ = [
    "CORE_DOMAINS",
    "DEFAULT_SEED",
    "DOMAIN_COUNTS",
    "GENERATORS",
    "HELD_OUT_DOMAINS",
    "SUITE_VERSION",
    "USER_SUITE_VERSION",
    "CheckFailure",
    "Draft",
    "GoldError",
    "Intent",
    "IntentGenerator",
    "Intents",
    "Suite",
    "SuiteError",
    "TaskGenerator",
    "build_suite",
    "check_suite",
    "check_task",
    "default_suite_path",
    "execute_gold_plan",
    "get_generator",
    "load_suite",
    "load_user_tasks",
    "select_tasks",
    "user_suite",
]
