"""The adapters' shared contract: importing agentprop (and agentprop.guards) never imports
a framework, and a reject that can only abstain shows the user the abstention text."""

from __future__ import annotations

import subprocess
import sys

from agentprop.intercept import Decision

FRAMEWORKS = ("langchain", "langchain_core", "langgraph", "agents")


def test_import_agentprop_imports_no_framework() -> None:
    code = ("import sys, agentprop, agentprop.guards, agentprop.intercept; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({FRAMEWORKS!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_a_reject_past_its_limit_abstains_without_the_agents_message() -> None:
    d = Decision.reject("call the tool again", reason="L1")
    assert d.as_abstention() == Decision.abstain("L1")
    kept = Decision.abstain("why", message="ask the user")
    assert kept.as_abstention() is kept
