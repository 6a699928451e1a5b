"""Human labels: the label planner, stratified sampling, the annotation web app, CSV
import/export, agreement."""

from agentprop.labels._agreement import (
    agreement_summary,
    human_consensus,
    workspace_agreement,
)
from agentprop.labels._app import make_server
from agentprop.labels._io import (
    LabelImportError,
    export_labels,
    import_labels,
    parse_label,
    read_labels,
)
from agentprop.labels._plan import (
    PlanError,
    canonical_rate,
    plan_labels,
    plan_progress,
    sample_for_rate,
)
from agentprop.labels._sample import (
    SAMPLE_COLUMNS,
    SampleError,
    SampleSummary,
    allocate,
    annotator_queue,
    sample_labels,
    stratified_sample,
)

__all__ = [
    "SAMPLE_COLUMNS",
    "LabelImportError",
    "PlanError",
    "SampleError",
    "SampleSummary",
    "agreement_summary",
    "allocate",
    "annotator_queue",
    "canonical_rate",
    "export_labels",
    "human_consensus",
    "import_labels",
    "make_server",
    "parse_label",
    "plan_labels",
    "plan_progress",
    "read_labels",
    "sample_for_rate",
    "sample_labels",
    "stratified_sample",
    "workspace_agreement",
]
