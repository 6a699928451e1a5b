"""The `noticed` LLM classifier on the real SmolLM2-135M: structure, never wording (the
tiny model's figures are in bench/README.md: it mostly replies no allowed answer)."""

from __future__ import annotations

import asyncio
from typing import Any

from agentprop.judges import NoticedClassifier
from agentprop.judges._noticed_prompt import allowed_answers


def test_a_reading_is_an_allowed_answer_or_unscored(smollm2: Any) -> None:
    clf = NoticedClassifier(smollm2)
    asked = asyncio.run(clf.ask("The forecast is for Rome, but you asked about Madrid.",
                                "final", None))
    allowed = {a.lower() for a in allowed_answers("final", None)}
    assert asked.reading in allowed | {"unscored"}
    assert isinstance(asked.raw["output"], str) and asked.cost == 0.0
