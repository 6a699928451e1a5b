"""Statistics and the paper's analyses as pure functions over DataFrames.

Every analysis returns a tidy table (key columns, `key`, `metric`, `value`, `n`, `ci_lo`,
`ci_hi`, `note`); `run_sections()` runs the ones the report's sections name on one shared
`AnalysisContext`, and `numbers_manifest()` flattens the result into `section.metric[key]`
names (see docs/numbers.md).
"""

from agentprop.analysis._analyze import (
    AnalysisContext,
    AnalysisResult,
    SectionCompute,
    numbers_manifest,
    run_sections,
    task_map,
)
from agentprop.analysis._calibration import Calibrator, LabelCells, calibrate_wrong
from agentprop.analysis._delivery import DELIVERY_METRICS, delivery_table
from agentprop.analysis._interceptor import (
    ab_rng_key,
    ab_statistics,
    guard_matrix,
    interceptor_ab,
    interceptor_layers,
    pairs_of,
    sweep_table,
)
from agentprop.analysis._judges import (
    annotator_alpha,
    annotator_kappas,
    calibration_pairs,
    calibration_table,
    human_consensus,
    judge_agreement,
)
from agentprop.analysis._noise import Agree, noise_table
from agentprop.analysis._propagation import (
    baseline_vs_p2,
    fault_class_table,
    injected_traces,
    propagation_by_type,
    propagation_table,
    rejection_recovery,
    stopping_table,
)
from agentprop.analysis._real import real_model_table
from agentprop.analysis._replication import cross_domain
from agentprop.analysis._stats import (
    MIN_RANK_N,
    N_RESAMPLES,
    SEED,
    SMALL_N,
    CorrResult,
    Estimate,
    KappaResult,
    McNemarResult,
    Resampler,
    achieved_power,
    below_floor,
    cohen_kappa,
    cohens_h,
    conditional_ci,
    group_rng,
    kappa_from_table,
    kendall,
    krippendorff_alpha,
    make_rng,
    mcnemar_test,
    proportion_ci,
    rank_note,
    ratio_ci,
    small_sample_note,
    spearman,
    two_proportion_z,
)
from agentprop.analysis._tidy import frame as tidy_frame
from agentprop.analysis._tidy import lookup, wide
from agentprop.analysis._tidy import row as tidy_row
from agentprop.analysis._usertools import user_tools_table
from agentprop.analysis._validity import clustered_kappa, judge_validity
from agentprop.analysis.frames import (
    AnalysisInput,
    JudgeValidity,
    WorkspaceFacts,
    build_input,
    label_frame,
    verdict_frame,
)
from agentprop.analysis.stages import propagation_rates, stage_table

__all__ = [
    "DELIVERY_METRICS",
    "MIN_RANK_N",
    "N_RESAMPLES",
    "SEED",
    "SMALL_N",
    "Agree",
    "AnalysisContext",
    "AnalysisInput",
    "AnalysisResult",
    "Calibrator",
    "CorrResult",
    "Estimate",
    "JudgeValidity",
    "KappaResult",
    "LabelCells",
    "McNemarResult",
    "Resampler",
    "SectionCompute",
    "WorkspaceFacts",
    "ab_rng_key",
    "ab_statistics",
    "achieved_power",
    "annotator_alpha",
    "annotator_kappas",
    "baseline_vs_p2",
    "below_floor",
    "build_input",
    "calibrate_wrong",
    "calibration_pairs",
    "calibration_table",
    "clustered_kappa",
    "cohen_kappa",
    "cohens_h",
    "conditional_ci",
    "cross_domain",
    "delivery_table",
    "fault_class_table",
    "group_rng",
    "guard_matrix",
    "human_consensus",
    "injected_traces",
    "interceptor_ab",
    "interceptor_layers",
    "judge_agreement",
    "judge_validity",
    "kappa_from_table",
    "kendall",
    "krippendorff_alpha",
    "label_frame",
    "lookup",
    "make_rng",
    "mcnemar_test",
    "noise_table",
    "numbers_manifest",
    "pairs_of",
    "propagation_by_type",
    "propagation_rates",
    "propagation_table",
    "proportion_ci",
    "rank_note",
    "ratio_ci",
    "real_model_table",
    "rejection_recovery",
    "run_sections",
    "small_sample_note",
    "spearman",
    "stage_table",
    "stopping_table",
    "sweep_table",
    "task_map",
    "tidy_frame",
    "tidy_row",
    "two_proportion_z",
    "user_tools_table",
    "verdict_frame",
    "wide",
]
