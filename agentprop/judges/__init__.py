"""Judges: heuristic (paper baseline), facts (programmatic), llm and ensemble (through the
models layer), agree and agree:MODEL (tasks without facts: agreement with a reference or
the clean run's answer), simulated sim-judge models, and whole-workspace judging."""

from agentprop.judges._agree import (
    AGREE_SYSTEM,
    AgreeJudge,
    AgreeLLMJudge,
    build_agree_messages,
    parse_agree,
    workspace_pairs,
)
from agentprop.judges._agreement import answers_agree
from agentprop.judges._base import (
    JUDGE_FORMS,
    JUDGES,
    TRANSIENT_KINDS,
    Judge,
    is_transient,
)
from agentprop.judges._fabrication import FabricationRule
from agentprop.judges._facts import (
    FactsJudge,
    answer_claims,
    check_answer,
    fact_stated,
    query_vocabulary,
)
from agentprop.judges._heuristic import HeuristicJudge, heuristic_correct
from agentprop.judges._llm import EnsembleJudge, LLMJudge, majority
from agentprop.judges._lookup import canonical_name, get_judge, resolve_judge
from agentprop.judges._noticed import (
    NOTICED_FORMS,
    NoticedClassifier,
    NoticedSummary,
    classifier_name,
    read_noticed,
    stored_readings,
)
from agentprop.judges._noticed_prompt import build_noticed_messages, parse_noticed
from agentprop.judges._prompt import (
    JUDGE_SYSTEM,
    build_judge_messages,
    parse_judge_prompt,
    parse_yes_no,
)
from agentprop.judges._run import (
    JudgeError,
    JudgeStats,
    JudgeSummary,
    JudgeUnavailableError,
    ajudge_workspace,
    judge_workspace,
)
from agentprop.judges._simjudge import SIM_JUDGE_PROFILES, SimJudgeModel, SimJudgeProfile
from agentprop.judges._validity import LabelledAnswer, ValidationSet, validation_verdicts

__all__ = [
    "AGREE_SYSTEM",
    "JUDGES",
    "JUDGE_FORMS",
    "JUDGE_SYSTEM",
    "NOTICED_FORMS",
    "SIM_JUDGE_PROFILES",
    "TRANSIENT_KINDS",
    "AgreeJudge",
    "AgreeLLMJudge",
    "EnsembleJudge",
    "FabricationRule",
    "FactsJudge",
    "HeuristicJudge",
    "Judge",
    "JudgeError",
    "JudgeStats",
    "JudgeSummary",
    "JudgeUnavailableError",
    "LLMJudge",
    "LabelledAnswer",
    "NoticedClassifier",
    "NoticedSummary",
    "SimJudgeModel",
    "SimJudgeProfile",
    "ValidationSet",
    "ajudge_workspace",
    "answer_claims",
    "answers_agree",
    "build_agree_messages",
    "build_judge_messages",
    "build_noticed_messages",
    "canonical_name",
    "check_answer",
    "classifier_name",
    "fact_stated",
    "get_judge",
    "heuristic_correct",
    "is_transient",
    "judge_workspace",
    "majority",
    "parse_agree",
    "parse_judge_prompt",
    "parse_noticed",
    "parse_yes_no",
    "query_vocabulary",
    "read_noticed",
    "resolve_judge",
    "stored_readings",
    "validation_verdicts",
    "workspace_pairs",
]
