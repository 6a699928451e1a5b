"""Verdicts, human labels and run manifests."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from agentprop.core._trace import utcnow


class Verdict(BaseModel):
    """A judge's decision on one trace. `correct=None` means unscored, never "incorrect"."""

    trace_id: str
    """The judged trace."""
    judge: str
    """Canonical judge name."""
    correct: bool | None
    """True correct, False wrong, None unscored (never counted as wrong)."""
    raw: Any = None
    """The judge's evidence (facts checked, model reply, reason); for audit."""
    cost: float = 0.0
    """US dollars spent on this verdict (LLM judges)."""
    members: dict[str, bool | None] = Field(default_factory=dict)
    """For an ensemble: each member judge's decision."""
    created_at: datetime = Field(default_factory=utcnow)
    """UTC time written."""


VerdictRow = tuple[str, str, bool | None, dict[str, bool | None]]
"""A verdict without its raw payload: (trace_id, judge, correct, ensemble members)."""

NoticedValue = Literal["requery", "verify", "clarify", "abstain", "mention", "none",
                       "unscored"]
"""What a text classifier read in one model output: a kind of noticing
(`analysis.noticing.KINDS`), ``none`` (no sign of noticing), or ``unscored`` (the reply
was not one of the allowed answers: never read as "not noticed")."""


class NoticedReading(BaseModel):
    """One text classifier's reading of one model output after a trace's reference step
    (`agentprop judge --noticed llm:MODEL`; docs/injection.md). Stored so the analysis
    stays pure: `stages --noticed llm:MODEL` reads them instead of asking a model."""

    trace_id: str
    """The trace the output belongs to."""
    output: int
    """The output's position: the index of its `model_call` event in `Trace.events`."""
    classifier: str
    """Who read it: ``llm:<provider/model>``."""
    reading: NoticedValue
    """The kind read, ``none`` or ``unscored`` (`NoticedValue`)."""
    where: Literal["beside_call", "final", "text_turn"]
    """Where the text sits: beside a tool call, or a text with no call."""
    call: Literal["same_tool", "other_tool"] | None = None
    """Beside a call: whether it calls the reference step's tool again or another one."""
    raw: Any = None
    """The model's reply (or why it is unscored), whether it came from the cache; for audit."""
    cost: float = 0.0
    """US dollars spent on this reading."""
    created_at: datetime = Field(default_factory=utcnow)
    """UTC time written."""

LabelValue = Literal["correct", "incorrect", "unsure", "yes", "no"]

LabelQuestion = Literal["answer", "noticed", "fabricated"]
"""What a human label says: the final answer's correctness (the judges' question), or the
question of one detector: did the agent notice the problem (`noticed`), does the answer
state a fact no observation supports (`fabricated`)."""

LABEL_VALUES: dict[str, tuple[str, ...]] = {
    "answer": ("correct", "incorrect", "unsure"),
    "noticed": ("yes", "no", "unsure"),
    "fabricated": ("yes", "no", "unsure"),
}
"""The values a label of each question may take."""
LabelView = Literal["blind", "full"]
"""How the label app showed the trace: `blind` hides what reveals the condition or the
corruption (the agent's proposed arguments, the injection, the condition, the
interceptor's reason); `full` shows them, at the annotator's request."""


class Label(BaseModel):
    """A human label of one trace: its final answer's correctness, or a detector's question."""

    trace_id: str
    """The labelled trace."""
    annotator: str
    """Who labelled it."""
    label: LabelValue
    """correct, incorrect or unsure (question `answer`); yes, no or unsure (the others)."""
    time: datetime = Field(default_factory=utcnow)
    """UTC time of the label."""
    note: str = ""
    """The annotator's free-text note."""
    question: LabelQuestion = "answer"
    """What was labelled (`LabelQuestion`); labels of other questions than `answer` are
    stored apart (store: `question_labels`), so every reader of answer labels is as before."""
    view: LabelView | None = None
    """What the annotator saw: `blind` (the label app's default: nothing that reveals the
    condition or the corruption) or `full` (unblinded at their request); None when not
    recorded (a label imported without a `view` column, or made before views were kept)."""

    @model_validator(mode="after")
    def _value_fits_question(self) -> Label:
        if self.label not in LABEL_VALUES[self.question]:
            allowed = ", ".join(LABEL_VALUES[self.question])
            raise ValueError(f"a label of question {self.question!r} is one of {allowed}, "
                             f"not {self.label!r}")
        return self


ProbeVerdict = Literal["native", "invalid_arguments", "leaked", "no_calls", "error"]
"""How a model answered the preflight's forced tool calls: native (structured calls whose
arguments parse and validate), invalid_arguments (structured calls, but the arguments do not
parse or validate), leaked (the call written as text), no_calls (neither), error (the
request failed: HTTP error, a dead server)."""


class ToolProbe(BaseModel):
    """The tool-calling integrity preflight of one model (runner/_probe.py,
    docs/real-servers.md): probe requests with the run's own tools before the first unit."""

    model: str
    """Model id provider/name."""
    verdict: ProbeVerdict
    """The forced check's outcome; only ``native`` passes it (`--preflight strict`
    refuses any other)."""
    tools: int = 0
    """Tools the run may offer (each probed with a forced call, until one fails)."""
    tools_passed: int = 0
    """Of them, those whose forced call was a structured call with valid arguments."""
    roundtrip: bool | None = None
    """A tool result sent back was accepted and answered (None: not reached)."""
    auto_call: bool | None = None
    """With ``tool_choice="auto"`` the model made a structured call for a run task's query
    (None: not reached)."""
    detail: str = ""
    """The first failure (tool, what came back), one line; "" when every check passed."""
    reached: bool = True
    """False when the first probe request could not reach the model at all (connection
    refused or reset, a refused key): the run stops there, as no episode could run."""
    requests: int = 0
    """Probe requests sent (not in the run's model calls: see `RunSummary.preflight`)."""
    cost: float = 0.0
    """US dollars the probe requests cost (models/_prices.py; 0 for local models)."""
    seconds: float = 0.0
    """Wall time of the probe."""


class ModelInfo(BaseModel):
    """What a run's model is, for the reader of a report: a real local model is described
    by its file, size and how it was run (`models/_local.py::LocalModel.model_info`)."""

    model: str
    """Model id provider/name."""
    kind: str
    """``local`` (in-process llama.cpp), and for other providers their name."""
    description: str
    """One line: what the model is and how it ran (file, quantisation, chat format,
    threads, contexts)."""
    parameters: str | None = None
    """Its size as the file states it (e.g. ``135M``), None when unknown."""
    tiny: bool = False
    """True for a model under 1B parameters: its answers show the pipeline meeting real
    output, not a capable agent; the report says so."""


class RunSpec(BaseModel):
    """The manifest of a run: enough to know exactly what produced its traces. No secrets."""

    id: str
    """Run id (user-given or a hash of the plan)."""
    created_at: datetime = Field(default_factory=utcnow)
    """UTC time the run was first started."""
    package_version: str = ""
    """agentprop version that created it."""
    suite_checksum: str = ""
    """Checksum of the suite the tasks came from."""
    config: dict[str, Any] = Field(default_factory=dict)
    """The run's configuration (models, conditions, seeds, generation settings; never secrets)."""
    preflight: list[ToolProbe] = Field(default_factory=list)
    """The tool-calling preflight of each model, from the latest invocation that probed
    it (empty: not probed, e.g. ``--preflight off`` or a run from before the preflight)."""
    models: list[ModelInfo] = Field(default_factory=list)
    """The run's models that describe themselves (local models: file, size, chat format);
    empty for the others."""


class LabelCell(BaseModel):
    """One cell of a label design (a combination of its `by` values)."""

    population: int
    """Traces of the design's population in this cell when the sample was drawn."""
    target: int
    """Labels the plan asks for in this cell (what the label app counts progress against)."""
    drawn: int
    """Traces drawn into the sample from this cell."""


class LabelDesign(BaseModel):
    """How the current label sample was drawn (`agentprop label sample`): within which
    population, in which cells, how many from each. The analysis treats the labels of a
    cell as a random sample of it (PPI++ per cell, weighted by the cell's share); the label
    app shows progress against the targets."""

    question: LabelQuestion = "answer"
    """The question the sample is to be labelled for."""
    rate: str | None = None
    """The rate the sample was drawn for (`--for`, e.g. ``r_23``); None: a sample stratified
    by columns over every ok trace (`--by`)."""
    condition: str | None = None
    """Only traces of this condition were eligible (`--condition`)."""
    by: list[str] = Field(default_factory=list)
    """The columns whose values make a cell (stage-table columns; ``verdict`` is the
    instrument's yes/no on the rate's event)."""
    cells: dict[str, LabelCell] = Field(default_factory=dict)
    """Cell key (the `by` values joined by "|") → its sizes."""
    half_width: float | None = None
    """The CI half-width the plan aims at (`--half-width`), if the sample was sized by it."""
    created_at: datetime = Field(default_factory=utcnow)
    """UTC time the sample was drawn."""


DEFAULT_PRIMARY_JUDGE = "facts"
"""The judge whose verdicts define "wrong answer" when a workspace names none: the
programmatic facts judge (docs/judges.md). The one definition; everything else imports it."""
DEFAULT_USER_JUDGE = "agree"
"""The same for a workspace of the user's own questions (`run --tasks`), which have no
graded facts: the agreement judge (their reference, else the clean run's answer)."""


class WorkspaceMeta(BaseModel):
    """Every key of a workspace's ``meta`` table, typed. The table stores one JSON value per
    key; `Workspace.meta()` reads them into this model and `Workspace.update_meta` writes
    only these names, so no module spells a bare key string. None = never written."""

    schema_version: int | None = None
    """Version of the SQLite schema (store/_workspace.py migrates older ones)."""
    primary_judge: str | None = None
    """Canonical name of the judge chosen as primary (`agentprop judge --primary`, or the
    import's own); `Workspace.primary_judge()` falls back to `DEFAULT_PRIMARY_JUDGE`."""
    imported: str | None = None
    """Source of imported traces (e.g. ``agenthallu``): the workspace holds no runs of its own
    and its stage indicators come from the release."""
    interceptor_config: dict[str, Any] | None = None
    """The interceptor configuration the sweep chose on the val split (`InterceptorConfig`)."""
    interceptor_sweep: list[dict[str, Any]] | None = None
    """Every configuration the sweep tried, one row each, with its split and judge."""
    interceptor_guarantee: dict[str, Any] | None = None
    """The Learn-then-Test guarantee of the stored configuration (`intercept sweep
    --max-false-abstain`): α, δ, n, p-value, the val rate, the rates realised on held-out
    and clean traces, the AURC (app/_guarantee.py); None after a sweep chose by F1."""
    interceptor_eval: dict[str, Any] | None = None
    """The last paired interceptor evaluation on the test split (app/_evaluation.py)."""
    simulation_check: list[dict[str, Any]] | None = None
    """Per sim profile and metric: the profile's true rate beside the measured one and
    whether the CI covers it (experiment/_simcheck.py)."""
    experiment: dict[str, Any] | None = None
    """The experiment configuration that produced the workspace (`ExperimentConfig`)."""
    rehearsal: dict[str, Any] | None = None
    """Set by `experiment run --rehearse` (experiment/_rehearse.py): the scale, aliases and
    default profile of a study run against a local serve-sim; the report's first line
    says the numbers are not results."""
    label_design: LabelDesign | None = None
    """How the current label sample was drawn (`LabelDesign`; None: drawn before designs were
    recorded, or no sample): the analysis weights the labels by it."""
    interceptor_layers: list[dict[str, Any]] | None = None
    """Per injected trace, which interceptor layer (L1-L3) fires when the chosen
    configuration is replayed offline: the report's "which layer catches which fault
    class" (experiment/_execute.py::store_layer_hits)."""
