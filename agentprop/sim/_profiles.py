"""Simulated-agent profiles: stated behaviour parameters, and the rates they imply.

Each profile is a small set of probabilities, so an analysis run on `sim/` traces can be
checked against known truth (`SimProfile.true_rates`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verbosity = Literal["terse", "normal", "verbose"]

Prob = Field(ge=0.0, le=1.0)


class SimProfile(BaseModel):
    """The parameters of a simulated agent (all probabilities are per episode or per event).

    - `p_no_tool`: answer at once without calling any tool (then refuse with probability
      `p_refuse`, otherwise fabricate a wrong answer).
    - `p_notice`: after an observation that visibly does not match the request (an echoed
      argument differs from what the query asked, or an error observation), re-query with
      the right arguments (a correction).
    - `p_correct_anyway`: after such an observation went unnoticed, still give the right
      answer.
    - `base_error`: chance that an answer built from correct information is wrong anyway.
    - `verbosity`: how much text surrounds the answer.
    - `p_uncertain_words`: chance that reasoning text next to a tool call says the result
      looks wrong / invalid (doubled, capped at 1, after a mismatching or error observation).
    - `p_false_alarm`: chance that an answer from tool results ends with a hedge that the
      tool result looks off (`FALSE_ALARM_TEXT`), whether or not anything was wrong: the
      `noticed` detector's base rate on clean (baseline) traces.
    - `p_retry`: after a failed call (a timeout, server error or rate limit, or an empty
      result: `fault:*`), call it again at once (the retry succeeds).
    - `p_abstain`: after a failed call it did not retry, decline to answer
      (`FAILURE_ABSTAIN`); otherwise invent the answer (`invent`: fabricated).
    - `p_heed_warning`: when the latest user message is an interceptor warning (warn mode),
      re-check: re-query the calls whose observation does not match the query (the same
      test as `p_notice`) and answer anew; otherwise repeat the answer. Never drawn on an
      episode without a warning, so it changes none of the rates below.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    p_no_tool: float = Prob
    p_refuse: float = Field(default=0.5, ge=0.0, le=1.0)
    p_notice: float = Prob
    p_correct_anyway: float = Prob
    base_error: float = Prob
    verbosity: Verbosity = "normal"
    p_uncertain_words: float = Prob
    p_false_alarm: float = Field(default=0.0, ge=0.0, le=1.0)
    p_heed_warning: float = Field(default=0.0, ge=0.0, le=1.0)
    p_retry: float = Field(default=0.0, ge=0.0, le=1.0)
    p_abstain: float = Field(default=0.0, ge=0.0, le=1.0)

    def true_rates(self) -> dict[str, float]:
        """The rates an analysis of this profile's traces should recover (in expectation).

        With n = p_no_tool, c = p_notice, a = p_correct_anyway, e = base_error,
        f = p_false_alarm:
        - ``no_tool``              = n                 (share of traces with no tool call)
        - ``tool_use``             = 1 - n             (share with an opportunity)
        - ``correction_given_S2``  = c                 (P(corrected | S2))
        - ``r_23``                 = c·e + (1-c)·(a·e + 1 - a)   (P(wrong | S2))
        - ``recovery``             = 1 - r_23
        - ``error_clean``          = e                 (P(wrong | tool use, no injection))
        - ``error_baseline``       = n + (1-n)·e       (P(wrong) over all baseline traces;
          no-tool answers are a refusal or a fabrication, so always wrong)
        - ``propagation_given_unnoticed`` = 1 - a + a·e
        - ``noticed_given_S2``     = c + (1-c)·f       (P(noticed | S2) on one-call tasks: a
          re-query, else the hedge)
        - ``false_alarm``          = f                 (P(noticed) on clean one-call traces
          with a tool call)
        After a failed call (`fault:*`), with r = p_retry, b = p_abstain:
        - ``retry_given_failure``  = r                 (P(corrected | S2): the same call
          re-issued)
        - ``abstain_given_failure`` = (1-r)·b          (P(noticed_abstain | S2) on one-call
          tasks: the declining answer is the first sign of noticing)
        - ``fabricated_given_failure`` = (1-r)·(1-b) + r·e  (P(fabricated | S2) on one-call
          tasks with a checkable fact: an invented answer, or a retried one the base error
          then alters)
        After a corruption the agent cannot see (`out:wrong_value`, `out:truncated`: the
        echoed arguments are right):
        - ``correction_given_S2_unseen`` = 0           (nothing visible to re-query)
        - ``noticed_given_S2_unseen``   = f            (on one-call tasks: the hedge only)
        `out:swapped_entity` and `out:stale` echo the other entity or date, so they are
        visible and follow the P2 rates above.
        On chained tasks both are higher: `p_uncertain_words` doubt before the next call is
        noticing too (and a false alarm on a clean trace).
        These are rates of the policy's behaviour. `r_23` counts an answer built from a
        corrupted observation as wrong; a judge measures less when the corrupted lookup
        does not determine the graded facts (e.g. the losing city of a comparison), so
        read it as the propagation rate the judge-measured r_23 can at most reach (up to
        judge errors). Every S2 is assumed visible to the agent, which holds for the suite
        because every observation echoes the arguments it was computed from.
        """
        n, c, a, e = self.p_no_tool, self.p_notice, self.p_correct_anyway, self.base_error
        f = self.p_false_alarm
        r, b = self.p_retry, self.p_abstain
        r23 = c * e + (1 - c) * (a * e + 1 - a)
        return {
            "no_tool": n,
            "tool_use": 1 - n,
            "correction_given_S2": c,
            "r_23": r23,
            "recovery": 1 - r23,
            "error_clean": e,
            "error_baseline": n + (1 - n) * e,
            "propagation_given_unnoticed": 1 - a + a * e,
            "noticed_given_S2": c + (1 - c) * f,
            "false_alarm": f,
            "retry_given_failure": r,
            "abstain_given_failure": (1 - r) * b,
            "fabricated_given_failure": (1 - r) * (1 - b) + r * e,
            "correction_given_S2_unseen": 0.0,
            "noticed_given_S2_unseen": f,
        }


PROFILES: dict[str, SimProfile] = {
    p.name: p
    for p in (
        SimProfile(
            name="tool-averse",
            description="Mostly answers without calling a tool (like Gemini-2.0-Flash in the"
            " paper, 95 % of whose P2 traces had no tool call); rarely notices a bad"
            " observation or heeds an interceptor warning.",
            p_no_tool=0.90, p_notice=0.15, p_correct_anyway=0.05, base_error=0.08,
            verbosity="terse", p_uncertain_words=0.05, p_false_alarm=0.05, p_heed_warning=0.10,
            p_retry=0.20, p_abstain=0.30,
        ),
        SimProfile(
            name="propagator",
            description="Nearly always uses tools and nearly always propagates a bad"
            " observation into its answer (like GPT-4o-mini in the paper); rarely heeds an"
            " interceptor warning, so warn mode mostly ends in an abstention.",
            p_no_tool=0.02, p_notice=0.03, p_correct_anyway=0.02, base_error=0.05,
            verbosity="normal", p_uncertain_words=0.02, p_false_alarm=0.05, p_heed_warning=0.10,
            p_retry=0.10, p_abstain=0.10,
        ),
        SimProfile(
            name="self-correcting",
            description="Often notices an observation that does not match the request and"
            " re-queries with the right arguments; voices doubt in its reasoning; usually heeds"
            " an interceptor warning and re-checks.",
            p_no_tool=0.03, p_notice=0.70, p_correct_anyway=0.10, base_error=0.04,
            verbosity="verbose", p_uncertain_words=0.30, p_false_alarm=0.10, p_heed_warning=0.85,
            p_retry=0.80, p_abstain=0.70,
        ),
        SimProfile(
            name="balanced",
            description="Middle of the road on every parameter (heeds half of the"
            " interceptor warnings).",
            p_no_tool=0.10, p_notice=0.35, p_correct_anyway=0.10, base_error=0.08,
            verbosity="normal", p_uncertain_words=0.15, p_false_alarm=0.08, p_heed_warning=0.50,
            p_retry=0.50, p_abstain=0.40,
        ),
        SimProfile(
            name="oracle",
            description="Always uses tools, always notices and corrects, always heeds a"
            " warning, never errs: an upper bound and a deterministic fixture for tests.",
            p_no_tool=0.0, p_notice=1.0, p_correct_anyway=1.0, base_error=0.0,
            verbosity="terse", p_uncertain_words=0.0, p_heed_warning=1.0,
            p_retry=1.0, p_abstain=1.0,
        ),
    )
}
