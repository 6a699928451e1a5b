"""`experiment run FILE --rehearse`: the whole study over HTTP against a local serve-sim.

Before money is spent, the real-API path is exercised end to end: every model entry keeps
its provider (openai, openrouter, anthropic, google) and so its own SDK, pointed at a
serve-sim on 127.0.0.1 (the OpenAI-style ``/v1`` URL for openai/openrouter, the server
root for the anthropic and google SDKs, which add their own paths). The real model names
are served by sim profiles (`default_profile` for every name, or `aliases`), judge
prompts are answered by the `exact` simulated judge, and `scale` shrinks every block's
task count. The workspace is marked (meta ``rehearsal``) and the report's first line
says it is a rehearsal: its numbers describe simulated agents, not the models named.
"""

from __future__ import annotations

import math
from pathlib import Path

from agentprop.experiment._config import ConfigError, ExperimentConfig
from agentprop.experiment._execute import ExperimentResult, Say, run_experiment
from agentprop.suite import Suite, select_tasks

META_REHEARSAL = "rehearsal"
ROOT_URL_PROVIDERS = ("anthropic", "google")
"""Providers whose SDK appends the API version path itself."""


def _scaled(n: int | None, scale: float, available: int) -> int:
    base = available if n is None else min(n, available)
    return max(1, math.ceil(base * scale))


def scale_config(cfg: ExperimentConfig, suite: Suite, scale: float) -> ExperimentConfig:
    """`cfg` with every block's task count (and the label sample) times `scale`, at least
    one task each; blocks that take every task get `scale` of what they select."""
    if not 0 < scale <= 1:
        raise ConfigError(f"invalid scale {scale:g}: must be in (0, 1]")
    out = cfg.model_copy(deep=True)

    def available(domains: list[str] | None, split: str | None) -> int:
        return len(select_tasks(suite, domains=domains, split=split, n=None, seed=0))

    for block in out.runs:
        block.n = _scaled(block.n, scale, available(block.domains, block.split))
    if out.sweep is not None:
        out.sweep.n = _scaled(out.sweep.n, scale, available(out.sweep.domains, out.sweep.split))
    if out.evaluate is not None:
        ev = out.evaluate
        ev.n = _scaled(ev.n, scale, available(ev.domains, ev.split))
    if out.labels is not None:
        out.labels.n = max(1, math.ceil(out.labels.n * scale))
        out.labels.overlap = min(out.labels.overlap, out.labels.n)
    return out


def point_at(cfg: ExperimentConfig, base_url: str, root_url: str) -> ExperimentConfig:
    """`cfg` with every model entry's base URL on the local server, by provider."""
    out = cfg.model_copy(deep=True)
    for entry in out.models:
        provider = entry.id.split("/", 1)[0]
        entry.base_url = root_url if provider in ROOT_URL_PROVIDERS else base_url
    return out


def rehearse(
    cfg: ExperimentConfig,
    *,
    workspace: Path,
    scale: float = 1.0,
    default_profile: str = "balanced",
    aliases: dict[str, str] | None = None,
    progress: bool = True,
    use_cache: bool = True,
    say: Say = print,
    resamples: int = 1000,
    max_cost: float | None = None,
    preflight: str = "warn",
) -> ExperimentResult:
    """Run `cfg` scaled by `scale` against an in-process serve-sim; the workspace and
    report are marked as a rehearsal."""
    from agentprop.sim._server import ServerConfig, ServerThread
    from agentprop.suite import DEFAULT_SEED, load_suite

    suite = load_suite(seed=cfg.suite_seed if cfg.suite_seed is not None else DEFAULT_SEED)
    scaled = scale_config(cfg, suite, scale)
    server_cfg = ServerConfig(port=0, aliases=dict(aliases or {}),
                              default_profile=default_profile, answer_judges=True)
    try:
        server = ServerThread(server_cfg, suite=suite)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    with server:
        local = point_at(scaled, server.base_url, server.root_url)
        mark = {"scale": scale, "default_profile": default_profile,
                "aliases": dict(aliases or {}), "config": cfg.name,
                "note": "simulated agents and judges behind the real providers' SDKs; "
                        "not results"}
        say(f"REHEARSAL of {cfg.name} at scale {scale:g}: every provider's SDK against a "
            f"local serve-sim ({server.root_url}); nothing is sent to a real API")
        return run_experiment(local, workspace=workspace, progress=progress,
                              use_cache=use_cache, say=say, resamples=resamples,
                              max_cost=max_cost, judge_options={"base_url": server.base_url},
                              preflight=preflight,
                              meta={META_REHEARSAL: mark})
