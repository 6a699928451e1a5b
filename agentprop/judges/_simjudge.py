"""Simulated LLM judges (provider ``sim-judge``): offline, deterministic, clearly simulated.

A ``sim-judge/<profile>`` model reads question, reference and answer back out of the
LLM-judge prompt, finds the task by its question in a Suite, decides with the facts judge,
then flips that decision with the profile's stated error rates: a false positive (YES for
an answer the facts judge calls wrong) with `false_positive_rate`, a false negative with
`false_negative_rate`; with `garbage_rate` it replies with something that is neither YES
nor NO (so the unscored path is exercised). The draws are seeded by the prompt, so a
profile always gives the same reply to the same prompt. A question not in the suite gets
an unparseable reply. To the agreement prompt (`judges/_agree.py`) it replies AGREE or
DISAGREE from `answers_agree`'s reading with the same stated rates (`exact`: that reading;
a pair it cannot compare gets an unparseable reply).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from agentprop.core import Message, ModelOutput, ToolSpec, Usage, stable_hash, unknown_name
from agentprop.judges._agree import parse_agree_prompt
from agentprop.judges._agreement import answers_agree
from agentprop.judges._entities import Vocabulary
from agentprop.judges._facts import check_answer, query_vocabulary
from agentprop.judges._prompt import parse_judge_prompt
from agentprop.models import GenerateConfig, ModelError, register_provider
from agentprop.models._cache import ResponseCache, request_key

if TYPE_CHECKING:
    from agentprop.suite import Suite


class SimJudgeProfile(BaseModel):
    """The stated behaviour of a simulated judge."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    false_positive_rate: float = 0.0
    false_negative_rate: float = 0.0
    garbage_rate: float = 0.0
    error_kind: str | None = None  # every call raises ModelError(kind) (tests the failure path)


SIM_JUDGE_PROFILES: dict[str, SimJudgeProfile] = {
    p.name: p
    for p in [
        SimJudgeProfile(name="exact", description="agrees with the facts judge"),
        SimJudgeProfile(name="strict", description="conservative: often rejects correct answers",
                        false_positive_rate=0.03, false_negative_rate=0.20, garbage_rate=0.01),
        SimJudgeProfile(name="lenient", description="accepts many wrong answers",
                        false_positive_rate=0.20, false_negative_rate=0.03, garbage_rate=0.01),
        SimJudgeProfile(name="noisy", description="unbiased but noisy, sometimes unparseable",
                        false_positive_rate=0.12, false_negative_rate=0.12, garbage_rate=0.05),
        SimJudgeProfile(name="garbage", description="never replies YES or NO",
                        garbage_rate=1.0),
        SimJudgeProfile(name="unreachable", description="every call fails (connection)",
                        error_kind="connection"),
    ]
}

_GARBAGE = ["It partially matches.", "MAYBE", "I cannot tell from the reference.", "Y E S"]


class SimulatedReplies:
    """A simulated model on the judges' side (a judge, a noticed classifier): `generate`
    raises its profile's stated failure (`error_kind`), else gives `_decide`'s reply
    through the models layer's cache and key, the profile's parameters as the epoch."""

    provider: ClassVar[str]
    profile: Any  # a frozen pydantic profile with `name` and `error_kind`
    _cache: ResponseCache | None

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.profile.name}"

    @property
    def simulated(self) -> bool:
        return True

    async def generate(
        self, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        p = self.profile
        if p.error_kind:
            raise ModelError(p.error_kind, f"{self.id}: simulated {p.error_kind} failure", 1)
        key = request_key(provider=self.provider, model=p.name, base_url=None,
                          messages=messages, tools=tools, config=config,
                          epoch=stable_hash(p.model_dump()))
        if self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        out = self._decide(messages, config)
        if self._cache is not None:
            self._cache.put(key, out)
        return out

    def _decide(self, messages: list[Message], config: GenerateConfig) -> ModelOutput:
        raise NotImplementedError


class SimJudgeModel(SimulatedReplies):
    """A Model answering the LLM-judge prompt from the facts judge plus stated noise."""

    provider = "sim-judge"

    def __init__(self, profile: SimJudgeProfile, *, suite: Suite | None = None,
                 cache: Any = None, facts_memo: dict[Any, bool | None] | None = None,
                 vocabulary: Callable[[], Vocabulary] | None = None) -> None:
        self.profile = profile
        self._suite = suite
        # the suite's vocabulary, shared with the facts judge of the same run: it keeps the
        # readings of the answers that judge has read already
        self._vocab_source = vocabulary
        # the facts decision per (task, answer), shared by an ensemble's sim judges: the
        # three profiles read the same answers, and the facts rule is their costly part
        self._facts_memo: dict[Any, bool | None] = {} if facts_memo is None else facts_memo
        self._cache = ResponseCache(cache) if cache is not None else None
        self._vocab: Vocabulary | None = None

    def _get_suite(self) -> Any:
        if self._suite is None:
            from agentprop.suite import load_suite

            self._suite = load_suite()
        return self._suite

    def _vocabulary(self) -> Vocabulary:
        if self._vocab is None:
            self._vocab = (self._vocab_source() if self._vocab_source is not None
                           else query_vocabulary(self._get_suite().tasks))
        return self._vocab

    def _decide(self, messages: list[Message], config: GenerateConfig) -> ModelOutput:
        p = self.profile
        agree = parse_agree_prompt(messages)
        parsed = agree or parse_judge_prompt(messages)
        rng = random.Random(stable_hash([p.name, parsed, config.seed]))
        truth: bool | None = None
        words = ("AGREE", "DISAGREE") if agree is not None else ("YES", "NO")
        if agree is not None:
            # the agreement prompt: the deterministic `agree` reading is the truth
            truth = answers_agree(*agree)
        elif parsed is not None:
            question, _reference, answer = parsed
            task = self._get_suite().find_by_query(question)
            if task is not None:
                key = (task.id, answer)
                if key not in self._facts_memo:
                    self._facts_memo[key] = check_answer(task, answer,
                                                         vocabulary=self._vocabulary())[0]
                truth = self._facts_memo[key]
        flipped = False
        if truth is None or rng.random() < p.garbage_rate:
            text = _GARBAGE[rng.randrange(len(_GARBAGE))]
        else:
            flip_rate = p.false_negative_rate if truth else p.false_positive_rate
            flipped = rng.random() < flip_rate
            text = words[0] if truth != flipped else words[1]
        prompt_chars = sum(len(m.content or "") for m in messages)
        return ModelOutput(
            text=text, usage=Usage(input_tokens=prompt_chars // 4, output_tokens=1),
            raw={"simulated": True, "profile": p.name, "facts": truth, "flipped": flipped},
        )


@register_provider("sim-judge")
def _factory(name: str, **options: Any) -> SimJudgeModel:
    profile = options.get("profile")
    if profile is None:
        if name not in SIM_JUDGE_PROFILES:
            raise unknown_name("sim-judge profile", name, SIM_JUDGE_PROFILES)
        profile = SIM_JUDGE_PROFILES[name]
    return SimJudgeModel(profile, suite=options.get("suite"), cache=options.get("cache"),
                         facts_memo=options.get("facts_memo"),
                         vocabulary=options.get("vocabulary"))
