"""The parser for judge names and the judge lookup.

A judge name is ``heuristic``, ``facts``, ``llm:<provider/model>`` or
``ensemble:<m1>,<m2>[,...]``; `get_judge` turns it into a Judge. Verdicts carry the
canonical name (spaces removed), so the same judge always writes the same rows. Importing
this module imports the built-in judges, which register themselves in `JUDGES`.
"""

from __future__ import annotations

from typing import Any

from agentprop.core import UnknownNameError
from agentprop.judges import _facts, _heuristic, _llm  # noqa: F401  (they register)
from agentprop.judges._base import JUDGE_FORMS, JUDGES, Judge
from agentprop.plugins import explain_unknown, load_plugins


def canonical_name(name: str) -> str:
    """``ensemble: a, b`` → ``ensemble:a,b``; raises UnknownNameError for malformed names."""
    load_plugins()  # installed plugin packages register their judges
    text = "".join(str(name).split())
    kind, _, arg = text.partition(":")
    if kind not in JUDGES:
        raise explain_unknown(UnknownNameError(f"unknown judge {name!r}; valid forms: "
                                               f"{JUDGE_FORMS}"))
    return f"{kind}:{arg}" if arg else kind


def get_judge(name: str, **options: Any) -> Judge:
    """Instantiate the judge `name`. Options: ``cache`` (a Workspace for the model response
    cache), ``suite`` (for sim-judge models), ``model_options`` (passed to `get_model`),
    ``vocabulary`` (a callable giving the suite's vocabulary, shared by the facts judge
    and sim-judge models so that they read each answer once)."""
    text = canonical_name(name)
    kind, _, arg = text.partition(":")
    return JUDGES.get(kind)(arg, **options)
