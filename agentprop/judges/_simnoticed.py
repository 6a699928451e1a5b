"""Simulated `noticed` classifiers (provider ``sim-noticed``): offline, deterministic,
with stated error rates, for tests and the benchmark's plumbing.

A ``sim-noticed/<profile>`` model reads the text and its place back out of the
classifier's prompt (`parse_noticed_prompt`), takes the text rules' kind
(`analysis.noticing.classify_text`) as its answer, then with `error_rate` replies another
allowed answer instead, and with `garbage_rate` something that is no answer at all (the
unscored path). Draws are seeded by the prompt, so a profile always replies the same to the
same prompt. Its agreement with human labels is the rules' agreement degraded by its
stated noise: it measures the pipeline, not a real model.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentprop.analysis.noticing import classify_text
from agentprop.core import Message, ModelOutput, Usage, stable_hash, unknown_name
from agentprop.judges._noticed_prompt import allowed_answers, parse_noticed_prompt
from agentprop.judges._simjudge import SimulatedReplies
from agentprop.models import GenerateConfig, register_provider
from agentprop.models._cache import ResponseCache


class SimNoticedProfile(BaseModel):
    """The stated behaviour of a simulated noticed classifier."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    error_rate: float = 0.0
    garbage_rate: float = 0.0
    error_kind: str | None = None  # every call raises ModelError(kind)


SIM_NOTICED_PROFILES: dict[str, SimNoticedProfile] = {
    p.name: p for p in [
        SimNoticedProfile(name="exact", description="answers what the text rules read"),
        SimNoticedProfile(name="noisy", description="another answer 10 %, no answer 5 %",
                          error_rate=0.10, garbage_rate=0.05),
        SimNoticedProfile(name="garbage", description="never a valid answer", garbage_rate=1.0),
        SimNoticedProfile(name="unreachable", description="every call fails (connection)",
                          error_kind="connection"),
    ]
}

_GARBAGE = ["It depends.", "PROBLEM", "The agent noticed.", "N O N E"]


class SimNoticedModel(SimulatedReplies):
    """A Model answering the noticed classifier's prompt from the text rules plus noise."""

    provider = "sim-noticed"

    def __init__(self, profile: SimNoticedProfile, *, cache: Any = None) -> None:
        self.profile = profile
        self._cache = ResponseCache(cache) if cache is not None else None

    def _decide(self, messages: list[Message], config: GenerateConfig) -> ModelOutput:
        p = self.profile
        parsed = parse_noticed_prompt(messages)
        rng = random.Random(stable_hash([p.name, parsed, config.seed]))
        if parsed is None or rng.random() < p.garbage_rate:
            text = _GARBAGE[rng.randrange(len(_GARBAGE))]
        else:
            body, where, call = parsed
            truth = (classify_text(body, where, call) or "none").upper()
            text = truth
            if rng.random() < p.error_rate:
                text = rng.choice([a for a in allowed_answers(where, call) if a != truth])
        return ModelOutput(text=text, usage=Usage(input_tokens=sum(
            len(m.content or "") for m in messages) // 4, output_tokens=1),
            raw={"simulated": True, "profile": p.name})


@register_provider("sim-noticed")
def _factory(name: str, **options: Any) -> SimNoticedModel:
    if name not in SIM_NOTICED_PROFILES:
        raise unknown_name("sim-noticed profile", name, SIM_NOTICED_PROFILES)
    return SimNoticedModel(SIM_NOTICED_PROFILES[name], cache=options.get("cache"))
