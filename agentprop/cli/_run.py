"""`agentprop run` and `agentprop traces list|show|export`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.text import Text

from agentprop.cli._common import (
    UserError,
    console,
    err_console,
    fail,
    open_workspace,
    preflight_mode,
    print_json,
    probe_base_url,
    probe_models,
    say_probe,
    user_errors,
)
from agentprop.cli._upstream import (
    SafeToolOpt,
    TasksOpt,
    UpstreamOpt,
    UpstreamTimeoutOpt,
    UpstreamUrlOpt,
    user_tools,
)

if TYPE_CHECKING:
    from agentprop.app import RunConfig

traces_app = typer.Typer(help="List, show and export stored traces.", no_args_is_help=True)

WorkspaceOpt = typer.Option(
    ..., "--workspace", "-w", envvar="AGENTPROP_WORKSPACE", help="Workspace folder."
)


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` model options; values are JSON when they parse (numbers, booleans)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"invalid model option {pair!r}: expected KEY=VALUE")
        try:
            value: Any = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON (or absurdly deep): the text
            value = raw
        out[key.strip().replace("-", "_")] = value
    return out


def parse_limits(models: list[str], rpm: list[str], tpm: list[str]) -> dict[str, Any]:
    """Per-model budgets from `--rpm`/`--tpm` values `N` (every model) or `MODEL=N`."""
    from agentprop.models import RateLimits

    values: dict[str, dict[str, float]] = {m: {} for m in models}
    for flag, items in (("rpm", rpm), ("tpm", tpm)):
        for item in items:
            model, sep, raw = item.rpartition("=")
            targets = [model] if sep else models
            if sep and model not in values:
                raise UserError(f"--{flag} {item!r}: {model!r} is not a --model of this run")
            try:
                value = float(raw)
            except ValueError:
                raise UserError(f"invalid --{flag} {item!r}: expected N or MODEL=N") from None
            if not value > 0:
                raise UserError(f"invalid --{flag} {item!r}: must be positive")
            for t in targets:
                values[t][flag] = value
    return {m: RateLimits(**v) for m, v in values.items() if v}


def resume_command() -> str:
    """The command line of this invocation, to print after Ctrl-C: the run id is derived
    from the options (secrets excluded), so the same command resumes the run. Secrets are
    never printed: an option value such as ``-o api_key=…`` shows as ``<redacted>``, with
    a note to put it back."""
    import shlex

    from agentprop.runner import redact_argv

    args = redact_argv(sys.argv[1:])
    line = "agentprop " + shlex.join(args)
    if args != sys.argv[1:] and "<redacted>" in line:
        line += "\n  (put your secret back where it says <redacted>, or set it in the environment)"
    return line


def interrupted_message(stored: int, total: int, run_id: str) -> str:
    """What `run` prints after Ctrl-C or SIGTERM: how far it got and how to resume, or
    that nothing is left to resume."""
    if stored >= total:
        return (f"interrupted after all {total} units of run {run_id} were stored: "
                "nothing to resume")
    return (f"interrupted: {stored} of {total} units stored in run {run_id}; to resume "
            f"the other {total - stored}, run:\n  {resume_command()}")


def _derived_run_id(cfg: RunConfig, *, domains: list[str], split: str, limit: int | None,
                    suite_checksum: str, max_steps: int, text_mode: bool,
                    answer_on_step_limit: bool | None, executed_only: bool,
                    base_url: str | None,
                    options: dict[str, Any], agent: str | None,
                    execute_leaked: bool = False,
                    upstream: dict[str, Any] | None = None) -> str:
    """`run`'s default run id: a hash of every option that determines its traces (secrets
    redacted), so the same command resumes the same run."""
    from agentprop.runner import default_run_id, redact

    return default_run_id(redact({
        "models": sorted(cfg.models),
        "conditions": sorted(cfg.conditions),
        "seeds": sorted(cfg.seeds),
        "split": split,
        "domains": sorted(domains),
        "limit": limit,
        "suite": suite_checksum,
        "max_steps": max_steps,
        "text_mode": text_mode,
        **({"answer_on_step_limit": answer_on_step_limit}
           if answer_on_step_limit is not None else {}),
        "executed_only": executed_only,
        "base_url": base_url,
        "base_url_env": {
            k: v
            for k in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")
            if (v := os.environ.get(k))
        },
        "model_options": options,
        **({"agent": agent} if agent else {}),
        **({"execute_leaked": True} if execute_leaked else {}),
        **({"upstream": upstream} if upstream else {}),
    }))


def _pool(kind: str, workers: int | None, ray_address: str | None, agent: str | None,
          timeout_s: float, port: int, external: Any, upstream: bool,
          warm: tuple[str, ...] = (), options: dict[str, Any] | None = None) -> Any:
    """The worker pool of `--executor` (None: asyncio), connected before the workspace is
    opened, so an unreachable Ray cluster fails with nothing written."""
    import functools

    from agentprop.runner import RunError, make_pool

    if kind != "asyncio" and upstream:
        raise UserError("--upstream runs with --executor asyncio only (one connection to "
                        "your server per run)")
    if kind != "asyncio" and port:
        raise UserError("--episodes-port needs --executor asyncio (each worker hosts its "
                        "own episodes on a free port)")
    if workers is not None and kind == "asyncio":
        raise UserError("--workers needs --executor processes or ray")
    factory = None
    if agent is not None and kind != "asyncio":
        from agentprop.external import agent_in_worker

        factory = functools.partial(agent_in_worker, agent, timeout_s)
    try:
        pool = make_pool(kind, workers=workers, ray_address=ray_address, agent=factory,
                         reached=external.reached if external is not None else None,
                         warm=warm, warm_options=options)
        connect = getattr(pool, "connect", None)
        if callable(connect):
            connect()
    except RunError as e:
        raise UserError(str(e)) from None
    return pool


def _unknown_spend(summary: Any) -> dict[str, Any]:
    """For an external agent none of whose model calls agentprop saw (no gateway): its
    calls, tokens and cost as unknown (None), not as 0."""
    if not summary.completed or summary.unobserved_model_calls < summary.completed:
        return {}
    return {k: None for k in ("model_calls", "cached_calls", "input_tokens",
                              "output_tokens", "tokens", "cost")}


def _print_agent_summary(summary: Any, rid: str, workspace: Path, selection: str,
                         api: bool = False) -> None:
    """`run --agent`'s summary: what agentprop saw (tool calls; model turns only through
    the gateway), and what it did not (with `api`, that `api:*` units could not act)."""
    seen = summary.completed - summary.unobserved_model_calls
    if seen:
        model = (f"{summary.model_calls} model calls recorded by the gateway in {seen} "
                 f"episodes ({summary.tokens:,} tokens, ${summary.cost:.4f})")
        if summary.unobserved_model_calls:
            model += f"; not observed in the other {summary.unobserved_model_calls}"
    else:
        model = ("the agent's model calls, tokens and cost: not observed (they did not go "
                 "through `agentprop gateway`)")
        if api:
            model += "; the api:* faults act at the gateway: their units record no_model_call"
    console.print(
        Text(f"run {rid}: {selection}; {summary.completed} traces written "
             f"({summary.errors} errors), "
             f"{summary.skipped} already stored, {summary.tool_calls} tool calls; {model}; "
             f"{summary.wall_s:.1f} s → {workspace}"), highlight=False)


def _stored(workspace: Path, run_id: str) -> int:
    try:
        with open_workspace(workspace) as ws:
            return int(ws.count_traces(run_id=run_id))
    except Exception:
        return 0


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def _render_verdicts(verdicts: list[Any]) -> None:
    """Each judge's verdict on the trace, with its rationale where it gives one."""
    for v in verdicts:
        mark = {True: "correct", False: "wrong", None: "unscored"}[v.correct]
        why = (v.raw or {}).get("summary") or (v.raw or {}).get("reason") or ""
        console.print(Text(f"[{v.judge}] {mark}" + (f" — {why}" if why else "")))


def _render_trace(trace: Any, *, show_system: bool = False) -> None:
    """An episode, readable. All model and tool text goes through Text: never markup."""
    from agentprop.core import (
        ErrorEvent,
        FinalEvent,
        InjectionEvent,
        InterceptEvent,
        ToolResultEvent,
    )

    head = Text()
    head.append("trace ", style="bold").append(trace.id)
    head.append(
        f"  {trace.model}  {trace.task_id} ({trace.domain}, {trace.difficulty}, "
        f"{trace.split})  condition {trace.condition}  seed {trace.seed}"
    )
    if trace.arm:
        head.append(f"  arm {trace.arm}")
    head.append(f"  status {trace.status}", style="green" if trace.status == "ok" else "red")
    if trace.simulated:
        head.append("  [simulated]", style="yellow")
    console.print(head)
    console.rule("messages")
    for m in trace.messages:
        if m.role == "system" and not show_system:
            continue
        line = Text(f"{m.role:>9} ", style="bold cyan" if m.role == "assistant" else "bold")
        if m.reasoning:
            line.append(f"(reasoning) {m.reasoning}\n          ", style="dim")
        if m.content:
            line.append(m.content)
        for c in m.tool_calls:
            line.append(f"\n          → {c.name}({_json(c.arguments)})", style="magenta")
        if m.role == "tool" and m.name:
            line.append(f"   [{m.name}]", style="dim")
        console.print(line)
    console.rule("events")
    for ev in trace.events:
        if isinstance(ev, InjectionEvent):
            t = Text(f"injection {ev.protocol}:{ev.error_type} {ev.status}", style="yellow")
            if ev.status == "applied":
                change = "removed" if ev.removed else f"{_json(ev.original)} → {_json(ev.injected)}"
                t.append(
                    f"  {ev.tool}.{ev.param}: {change}"
                    f"  (in history: {'yes' if ev.in_history else 'no'})"
                )
            console.print(t)
        elif isinstance(ev, ToolResultEvent):
            t = Text(f"step {ev.step} ", style="dim")
            t.append(f"{ev.name}({_json(ev.arguments)})", style="magenta")
            t.append(f"\n    observation: {_json(ev.observation)}")
            if ev.counterfactual is not None:
                t.append(f"\n    counterfactual: {_json(ev.counterfactual)}", style="yellow")
            console.print(t)
        elif isinstance(ev, InterceptEvent):
            console.print(Text(f"intercept {ev.layer} {ev.decision}: {ev.reason}", style="yellow"))
        elif isinstance(ev, ErrorEvent):
            console.print(
                Text(f"error {ev.kind} (attempts {ev.attempts}): {ev.message}", style="red")
            )
        elif isinstance(ev, FinalEvent):
            t = Text("final: ", style="bold")
            if ev.abstained:
                t.append(f"abstained ({ev.reason or 'no reason'})", style="yellow")
                if ev.answer:
                    t.append(f"  {ev.answer}")
            else:
                t.append(ev.answer if ev.answer is not None else "(no answer)")
            console.print(t)


_MODEL_OPT = typer.Option(
    [],
    "--model",
    "-m",
    envvar="AGENTPROP_MODEL",
    help="Model id provider/name (repeatable), e.g. openai/gpt-4o-mini, sim/balanced.",
)
_BASE_URL_OPT = typer.Option(
    None,
    "--base-url",
    envvar="AGENTPROP_BASE_URL",
    help="Server URL for the models: OpenAI-compatible (vLLM, Ollama, serve-sim...),"
    " or an Anthropic or Gemini API endpoint.",
)
_SPLIT_OPT = typer.Option(
    "test", "--split", envvar="AGENTPROP_SPLIT", help="val, test or all."
)
_DOMAIN_OPT = typer.Option(
    [],
    "--domain",
    "-d",
    envvar="AGENTPROP_DOMAIN",
    help="Domain (repeatable; default: the core domains, not the held-out retail).",
)
_LIMIT_OPT = typer.Option(
    None,
    "--limit",
    "-n",
    envvar="AGENTPROP_LIMIT",
    help=("At most N tasks, balanced over domain × difficulty. An injected condition "
         "gets no unit on a drawn task it cannot target (knowledge has no tool "
         "parameter to corrupt), so there can be fewer units than tasks; the "
         "summary says how many."),
)
_SEED_OPT = typer.Option(
    [0], "--seed", min=0, envvar="AGENTPROP_SEED", help="Episode seed (repeatable)."
)
_CONDITION_OPT = typer.Option(
    ["baseline"],
    "--condition",
    "-c",
    envvar="AGENTPROP_CONDITION",
    help="baseline, p2:<type>, out:<kind>, fault:<kind> or <family>:all (repeatable).",
)
_CONCURRENCY_OPT = typer.Option(32, "--concurrency", envvar="AGENTPROP_CONCURRENCY")
_NO_CACHE_OPT = typer.Option(
    False, "--no-cache", envvar="AGENTPROP_NO_CACHE", help="Bypass the response cache."
)
_MAX_STEPS_OPT = typer.Option(10, "--max-steps", envvar="AGENTPROP_MAX_STEPS")
_TEXT_MODE_OPT = typer.Option(
    False,
    "--text-mode",
    envvar="AGENTPROP_TEXT_MODE",
    help="ReAct text protocol for models without function calling.",
)
_ANSWER_ON_STEP_LIMIT_OPT = typer.Option(
    None,
    "--answer-on-step-limit/--no-answer-on-step-limit",
    envvar="AGENTPROP_ANSWER_ON_STEP_LIMIT",
    help="At --max-steps, ask once more without tools and record the reply as a "
    "forced final answer, or end the episode as step_limit. Default: the model's "
    "own (on for local/ models, which keep calling tools; off for the others).",
    show_default=False,
)
_EXECUTED_ONLY_OPT = typer.Option(
    False,
    "--executed-only",
    envvar="AGENTPROP_EXECUTED_ONLY",
    help="P2: corrupt only the executed call and keep the agent's own arguments in "
    "its history (default: the corrupted arguments replace them, an error at the "
    "parameter-generation stage).",
)
_RUN_ID_OPT = typer.Option(
    None,
    "--run-id",
    envvar="AGENTPROP_RUN_ID",
    help="Run id (default: derived from the options, so a rerun resumes).",
)
_SUITE_FILE_OPT = typer.Option(
    None, "--suite", envvar="AGENTPROP_SUITE", help="Suite JSONL file (default: built-in)."
)
_OPTION_OPT = typer.Option(
    [],
    "--model-option",
    "-o",
    envvar="AGENTPROP_MODEL_OPTION",
    help="Provider option KEY=VALUE (repeatable), e.g. max_attempts=3.",
)
_AS_JSON_OPT = typer.Option(
    False, "--json", envvar="AGENTPROP_JSON", help="Print one JSON summary at the end."
)
_AGENT_OPT = typer.Option(
    None,
    "--agent",
    envvar="AGENTPROP_AGENT",
    help="Your own agent instead of --model: MODULE_OR_FILE:CALLABLE, awaited with "
    "an episode (query, MCP URL) per unit (docs/external-agents.md).",
)
_AGENT_NAME_OPT = typer.Option(
    None, "--agent-name", envvar="AGENTPROP_AGENT_NAME",
    help="The agent's name in traces and reports (default: module.callable).",
)
_EPISODE_TIMEOUT_OPT = typer.Option(
    300.0, "--episode-timeout", envvar="AGENTPROP_EPISODE_TIMEOUT",
    help="--agent: seconds before an episode becomes an error trace.",
)
_EPISODES_PORT_OPT = typer.Option(
    0, "--episodes-port", envvar="AGENTPROP_EPISODES_PORT",
    help="--agent: the port of the episode host (MCP, gateway reports); 0: any.",
)
_RPM_OPT = typer.Option(
    [], "--rpm", help="Requests per minute, for every model (N) or one (MODEL=N);"
    " repeatable.")
_TPM_OPT = typer.Option(
    [], "--tpm", help="Tokens per minute (reported usage), for every model (N) or one"
    " (MODEL=N); repeatable.")
_MAX_COST_OPT = typer.Option(
    None, "--max-cost", envvar="AGENTPROP_MAX_COST",
    help="Cost guard (USD, this invocation): no unit starts once the estimated spend"
    " would pass it; rerun with a higher limit to resume.")
_PREFLIGHT_OPT = typer.Option(
    "warn", "--preflight", envvar="AGENTPROP_PREFLIGHT",
    help="Tool-calling check of each model before the first unit, with the run's "
    "own tools: strict (refuse a model whose forced calls fail), warn (report "
    "and run), off (docs/real-servers.md).")
_EXECUTE_LEAKED_OPT = typer.Option(
    False, "--execute-leaked-calls", envvar="AGENTPROP_EXECUTE_LEAKED_CALLS",
    help="Run a tool call the model wrote as text as if it were a call (default: "
    "record it and take the reply as the answer; docs/tool-call-outcomes.md).")
_EXECUTOR_KIND_OPT = typer.Option(
    "asyncio", "--executor", envvar="AGENTPROP_EXECUTOR",
    help="Where episodes run: asyncio (this process), processes (--workers local "
    "processes), ray (Ray actors, local or --ray-address); docs/scaling.md.")
_WORKERS_OPT = typer.Option(
    None, "--workers", envvar="AGENTPROP_WORKERS",
    help="--executor processes|ray: worker processes (default: the cores).",
    show_default=False)
_RAY_ADDRESS_OPT = typer.Option(
    None, "--ray-address", envvar="AGENTPROP_RAY_ADDRESS",
    help="--executor ray: the cluster's HOST:PORT, auto or ray://HOST:PORT "
    "(default: a local Ray instance).")


@user_errors
def run(
    model: list[str] = _MODEL_OPT,
    workspace: Path = WorkspaceOpt,
    base_url: str = _BASE_URL_OPT,
    split: str = _SPLIT_OPT,
    domain: list[str] = _DOMAIN_OPT,
    limit: int = _LIMIT_OPT,
    seed: list[int] = _SEED_OPT,
    condition: list[str] = _CONDITION_OPT,
    concurrency: int = _CONCURRENCY_OPT,
    no_cache: bool = _NO_CACHE_OPT,
    max_steps: int = _MAX_STEPS_OPT,
    text_mode: bool = _TEXT_MODE_OPT,
    answer_on_step_limit: bool = _ANSWER_ON_STEP_LIMIT_OPT,
    executed_only: bool = _EXECUTED_ONLY_OPT,
    run_id: str = _RUN_ID_OPT,
    suite_file: Path = _SUITE_FILE_OPT,
    option: list[str] = _OPTION_OPT,
    as_json: bool = _AS_JSON_OPT,
    agent: str = _AGENT_OPT,
    agent_name: str = _AGENT_NAME_OPT,
    episode_timeout: float = _EPISODE_TIMEOUT_OPT,
    episodes_port: int = _EPISODES_PORT_OPT,
    rpm: list[str] = _RPM_OPT,
    tpm: list[str] = _TPM_OPT,
    max_cost: float = _MAX_COST_OPT,
    preflight: str = _PREFLIGHT_OPT,
    execute_leaked: bool = _EXECUTE_LEAKED_OPT,
    upstream: str = UpstreamOpt,
    upstream_url: str = UpstreamUrlOpt,
    safe_tool: list[str] = SafeToolOpt,
    tasks_file: Path = TasksOpt,
    upstream_timeout: float = UpstreamTimeoutOpt,
    executor_kind: str = _EXECUTOR_KIND_OPT,
    workers: int = _WORKERS_OPT,
    ray_address: str = _RAY_ADDRESS_OPT,
) -> None:
    """Run agent episodes: one per model (or --agent) × task × condition × seed.
    Resumable."""
    from agentprop.app import plan_run
    from agentprop.cli._suite import get_suite, run_config
    from agentprop.runner import RunAborted, RunError, make_models, run_units_sync

    if concurrency < 1:
        raise UserError(f"invalid concurrency {concurrency}: must be at least 1")
    mode = preflight_mode(preflight)
    if max_steps < 1:
        raise UserError(f"invalid max steps {max_steps}: must be at least 1")
    external = None
    if agent is not None:  # a bad callable fails here, before any unit starts
        from agentprop.cli._external import agent_executor

        external, model = agent_executor(agent, agent_name, episode_timeout, model,
                                         episodes_port)
    elif not model:
        raise UserError("give --model (a model id) or --agent (your own agent)")
    options = _parse_options(option)
    if base_url:
        probe_base_url(base_url)
        options["base_url"] = base_url
    # workers spawn now: their imports overlap the suite's load and the planning
    pool = _pool(executor_kind, workers, ray_address, agent, episode_timeout,
                 episodes_port, external, bool(upstream or upstream_url),
                 warm=() if external else tuple(model), options=options)
    tools = user_tools(upstream, upstream_url, safe_tool, tasks_file, upstream_timeout)
    if tools is not None and suite_file is not None:
        raise UserError("--suite and --tasks both give the questions: use one")
    suite = tools.suite if tools is not None else get_suite(suite_file)
    cfg = run_config(suite, models=model, conditions=condition, seeds=seed, domains=domain,
                     split=split, limit=limit, run_id=run_id)
    plan = plan_run(suite, cfg, lambda c: _derived_run_id(
        c, domains=domain, split=split, limit=limit, suite_checksum=suite.checksum,
        max_steps=max_steps, text_mode=text_mode,
        answer_on_step_limit=answer_on_step_limit, executed_only=executed_only,
        base_url=base_url, options=options, agent=agent, execute_leaked=execute_leaked,
        upstream=tools.manifest() if tools is not None else None),
        domains=tools.domains if tools is not None else None)
    if not plan.tasks:
        raise UserError("no tasks match the selection")
    models, rid, units = list(cfg.models), plan.run_id, plan.units
    try:  # an unknown provider, profile or option fails before anything is written
        built = {} if external else make_models(
            models, workspace=None, suite=suite, model_options=options, use_cache=False
        )
    except RunError as e:
        raise UserError(str(e)) from None
    # e.g. OPENAI_BASE_URL: an unreachable server fails before the workspace
    if not base_url and not external:
        probe_models(built.values())
    if max_cost is not None and max_cost < 0:
        raise UserError(f"invalid --max-cost {max_cost:g}: must be >= 0")
    limits = parse_limits(models, rpm, tpm)
    ws = open_workspace(workspace, create=True)
    progress = not as_json  # a bar on a terminal, plain lines elsewhere
    if tools is not None:
        mode = "off"  # the probe sends the suite's forced calls; your tools get none
    try:
        if tools is not None:
            tools.store(ws)
        summary = run_units_sync(
            units,
            workspace=ws,
            suite=suite,
            model_options=options,
            concurrency=concurrency,
            progress=progress,
            use_cache=not no_cache,
            max_steps=max_steps,
            text_mode=text_mode,
            answer_on_step_limit=answer_on_step_limit,
            in_history=not executed_only and external is None,
            executor=pool if pool is not None else external,
            manifest={
                **({"agent": agent} if agent else {}),
                "split": split,
                "domains": domain,
                "limit": limit,
                "suite_file": str(suite_file) if suite_file else None,
                "command": "agentprop run",
                **(tools.recorded() if tools is not None else {}),
            },
            max_cost=max_cost,
            model_limits=limits,
            probe=mode,
            on_probe=say_probe,
            execute_leaked=execute_leaked,
            domains=tools.domains if tools is not None else None,
        )
    except KeyboardInterrupt:
        err_console.print(interrupted_message(_stored(workspace, rid), len(units), rid),
                          highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    except RunAborted as e:
        fail(str(e), code=1)
    except RunError as e:
        fail(str(e))
    finally:
        ws.close()
    if as_json:
        print_json({**summary.model_dump(mode="json"), **_unknown_spend(summary),
                    "run_id": rid, "workspace": str(workspace),
                    "tasks": len(plan.tasks), "not_injectable": plan.not_injectable})
        return
    if external is not None:
        _print_agent_summary(summary, rid, workspace, plan.selection(),
                             api=any(c.startswith("api:") for c in plan.config.conditions))
        return
    _print_run_summary(summary, plan.selection(), rid, workspace, max_cost)


def _print_run_summary(summary: Any, selection: str, rid: str, workspace: Path,
                       max_cost: float | None) -> None:
    """The closing lines of `run` for its own agent loop: what was written, and what was
    not (a lost worker, the cost guard), each with what to do next."""
    asked = sum(p.requests for p in summary.preflight)
    probed = f"; {asked} preflight requests besides" if asked else ""
    console.print(
        f"run [bold]{escape(rid)}[/]: {selection}; {summary.completed} traces "
        f"written ({summary.errors} errors), {summary.skipped} already stored, "
        f"{summary.model_calls} model calls ({summary.cached_calls} cached, "
        f"{summary.rate_limited} answered 429{probed}), "
        f"{summary.tokens:,} tokens, ${summary.cost:.4f}, {summary.wall_s:.1f} s "
        f"→ {escape(str(workspace))}",
        highlight=False,
    )
    if summary.replaced_code_points:
        err_console.print(
            f"{summary.replaced_code_points} code points UTF-8 cannot encode (lone "
            "surrogates in model or agent text) were stored as U+FFFD",
            highlight=False, soft_wrap=True)
    if summary.lost:
        err_console.print(
            f"{summary.lost} units not finished (their worker died); rerun the same "
            "command to run them", highlight=False, soft_wrap=True)
    if summary.not_started:
        err_console.print(
            f"cost guard: {summary.not_started} units not started (the estimated spend "
            f"would pass ${max_cost:g}); rerun with a higher --max-cost to resume",
            highlight=False, soft_wrap=True,
        )


@user_errors
def list_traces(
    workspace: Path = WorkspaceOpt,
    model: str = typer.Option(None, "--model", "-m", help="Only this model."),
    run_id: str = typer.Option(None, "--run-id", help="Only this run."),
    condition: str = typer.Option(None, "--condition", "-c", help="Only this condition."),
    status: str = typer.Option(None, "--status", help="ok, error or step_limit."),
    limit: int = typer.Option(
        50, "--limit", "-n", min=0, help="Show at most N (newest last)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON rows."),
) -> None:
    """List stored traces (id, model, task, condition, status, final answer)."""
    if status is not None and status not in ("ok", "error", "step_limit"):
        raise UserError(f"invalid status {status!r}: use ok, error or step_limit")
    with open_workspace(workspace) as ws:
        filters = {"model": model, "run_id": run_id, "condition": condition, "status": status}
        total = ws.count_traces(**filters)
        rows = ws.trace_rows(**filters)[-limit:] if limit > 0 else []
        for r in rows:
            t = ws.get_trace(r["id"])
            fin = t.final if t is not None else None
            r["final_answer"] = fin.answer if fin else None
            r["abstained"] = bool(fin and fin.abstained)
    if as_json:
        print_json(rows)
        return
    from agentprop.cli._layout import traces_table

    table = traces_table(f"{len(rows)} of {total} traces", rows)
    console.print(table)


@user_errors
def show(
    trace_id: str = typer.Argument(..., help="Trace id (or a unique prefix)."),
    workspace: Path = WorkspaceOpt,
    as_json: bool = typer.Option(False, "--json", help="Print the full trace as JSON."),
    system: bool = typer.Option(False, "--system", help="Also show the system prompt."),
) -> None:
    """Show one episode: messages, tool calls, observations, injection, final answer."""
    with open_workspace(workspace) as ws:
        trace = ws.get_trace(trace_id)
        if trace is None:
            matches = [i for i in ws.trace_ids() if i.startswith(trace_id)]
            if len(matches) > 1:
                raise UserError(
                    f"trace id prefix {trace_id!r} is ambiguous ({len(matches)} traces)"
                )
            trace = ws.get_trace(matches[0]) if matches else None
        if trace is None:
            raise UserError(f"no trace {trace_id!r} in {workspace}")
        verdicts = ws.verdicts_of(trace.id)
    if as_json:
        sys.stdout.write(trace.model_dump_json(indent=2) + "\n")
        return
    _render_trace(trace, show_system=system)
    _render_verdicts(verdicts)


@user_errors
def export(
    workspace: Path = WorkspaceOpt,
    fmt: str = typer.Option(
        "jsonl", "--format", "-f", help="jsonl, csv, parquet or inspect."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Output file (a folder for inspect)."),
    model: str = typer.Option(None, "--model", "-m", help="Only this model."),
    run_id: str = typer.Option(None, "--run-id", help="Only this run."),
    condition: str = typer.Option(
        None, "--condition", "-c", help="Only this condition."),
) -> None:
    """Export traces: jsonl (full events), csv (flat columns), parquet (both), or
    inspect (Inspect AI .eval logs, one per model × condition, for Inspect View)."""
    from agentprop.store import FORMATS, export_traces

    if fmt == "inspect":
        _export_inspect(workspace, out, model=model, run_id=run_id, condition=condition)
        return
    if fmt not in FORMATS:
        raise UserError(f"unknown export format {fmt!r} (use one of: "
                        f"{', '.join((*FORMATS, 'inspect'))})")
    with open_workspace(workspace) as ws:
        n = export_traces(ws, fmt, out, model=model, run_id=run_id, condition=condition)
    err_console.print(f"exported {n} traces → {escape(str(out))}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `run` and `traces` to the main app."""
    app.command("run")(run)
    traces_app.command("list")(list_traces)
    traces_app.command("show")(show)
    traces_app.command("export")(export)
    app.add_typer(traces_app, name="traces")


def _export_inspect(workspace: Path, out: Path, **filters: str | None) -> None:
    """`traces export --format inspect`: the logs, each sample's target from the tasks the
    runs used (none when the workspace's suite cannot be told), one line per log."""
    from agentprop.experiment._execute import workspace_suite
    from agentprop.interop import export_inspect

    with open_workspace(workspace) as ws:
        logs = export_inspect(ws, out, tasks=workspace_suite(ws), **filters)
        primary = ws.primary_judge()
    for log in logs:
        errors = f", {log.errors} errors" if log.errors else ""
        right = ("none scored" if log.accuracy is None
                 else f"right {round(log.accuracy * log.scored)}/{log.scored}")
        err_console.print(f"{escape(log.path.name)}  {log.samples} samples{errors}; "
                          f"{escape(primary)} {right}", highlight=False)
    total = sum(log.samples for log in logs)
    err_console.print(f"exported {total} traces in {len(logs)} Inspect logs → "
                      f"{escape(str(out))}", highlight=False)
