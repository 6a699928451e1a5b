"""The one planner: from a typed `RunConfig` to the units of a run, and what they will cost.

`agentprop run`, `serve-tools`, `intercept evaluate` and every experiment step select their
work here, so a domain is checked, a condition expanded (`p2:all` → its error types), tasks
sampled and injected units kept off tasks the injector cannot target in one way. What each
caller adds stays with it: option parsing, how its run id is derived, and what an empty
selection means to it. The per-unit token estimate has its home in `runner/_budget.py`;
this module only sums it per model with the price table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from pydantic import BaseModel

from agentprop.core import Task, Usage, WorkUnit, unknown_message
from agentprop.domains import Domain
from agentprop.errors import AgentpropError
from agentprop.inject import UnknownConditionError, expand_conditions, is_injectable
from agentprop.models._prices import price_table
from agentprop.runner import RunError, default_run_id, plan_units
from agentprop.runner._budget import estimate_unit, is_free
from agentprop.suite import CORE_DOMAINS, Suite, select_tasks

BASELINE = "baseline"


class PlanError(AgentpropError):
    """A selection that cannot be planned (unknown domain or condition, bad seed); one
    line for the user."""


@dataclass(frozen=True)
class RunConfig:
    """What a run consists of, before it is planned: models × tasks × conditions × seeds ×
    arms, the tasks a deterministic balanced sample of the suite."""

    models: tuple[str, ...]
    """Model ids (or an external agent's name), in plan order."""
    conditions: tuple[str, ...] = (BASELINE,)
    """As given (`p2:all` allowed); planning expands them."""
    seeds: tuple[int, ...] = (0,)
    """Episode seeds (0..runner.MAX_SEED)."""
    arms: tuple[str, ...] = ("",)
    """Arms of a paired design (`control`, `treatment`), or one unnamed arm."""
    domains: tuple[str, ...] | None = None
    """Domains to sample from; None: the suite's core domains (all, if it has none)."""
    split: str | None = "test"
    """`val`, `test`, or None for both."""
    n: int | None = None
    """At most this many tasks, balanced over domain × difficulty; None: all."""
    sample_seed: int = 0
    """Seed of the task sample."""
    sample_injectable: bool = False
    """With an injected condition, sample only among tasks the injector can target (so
    `n` counts usable tasks); otherwise such tasks only lose their injected units."""
    run_id: str | None = None
    """The run id; None: derived (see `plan_run`)."""

    @property
    def injected(self) -> bool:
        return any(c != BASELINE for c in self.conditions)


class ModelCost(BaseModel):
    """One model's estimated share of a plan (or of a step, or of a whole study)."""

    model: str
    units: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: ModelCost) -> None:
        self.units += other.units
        self.model_calls += other.model_calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd


@dataclass
class CostEstimate:
    """Per-model estimates of some units, and the priced models without a price."""

    per_model: list[ModelCost] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RunPlan:
    """A planned run: its id, its resolved configuration (conditions expanded, domains
    chosen), the sampled tasks and the units in start order."""

    run_id: str
    config: RunConfig
    tasks: list[Task]
    units: list[WorkUnit]
    domains: Mapping[str, Domain] = field(default_factory=dict)
    """The domains of tasks whose domain is not registered (an upstream server's)."""

    @property
    def not_injectable(self) -> int:
        """Drawn tasks the injector cannot target (they get baseline units only)."""
        if not self.config.injected:
            return 0
        return sum(not is_injectable(t, self.domains.get(t.domain)) for t in self.tasks)

    def selection(self) -> str:
        """How the tasks drawn became units, e.g. "10 tasks drawn, 3 not injectable: 7
        units", so a `--limit` that yields fewer traces than asked says why."""
        skipped = self.not_injectable
        drawn = f"{len(self.tasks)} task{'s' if len(self.tasks) != 1 else ''} drawn"
        if skipped:
            drawn += f", {skipped} not injectable"
        return f"{drawn}: {len(self.units)} unit{'s' if len(self.units) != 1 else ''}"


def known_domains(suite: Suite) -> list[str]:
    return sorted({t.domain for t in suite.tasks})


def check_domains(suite: Suite, domains: Iterable[str] | None) -> list[str]:
    """The suite's domains; PlanError for a domain it does not hold (a misspelt domain
    would otherwise silently select no tasks)."""
    known = known_domains(suite)
    for d in domains or ():
        if d not in known:
            raise PlanError(unknown_message("domain", d, known))
    return known


def resolve(suite: Suite, cfg: RunConfig) -> RunConfig:
    """`cfg` with its domains checked and chosen and its conditions expanded."""
    known = check_domains(suite, cfg.domains)
    try:
        conditions = tuple(expand_conditions(cfg.conditions))
    except UnknownConditionError as e:
        raise PlanError(str(e)) from None
    domains = (tuple(cfg.domains) if cfg.domains
               else tuple(d for d in CORE_DOMAINS if d in known) or tuple(known))
    return replace(cfg, domains=domains, conditions=conditions)


def plan_run(suite: Suite, cfg: RunConfig,
             derive_id: Callable[[RunConfig], str] | None = None,
             domains: Mapping[str, Domain] | None = None) -> RunPlan:
    """Check, expand and sample `cfg`, then one unit per seed × task × model × condition ×
    arm (`runner.plan_units` order), injected units only on injectable tasks. The run id is
    `cfg.run_id`, else `derive_id(resolved config)`, else a hash of the resolved config.
    `domains`: the domains of tasks whose domain is not registered (an upstream's)."""
    cfg = resolve(suite, cfg)
    tasks = select_tasks(suite, domains=list(cfg.domains or ()), split=cfg.split, n=cfg.n,
                         seed=cfg.sample_seed,
                         injectable_only=cfg.sample_injectable and cfg.injected)
    run_id = cfg.run_id or (derive_id(cfg) if derive_id else default_run_id(asdict(cfg)))
    try:
        units = plan_units(run_id, cfg.models, tasks, cfg.conditions, seeds=cfg.seeds,
                           arms=cfg.arms)
    except RunError as e:
        raise PlanError(str(e)) from None
    if cfg.injected:
        injectable = {t.id for t in tasks if is_injectable(t, (domains or {}).get(t.domain))}
        units = [u for u in units if u.condition == BASELINE or u.task_id in injectable]
    return RunPlan(run_id=run_id, config=replace(cfg, run_id=run_id), tasks=tasks,
                   units=units, domains=dict(domains or {}))


def estimate(units: Sequence[WorkUnit], suite: Suite, prices: object = None,
             models: Sequence[str] = ()) -> CostEstimate:
    """Calls, tokens and list-price cost per model (`models` first, in that order, even
    without units); simulated models are free, a model without a price counts $0 and is
    named in `unpriced`."""
    table = price_table(prices)
    rows: dict[str, ModelCost] = {m: ModelCost(model=m) for m in models}
    unpriced: set[str] = set()
    for u in units:
        e = estimate_unit(suite.get(u.task_id))
        row = rows.setdefault(u.model, ModelCost(model=u.model))
        row.units += 1
        row.model_calls += e.calls
        row.input_tokens += e.input_tokens
        row.output_tokens += e.output_tokens
        if not is_free(u.model):
            row.cost_usd += table.cost(u.model, Usage(input_tokens=e.input_tokens,
                                                      output_tokens=e.output_tokens))
            if table.lookup(u.model) is None:
                unpriced.add(u.model)
    return CostEstimate(per_model=list(rows.values()), unpriced=sorted(unpriced))
