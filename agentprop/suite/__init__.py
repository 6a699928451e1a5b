"""The task suite: generators per domain, gold plans, grounded references, checks."""

from agentprop.suite._generator import GENERATORS, TaskGenerator

__all__ = ["GENERATORS", "TaskGenerator"]
