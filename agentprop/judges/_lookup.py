"""The parser for judge names and the judge lookup.

A judge name is ``heuristic``, ``facts``, ``llm:<provider/model>``,
``ensemble:<m1>,<m2>[,...]``, ``agree`` or ``agree:<provider/model>``; `get_judge` turns
it into a Judge. Verdicts carry the
canonical name (spaces removed), so the same judge always writes the same rows. Importing
this module imports the built-in judges, which register themselves in `JUDGES`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from agentprop.core import UnknownNameError, unknown_message
from agentprop.judges import _agree, _facts, _heuristic, _llm  # noqa: F401  (they register)
from agentprop.judges._base import JUDGE_FORMS, JUDGES, Judge
from agentprop.plugins import explain_unknown, load_plugins


def canonical_name(name: str) -> str:
    """``ensemble: a, b`` → ``ensemble:a,b``; raises UnknownNameError for malformed names."""
    load_plugins()  # installed plugin packages register their judges
    text = "".join(str(name).split())
    kind, _, arg = text.partition(":")
    if kind not in JUDGES:
        # the closest judge kinds, each with the name's own arguments ("ensembl:a,b")
        close = difflib.get_close_matches(kind, JUDGES.names(), n=3, cutoff=0.6)
        fixed = [f"{c}:{arg}" if arg else c for c in close]
        raise explain_unknown(UnknownNameError(unknown_message(
            "judge", name, fixed, listing=JUDGE_FORMS, label="valid forms")))
    return f"{kind}:{arg}" if arg else kind


def resolve_judge(name: str, stored: Sequence[str]) -> str:
    """The judge a workspace's user means by `name`: a stored judge's name as written or
    canonicalised, or, for a bare kind (`ensemble`, `llm`), the one stored judge of that
    kind; else the canonical name (a judge not run yet). UnknownNameError when a bare
    kind matches several stored judges (they are listed) or none."""
    text = "".join(str(name).split())
    if text in stored:
        return text
    kind, _, arg = text.partition(":")
    if not arg and kind in JUDGES and kind not in stored:
        same = [s for s in stored if s.partition(":")[0] == kind]
        if len(same) == 1:
            return same[0]
        if same:
            raise UnknownNameError(f"judge {name!r} matches {len(same)} judges of this "
                                   f"workspace: {', '.join(same)}; give one in full")
        if kind in ("llm", "ensemble"):
            raise UnknownNameError(
                f"no {kind} judge has verdicts in this workspace (judges with verdicts: "
                f"{', '.join(stored) or 'none'}); give the full name, e.g. "
                + ("llm:openai/gpt-4o-mini" if kind == "llm"
                   else "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"))
    return canonical_name(text)


def get_judge(name: str, **options: Any) -> Judge:
    """Instantiate the judge `name`. Options: ``cache`` (a Workspace for the model response
    cache), ``suite`` (for sim-judge models), ``model_options`` (passed to `get_model`),
    ``vocabulary`` (a callable giving the suite's vocabulary, shared by the facts judge
    and sim-judge models so that they read each answer once)."""
    text = canonical_name(name)
    kind, _, arg = text.partition(":")
    return JUDGES.get(kind)(arg, **options)
