"""Build the analysis input DataFrames from core objects (traces, verdicts, labels).

The analysis never reads the store: callers (CLI, report, notebooks) load lists of core
models from a Workspace and pass them here. Verdicts may also come as light rows
(`VerdictRow`, what `Workspace.verdict_rows()` returns): a workspace's verdicts carry raw
judge payloads the analysis never reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from agentprop.analysis.stages import (
    STAGE_COLUMNS,
    FabricationCheck,
    StoredNoticed,
    TaskLookup,
)
from agentprop.core import (
    DEFAULT_PRIMARY_JUDGE,
    Label,
    LabelDesign,
    ModelInfo,
    ToolProbe,
    Trace,
    Verdict,
    VerdictRow,
)

DEFAULT_PRIMARY = DEFAULT_PRIMARY_JUDGE  # the one definition is in core

"""(trace_id, judge, correct, ensemble members' votes)."""
VerdictLike = Verdict | VerdictRow



def _row(v: VerdictLike) -> VerdictRow:
    return (v.trace_id, v.judge, v.correct, v.members) if isinstance(v, Verdict) else v


def verdict_frame(verdicts: Iterable[VerdictLike]) -> pd.DataFrame:
    """Long verdicts: trace_id, judge, correct (nullable boolean; <NA> = unscored)."""
    rows = [_row(v)[:3] for v in verdicts]
    df = pd.DataFrame(rows, columns=["trace_id", "judge", "correct"])
    df["correct"] = df["correct"].astype("boolean")
    return df


def verdict_columns(table: pd.DataFrame, members: pd.DataFrame
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`verdict_frame` and `members_frame` from the store's columns (`Workspace.
    verdict_table`, `.member_table`): the same frames, without a Python row per verdict."""
    verdicts = verdict_frame([]) if table.empty else table
    verdicts["correct"] = verdicts["correct"].astype("boolean")
    votes = members_frame([]) if members.empty else members
    votes["correct"] = votes["correct"].astype("boolean")
    return verdicts, votes


def members_frame(verdicts: Iterable[VerdictLike]) -> pd.DataFrame:
    """Ensemble members' votes: trace_id, ensemble (judge name), member, correct."""
    rows = [(tid, judge, m, c) for tid, judge, _, members in map(_row, verdicts)
            for m, c in members.items()]
    df = pd.DataFrame(rows, columns=["trace_id", "ensemble", "member", "correct"])
    df["correct"] = df["correct"].astype("boolean")
    return df


def label_frame(labels: Iterable[Label]) -> pd.DataFrame:
    """Human labels: trace_id, annotator, label (correct | incorrect | unsure; yes | no |
    unsure for a detector's question) and question (`core.LabelQuestion`)."""
    return pd.DataFrame([(x.trace_id, x.annotator, x.label, x.question) for x in labels],
                        columns=["trace_id", "annotator", "label", "question"])


def _verdict_map(primary: Mapping[str, bool | None] | pd.Series) -> Mapping[str, bool | None]:
    """trace id → correct (None: unscored) from a Series by trace id, or the mapping."""
    if not isinstance(primary, pd.Series):
        return primary
    return {str(tid): None if pd.isna(c) else bool(c) for tid, c in primary.items()}


def primary_verdicts(verdicts: Iterable[VerdictLike], judge: str) -> dict[str, bool | None]:
    return {tid: correct for tid, name, correct, _ in map(_row, verdicts) if name == judge}


def stage_frame(traces: Iterable[Trace], verdicts: Mapping[str, bool | None], *,
                tasks: TaskLookup | None = None,
                rule: FabricationCheck | None = None,
                noticed: StoredNoticed | None = None) -> pd.DataFrame:
    """The stage table (agentprop.analysis.stages) plus each trace's final `answer`.
    `tasks` (a suite) defines `fabricated`, `noticed` an LLM classifier's readings (see
    `stage_table`).

    Reads `traces` once, so a workspace's traces can be streamed rather than held in memory.
    """
    from agentprop.analysis.stages import stage_table

    answers: dict[str, str | None] = {}

    def tap(items: Iterable[Trace]) -> Iterator[Trace]:
        for t in items:
            answers[t.id] = t.final_answer
            yield t

    df = stage_table(tap(traces), verdicts, tasks=tasks, rule=rule,
                     readings=noticed.readings if noticed is not None else None)
    if df.empty:
        df = pd.DataFrame(columns=list(STAGE_COLUMNS))
    df = df.copy()
    df["answer"] = df["trace_id"].map(answers)
    return df


@dataclass(frozen=True)
class JudgeValidity:
    """Every instrument's validity card data, measured once on the labelled sets shipped
    with agentprop, not on the workspace's traces: the judges' agreement with
    judges/validity.json's answers (bench/bench_judge_validity.py), the detectors' with their
    held-out labels (judges/detectors.json), and the stress tests' flip rates
    (judges/stress.json, bench/bench_stress.py)."""

    judges: Mapping[str, Mapping[str, Any]]
    """instrument (a judge's canonical name, ``noticed``, ``fabricated``) → its figures
    (`n`, `kappa`, `kappa_lo`, `kappa_hi`, `accuracy`, `false_accept_rate`,
    `false_reject_rate`, `false_alarm_rate`, `precision`, `recall`...; None where
    undefined). An instrument listed here has a validity card."""
    tasks: int | None = None
    """How many suite tasks the judges' labelled answers answer."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """instrument → who labelled its validation set, when, and by what rule."""
    held_out: Mapping[str, bool] = field(default_factory=dict)
    """instrument → whether its κ is on labels it was never tuned on."""
    stress: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    """instrument → perturbation → {expect: stable | flip, n, flips, rate}
    (`judges._stress`; ``retest`` for an LLM judge's test–retest)."""
    real_text: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """instrument → its agreement on a real model's text (judges/real_text.json,
    bench/bench_real_text.py): `n`, `prevalence`, `kappa` (None where one class is
    absent), `kappa_lo`, `kappa_hi`, `accuracy`, and `positive`/`negative` → {n,
    precision, recall}; plus ``model`` and ``labels`` under the key ``_source``."""

    @classmethod
    def from_summary(cls, summary: Mapping[str, Any]) -> JudgeValidity:
        """From the summary as stored (`validity_summary`'s dict, or
        `judges._validity.load_instrument_validity`'s)."""
        judges = summary.get("judges") or {}
        tasks = summary.get("tasks")
        return cls(judges={str(k): dict(v) for k, v in judges.items()},
                   tasks=int(tasks) if tasks is not None else None,
                   labels={str(k): str(v) for k, v in (summary.get("labels") or {}).items()}
                   if isinstance(summary.get("labels"), Mapping) else {},
                   held_out={str(k): bool(v) for k, v in
                             (summary.get("held_out") or {}).items()}
                   if isinstance(summary.get("held_out"), Mapping) else {},
                   stress={str(k): {str(p): dict(r) for p, r in v.items()}
                           for k, v in (summary.get("stress") or {}).items()},
                   real_text={str(k): dict(v) for k, v in
                              (summary.get("real_text") or {}).items()
                              if isinstance(v, Mapping)})


@dataclass(frozen=True)
class WorkspaceFacts:
    """What the workspace says about where its traces come from, for reading the numbers
    (typed fields of `core.WorkspaceMeta` and the stored runs)."""

    imported: str | None = None
    """Source of imported traces (``agenthallu``): the rates measured there are not
    constant by construction, and the report says where the data came from."""
    rehearsal: Mapping[str, Any] | None = None
    """Set by `experiment run --rehearse` (experiment/_rehearse.py): the report's first line
    says the numbers come from simulated endpoints."""
    interceptor_evaluations: Mapping[str, str] | None = None
    """Run id → "LABEL mode=MODE" of every stored interceptor evaluation (None: not read)."""
    guard_evaluations: Mapping[str, str] | None = None
    """Run id → guard of every stored guard evaluation (`intercept evaluate --guard`,
    `intercept matrix`): the mitigation × fault-class matrix (None: not read)."""
    preflight: tuple[ToolProbe, ...] = ()
    """The latest tool-calling preflight of each model (`RunSpec.preflight` of the stored
    runs, later runs first to win): the report shows it beside the call counts."""
    models: tuple[ModelInfo, ...] = ()
    """What the self-describing models say of themselves (`RunSpec.models`, the latest
    run's): the report's real-model part names a local model's file, size and settings."""
    user_tools: Mapping[str, Any] | None = None
    """The user's MCP server of the latest run that had one (`RunSpec.config`: ``upstream``,
    the command or URL without credentials; ``upstream_server``; ``safe_tools``;
    ``upstream_tools``, name → read-only); None: the runs used the suite's tools."""

    def info(self) -> dict[str, Any]:
        """The entries of `AnalysisResult.info` these facts give (only those that are set,
        except the evaluations, present whenever they were read)."""
        out: dict[str, Any] = {}
        if self.interceptor_evaluations is not None:
            out["interceptor_evaluations"] = dict(self.interceptor_evaluations)
        if self.guard_evaluations:
            out["guard_evaluations"] = dict(self.guard_evaluations)
        if self.imported:
            out["imported"] = self.imported
        if self.rehearsal:
            out["rehearsal"] = dict(self.rehearsal)
        if self.preflight:
            out["preflight"] = [p.model_dump(mode="json") for p in self.preflight]
        if self.models:
            out["models"] = [m.model_dump(mode="json") for m in self.models]
        if self.user_tools:
            out["user_tools"] = dict(self.user_tools)
        return out


@dataclass
class AnalysisInput:
    """Everything the analyses read."""

    stages: pd.DataFrame
    verdicts: pd.DataFrame
    members: pd.DataFrame
    labels: pd.DataFrame
    primary_judge: str = DEFAULT_PRIMARY
    sweep: pd.DataFrame | None = None
    sweep_guarantee: Mapping[str, Any] | None = None
    """The Learn-then-Test guarantee of the sweep's choice (meta `interceptor_guarantee`;
    None: the sweep chose by F1)."""
    workspace: WorkspaceFacts = field(default_factory=WorkspaceFacts)
    """Where the traces come from (imported, rehearsal, interceptor evaluations)."""
    layer_hits: pd.DataFrame | None = None  # agentprop.intercept.layer_hits, per trace
    simulation_check: pd.DataFrame | None = None
    """The study's simulation check, one row per (simulated model, metric): model, metric,
    true, estimate, ci_lo, ci_hi, n, covered, note, level, judge (experiment/_simcheck.py;
    it needs the simulated agents' stated parameters, so the study computes and stores it)."""
    judge_validity: JudgeValidity | None = None
    """The judges' validity measured on the shipped validation set (None: not available)."""
    question_labels: pd.DataFrame = field(default_factory=lambda: label_frame([]))
    """Human labels of the detectors' questions (`noticed`, `fabricated`), as `labels`;
    `labels` holds the answers' correctness only, as every judge analysis expects."""
    label_design: LabelDesign | None = None
    """How the workspace's label sample was drawn (the corrected rates weight by it)."""
    noticed_classifier: str | None = None
    """The LLM classifier whose stored readings gave `noticed` (``llm:<provider/model>``);
    None: the text rules."""
    queries: Mapping[str, str] = field(default_factory=dict)
    """task id → the question, for the user's own tasks (the noise floor's comparison reads
    it); empty for the suite's."""
    unreferenced: frozenset[str] = frozenset()
    """The user's tasks without a reference: their clean answer is the reference, so a
    clean run's correctness there is 1 by construction (the baseline comparison leaves
    them out)."""
    agree: Callable[[str, str, str], bool | None] | None = None
    """The comparison of two answers to one question (query, a, b → agree, disagree, None
    undecidable) the noise floor counts with: the agreement judge, passed in by the loader
    (analysis imports no judge); None: the floor is undefined ("no agreement judge")."""


def build_input(
    traces: Iterable[Trace],
    verdicts: Sequence[VerdictLike],
    labels: Sequence[Label] = (),
    *,
    primary_judge: str = DEFAULT_PRIMARY,
    sweep: pd.DataFrame | None = None,
    sweep_guarantee: Mapping[str, Any] | None = None,
    workspace: WorkspaceFacts | None = None,
    tasks: TaskLookup | None = None,
    layer_hits: pd.DataFrame | None = None,
    rule: FabricationCheck | None = None,
    simulation_check: pd.DataFrame | None = None,
    judge_validity: JudgeValidity | None = None,
    question_labels: Sequence[Label] = (),
    label_design: LabelDesign | None = None,
    noticed: StoredNoticed | None = None,
    queries: Mapping[str, str] | None = None,
    unreferenced: Iterable[str] = (),
    agree: Callable[[str, str, str], bool | None] | None = None,
    stored_stages: pd.DataFrame | None = None,
    verdict_tables: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> AnalysisInput:
    """Frames for the analyses; S3 comes from the verdicts of `primary_judge`.
    `verdicts`: Verdict objects or `VerdictRow`s (the frames are the same), or empty with
    `verdict_tables` (the store's columns: `verdict_columns`).
    `stored_stages`: the store's stage rows (`Workspace.stage_frame`), read in place of
    `traces`, which is then not read (the same table, without parsing a trace)."""
    from agentprop.analysis._stored import stored_stage_frame

    if verdict_tables is not None:
        vframe, mframe = verdict_columns(*verdict_tables)
        # trace id → correct (<NA> unscored), the last verdict of a trace as in a dict
        own = vframe[vframe["judge"] == primary_judge].drop_duplicates("trace_id",
                                                                       keep="last")
        primary: Mapping[str, bool | None] | pd.Series = pd.Series(
            own["correct"].to_numpy(), index=pd.Index(own["trace_id"].to_numpy(dtype=object)),
            dtype="boolean")
    else:
        vframe, mframe = verdict_frame(verdicts), members_frame(verdicts)
        primary = primary_verdicts(verdicts, primary_judge)
    return AnalysisInput(
        stages=stage_frame(traces, _verdict_map(primary), tasks=tasks, rule=rule,
                           noticed=noticed)
        if stored_stages is None else stored_stage_frame(stored_stages, primary),
        verdicts=vframe,
        members=mframe,
        labels=label_frame(labels),
        primary_judge=primary_judge,
        sweep=sweep,
        sweep_guarantee=sweep_guarantee,
        workspace=workspace or WorkspaceFacts(),
        layer_hits=layer_hits,
        simulation_check=simulation_check,
        judge_validity=judge_validity,
        question_labels=label_frame(question_labels),
        label_design=label_design,
        noticed_classifier=noticed.classifier if noticed is not None else None,
        queries=dict(queries or {}),
        unreferenced=frozenset(unreferenced),
        agree=agree,
    )
