"""A study declared in one YAML/TOML file: models, tasks, conditions, judges, labels,
interceptor sweep and evaluation, held-out replication."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentprop.core import DEFAULT_PRIMARY_JUDGE
from agentprop.errors import AgentpropError
from agentprop.runner._plan import MAX_SEED


class ConfigError(AgentpropError):
    """An experiment file that cannot be read or does not validate; one line for the user."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelEntry(_Strict):
    """One model under study, with its own endpoint and limits."""

    id: str
    base_url: str | None = None
    concurrency: int | None = Field(default=None, ge=1, le=1024)
    max_attempts: int | None = Field(default=None, ge=1, le=20)
    rpm: float | None = Field(default=None, gt=0, description="requests per minute budget")
    tpm: float | None = Field(default=None, gt=0, description="tokens per minute budget")
    text_mode: bool = False
    max_steps: int | None = Field(default=None, ge=1, le=100,
                                  description="model calls per episode (default 10)")
    answer_on_step_limit: bool | None = Field(
        default=None, description="at max_steps, ask once more without tools for a forced "
        "final answer (run --answer-on-step-limit); default: the model's own (on for "
        "local/ models)")
    options: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="provider options, as `run -o KEY=VALUE` "
        "(e.g. n_ctx or max_tokens of a local/ model)")


class RunBlock(_Strict):
    """A block of work units: these models × tasks × conditions × seeds."""

    name: str
    models: list[str]
    conditions: list[str] = Field(default_factory=lambda: ["baseline"])
    domains: list[str] | None = None
    split: Literal["val", "test"] | None = "test"
    n: int | None = Field(default=None, ge=1, description="tasks per model (stratified)")
    seeds: list[Annotated[int, Field(ge=0, le=MAX_SEED)]] = Field(default_factory=lambda: [0])


class LabelBlock(_Strict):
    n: int = Field(default=100, ge=1)
    by: list[str] = Field(default_factory=lambda: ["model", "domain"])
    overlap: int = Field(default=0, ge=0)
    seed: int = 42
    condition: str | None = "p2:semantic_wrong"


class SweepBlock(_Strict):
    models: list[str]
    split: Literal["val", "test"] = "val"
    conditions: list[str] = Field(default_factory=lambda: ["p2:semantic_wrong"])
    n: int | None = Field(default=None, ge=1)
    domains: list[str] | None = None


class EvaluateBlock(_Strict):
    models: list[str]
    n: int = Field(default=600, ge=1)
    split: Literal["val", "test"] = "test"
    conditions: list[str] = Field(default_factory=lambda: ["p2:semantic_wrong"])
    config: str = "best"
    mode: Literal["abstain", "warn"] = "abstain"
    seed: int = 0
    domains: list[str] | None = None


class ExperimentConfig(_Strict):
    """The whole study. Every step is resumable: rerunning skips what is done."""

    name: str
    workspace: str | None = None
    suite_seed: int | None = None
    concurrency: int = Field(default=32, ge=1, le=4096)
    models: list[ModelEntry]
    runs: list[RunBlock] = Field(default_factory=list)
    judges: list[str] = Field(default_factory=lambda: ["heuristic", "facts"])
    primary_judge: str = DEFAULT_PRIMARY_JUDGE
    labels: LabelBlock | None = None
    sweep: SweepBlock | None = None
    evaluate: EvaluateBlock | None = None
    report: bool = True

    @field_validator("models")
    @classmethod
    def _unique_models(cls, v: list[ModelEntry]) -> list[ModelEntry]:
        ids = [m.id for m in v]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"model listed twice: {', '.join(sorted(dup))}")
        return v

    def model_entry(self, model_id: str) -> ModelEntry:
        for m in self.models:
            if m.id == model_id:
                return m
        raise ConfigError(f"model {model_id!r} is used but not declared under `models`")

    def check_references(self) -> None:
        """Every model a step names is declared, judge names parse, the primary judge is
        run, and `evaluate.config: best` has a sweep to take it from: caught before any
        model is called or anything is written."""
        from agentprop.core import UnknownNameError
        from agentprop.judges import canonical_name
        from agentprop.models import check_model_id

        try:
            for entry in self.models:
                check_model_id(entry.id)
            judges = [canonical_name(j) for j in self.judges]
            primary = canonical_name(self.primary_judge)
        except UnknownNameError as e:
            raise ConfigError(str(e)) from None
        if primary not in judges:
            raise ConfigError(
                f"primary_judge {self.primary_judge!r} is not listed under `judges`"
            )
        if self.evaluate and self.evaluate.config == "best" and not self.sweep:
            raise ConfigError(
                "evaluate.config is `best` but there is no `sweep` to tune it; add a sweep"
                " block or give a configuration, e.g. tau_l1=1,tau_l2=2,l3=on"
            )
        used: list[str] = []
        for r in self.runs:
            used += r.models
        if self.sweep:
            used += self.sweep.models
        if self.evaluate:
            used += self.evaluate.models
        for m in used:
            self.model_entry(m)


def load_config(path: str | Path) -> ExperimentConfig:
    """Read a YAML or TOML experiment file; ConfigError with one line on any problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"experiment file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read experiment file {p}: {e}") from None
    try:
        data: Any = tomllib.loads(text) if p.suffix == ".toml" else yaml.safe_load(text)
    except RecursionError:  # thousands of nested levels: no experiment looks like that
        raise ConfigError(f"{p}: nested too deeply to read (no experiment file needs more "
                          "than a few levels)") from None
    except yaml.MarkedYAMLError as e:
        raise ConfigError(f"{p}:{_yaml_error(e)}") from None
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as e:
        first = str(e).strip().splitlines()[0]
        raise ConfigError(
            f"{p}: not valid {'TOML' if p.suffix == '.toml' else 'YAML'}: {first}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping at the top level")
    try:
        cfg = ExperimentConfig.model_validate(data)
    except RecursionError:
        raise ConfigError(f"{p}: nested too deeply to read") from None
    except ValidationError as e:
        # an unknown key first: it is often the cause of a missing one ("model:")
        err = min(e.errors(), key=lambda x: x["type"] != "extra_forbidden")
        loc = tuple(err["loc"])
        where = ".".join(str(x) for x in loc) or "(top level)"
        line = "" if p.suffix == ".toml" else _yaml_line(text, loc)
        raise ConfigError(f"{p}:{line} {where}: {_problem(err, loc)}") from None
    cfg.check_references()
    return cfg


def _yaml_error(e: yaml.MarkedYAMLError) -> str:
    """"LINE:COLUMN: not valid YAML: <problem> (<context>)", 1-based like an editor."""
    mark = e.problem_mark or e.context_mark
    at = f"{mark.line + 1}:{mark.column + 1}:" if mark is not None else ""
    what = " ".join(x for x in (e.problem, f"({e.context})" if e.context else "") if x)
    return f"{at} not valid YAML: {what or str(e).splitlines()[0]}"


def _yaml_line(text: str, loc: tuple[Any, ...]) -> str:
    """"LINE:COLUMN:" of the YAML node at `loc` (its key for a mapping entry), or "" when
    the location is not in the text (a missing key) or the text cannot be composed."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return ""
    mark = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if k.value == str(part)), None)
            if hit is None:
                break
            mark, node = hit[0].start_mark, hit[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and part < len(node.value):
            node = node.value[part]
            mark = node.start_mark
        else:
            break
    return f"{mark.line + 1}:{mark.column + 1}:" if mark is not None else ""


def _problem(err: Any, loc: tuple[Any, ...]) -> str:
    """The validation message, an unknown key with the closest known key."""
    if err["type"] != "extra_forbidden" or not loc:
        return str(err["msg"])
    from agentprop.core import unknown_message

    return unknown_message("key", str(loc[-1]), _keys_at(loc[:-1]))


def _keys_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys the model at `loc` (a path of keys and list indices) accepts."""
    model: type[BaseModel] | None = ExperimentConfig
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part)) if model is not None else None
        if field is None:
            return []
        model = _model_of(field.annotation)
    return list(model.model_fields) if model is not None else []


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside `X | None` or `list[X]` (or the annotation itself)."""
    from typing import get_args

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
