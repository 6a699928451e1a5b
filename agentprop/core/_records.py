"""Verdicts, human labels and run manifests."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

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

LabelValue = Literal["correct", "incorrect", "unsure"]
LabelView = Literal["blind", "full"]
"""How the label app showed the trace: `blind` hides what reveals the condition or the
corruption (the agent's proposed arguments, the injection, the condition, the
interceptor's reason); `full` shows them, at the annotator's request."""


class Label(BaseModel):
    """A human label of one trace's final answer."""

    trace_id: str
    """The labelled trace."""
    annotator: str
    """Who labelled it."""
    label: LabelValue
    """correct, incorrect or unsure."""
    time: datetime = Field(default_factory=utcnow)
    """UTC time of the label."""
    note: str = ""
    """The annotator's free-text note."""
    view: LabelView | None = None
    """What the annotator saw: `blind` (the label app's default: nothing that reveals the
    condition or the corruption) or `full` (unblinded at their request); None when not
    recorded (a label imported without a `view` column, or made before views were kept)."""


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


DEFAULT_PRIMARY_JUDGE = "facts"
"""The judge whose verdicts define "wrong answer" when a workspace names none: the
programmatic facts judge (docs/judges.md). The one definition; everything else imports it."""


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
    interceptor_layers: list[dict[str, Any]] | None = None
    """Per injected trace, which interceptor layer (L1-L3) fires when the chosen
    configuration is replayed offline: the report's "which layer catches which fault
    class" (experiment/_execute.py::store_layer_hits)."""
