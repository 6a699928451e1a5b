"""External agents: `agentprop run --agent` (its loader), `serve-tools` and `gateway`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentprop.cli._common import UserError, listen_error, user_errors
from agentprop.cli._upstream import (
    SafeToolOpt,
    TasksOpt,
    UpstreamOpt,
    UpstreamTimeoutOpt,
    UpstreamUrlOpt,
    UserTools,
    user_tools,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentprop.core import WorkUnit
    from agentprop.runner import EpisodeExecutor
    from agentprop.suite import Suite


def agent_executor(spec: str, name: str | None, timeout_s: float,
                   models: list[str], port: int = 0,
                   guards: Callable[[WorkUnit], tuple[Any, ...]] | None = None,
                   ) -> tuple[EpisodeExecutor, list[str]]:
    """The executor for `run --agent SPEC` and the unit's model name; a UserError (one
    line) for a callable that does not exist or cannot take the episode. `guards`: the
    framework guardrails a unit's episode gets (`Episode.guards`)."""
    from agentprop.external import AgentExecutor, load_agent

    if models:
        raise UserError("give either --model or --agent, not both")
    if not timeout_s > 0:
        raise UserError(f"invalid episode timeout {timeout_s:g}: must be > 0 seconds")
    fn, default_name = load_agent(spec)  # AgentLoadError is an AgentpropError: one line
    agent_name = (name or default_name).strip()
    if not agent_name:
        raise UserError("the agent name must not be empty")
    if not 0 <= port <= 65535:
        raise UserError(f"invalid episodes port {port}")
    return AgentExecutor(fn, timeout_s=timeout_s, port=port, guards=guards), [agent_name]




def _plan(agent_name: str, split: str, domain: list[str], limit: int | None,
          seed: list[int], condition: list[str], run_id: str | None, suite_file: Path | None,
          tools: UserTools | None = None) -> tuple[Suite, str, list[WorkUnit]]:
    """(suite, run id, units) for serve-tools, selected exactly as `run` selects them."""
    from agentprop.app import plan_run
    from agentprop.cli._suite import get_suite, run_config
    from agentprop.runner import default_run_id

    if tools is not None and suite_file is not None:
        raise UserError("--suite and --tasks both give the questions: use one")
    suite = tools.suite if tools is not None else get_suite(suite_file)
    cfg = run_config(suite, models=[agent_name], conditions=condition, seeds=seed,
                     domains=domain, split=split, limit=limit, run_id=run_id)
    # The transport is not part of the run id: HTTP and stdio serve the same units, so
    # one resumes the other and a unit is stored once per run whatever served it.
    plan = plan_run(suite, cfg, lambda c: default_run_id({
        "models": [agent_name], "conditions": sorted(c.conditions), "seeds": sorted(seed),
        "split": split, "domains": sorted(domain), "limit": limit, "suite": suite.checksum,
        "served": True, **({"upstream": tools.manifest()} if tools is not None else {})}),
        domains=tools.domains if tools is not None else None)
    if not plan.tasks:
        raise UserError("no tasks match the selection")
    return suite, plan.run_id, plan.units


def serve_tools(
    workspace: Path = typer.Option(..., "--workspace", "-w", envvar="AGENTPROP_WORKSPACE",
                                   help="Workspace folder (the traces go here)."),
    agent_name: str = typer.Option("external", "--agent-name",
                                   help="The agent's name in traces and reports."),
    stdio: bool = typer.Option(False, "--stdio",
                               help="Speak MCP over stdin/stdout: one episode, the first "
                               "unit not yet stored."),
    host: str = typer.Option("127.0.0.1", "--host", help="Bind address (loopback default)."),
    port: int = typer.Option(8766, "--port", min=0, max=65535, help="Port (0: any free)."),
    split: str = typer.Option("test", "--split", help="val, test or all."),
    domain: list[str] = typer.Option([], "--domain", "-d", help="Domain (repeatable)."),
    limit: int = typer.Option(None, "--limit", "-n", help=(
        "At most N tasks (balanced); an injected condition gets no unit on a task it "
        "cannot target (knowledge).")),
    seed: list[int] = typer.Option([0], "--seed", min=0, help="Episode seed (repeatable)."),
    condition: list[str] = typer.Option(["baseline"], "--condition", "-c",
                                        help="baseline, p2:<type>, out:<kind>, "
                                        "fault:<kind> or <family>:all."),
    concurrency: int = typer.Option(8, "--concurrency",
                                    help="HTTP: episodes open at the same time."),
    episode_timeout: float = typer.Option(300.0, "--episode-timeout",
                                          help="Seconds before an open episode becomes an "
                                          "error trace."),
    run_id: str = typer.Option(None, "--run-id", help="Run id (default: from the options)."),
    suite_file: Path = typer.Option(None, "--suite", help="Suite JSONL (default: built-in)."),
    upstream: str = UpstreamOpt,
    upstream_url: str = UpstreamUrlOpt,
    safe_tool: list[str] = SafeToolOpt,
    tasks_file: Path = TasksOpt,
    upstream_timeout: float = UpstreamTimeoutOpt,
) -> None:
    """Serve the suite's tools over MCP (streamable HTTP on 127.0.0.1, or --stdio), one
    episode per unit with P2 injected at the boundary; each episode ends with the
    submit_answer tool and is stored as a trace. With --upstream and --tasks, your own MCP
    server's tools instead (as proxy-tools). Resumable."""
    from agentprop.cli._common import err_console, open_workspace
    from agentprop.external._serve import HttpServedExecutor, StdioServedExecutor
    from agentprop.runner import RunError, run_units_sync

    if concurrency < 1:
        raise UserError(f"invalid concurrency {concurrency}: must be at least 1")
    if not episode_timeout > 0:
        raise UserError(f"invalid episode timeout {episode_timeout:g}: must be > 0 seconds")
    if not agent_name.strip():
        raise UserError("the agent name must not be empty")
    transport = "stdio" if stdio else "http"
    tools = user_tools(upstream, upstream_url, safe_tool, tasks_file, upstream_timeout)
    suite, rid, units = _plan(agent_name.strip(), split, domain, limit, seed,
                              condition, run_id, suite_file, tools)
    command = "proxy-tools" if tools is not None else "serve-tools"
    ws = open_workspace(workspace, create=True)
    try:
        if tools is not None:
            tools.store(ws)
        done = ws.trace_ids(rid)
        pending = [u for u in units if u.key not in done]
        if not pending:
            err_console.print(f"{command}: all {len(units)} episodes of run {rid} are "
                              "stored", highlight=False)
            return
        executor: Any
        if stdio:
            err_console.print(
                f"{command}: run {rid}, serving 1 episode over stdio ({len(pending)} of "
                f"{len(units)} not yet stored)",
                highlight=False)
            units, executor = pending[:1], StdioServedExecutor(timeout_s=episode_timeout)
        else:
            executor = HttpServedExecutor(host=host, port=port, timeout_s=episode_timeout)
            err_console.print(
                f"{command}: run {rid}, {len(pending)} of {len(units)} episodes to serve "
                f"at http://{host}:{port}/mcp (each new MCP session gets the next open "
                "episode; GET /episodes lists them; end each with submit_answer)",
                highlight=False)
        try:
            summary = run_units_sync(
                units, workspace=ws, suite=suite, concurrency=1 if stdio else concurrency,
                progress=False, in_history=False, executor=executor, preflight=0,
                manifest={"split": split, "domains": domain, "limit": limit,
                          "command": f"agentprop {command} ({transport})",
                          "agent": agent_name,
                          **(tools.recorded() if tools is not None else {})},
                domains=tools.domains if tools is not None else None)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        except OSError as e:
            raise listen_error(host, port, e) from None
        except RunError as e:
            raise UserError(str(e)) from None
    finally:
        ws.close()
    err_console.print(f"{command}: {summary.completed} traces written "
                      f"({summary.errors} errors) in run {rid}", highlight=False)


def gateway(
    upstream: str = typer.Option(..., "--upstream", envvar="AGENTPROP_GATEWAY_UPSTREAM",
                                 help="The real OpenAI-compatible endpoint (ending in /v1)."),
    episodes: str = typer.Option(None, "--episodes", envvar="AGENTPROP_EPISODES_URL",
                                 help="The episode host to record into: http://127.0.0.1:PORT"
                                 " of `run --agent --episodes-port PORT` or serve-tools."),
    host: str = typer.Option("127.0.0.1", "--host", help="Bind address (loopback default)."),
    port: int = typer.Option(8767, "--port", min=0, max=65535, help="Port."),
    inject_at_generation: bool = typer.Option(
        False, "--inject-at-generation",
        help="Apply P2 by rewriting the first eligible tool call in the model's response "
        "(the agent's history then holds it), instead of at the tool boundary."),
) -> None:
    """An OpenAI-compatible chat-completions proxy (streaming and not) that records the
    model turns of requests carrying an episode id (X-Agentprop-Episode header or a
    model@<episode id> suffix) into that episode's trace."""
    import asyncio

    import httpx

    from agentprop.cli._common import err_console, probe_base_url
    from agentprop.external._gateway import Gateway, HttpApiFaults, http_report
    from agentprop.external._host import AsgiServer
    from agentprop.safety import redact_url

    if not upstream.startswith(("http://", "https://")):
        raise UserError(f"invalid upstream {redact_url(upstream)!r}: expected an http(s) URL")
    if episodes is not None and not episodes.startswith(("http://", "https://")):
        raise UserError(f"invalid episodes URL {episodes!r}: expected http://HOST:PORT")
    probe_base_url(upstream)

    async def main() -> None:
        async with httpx.AsyncClient(timeout=httpx.Timeout(600.0, connect=10.0)) as client:

            async def refuse(*_: Any) -> None:
                return None  # no episode host: every episode is unknown

            report = http_report(episodes, client) if episodes else refuse
            faults = HttpApiFaults(episodes, client) if episodes else None
            gw = Gateway(upstream, report, bind_host=host, port=port,
                         inject_at_generation=inject_at_generation, client=client,
                         faults=faults)
            server = AsgiServer(gw.app, host, port)
            await server.start()
            gw.port = server.port
            err_console.print(f"gateway: http://{host}:{server.port}/v1 → "
                              f"{redact_url(upstream)}", highlight=False)
            try:
                await asyncio.Event().wait()
            finally:
                await server.stop()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except OSError as e:
        raise listen_error(host, port, e) from None


@functools.wraps(serve_tools)
def proxy_tools(**options: Any) -> None:
    # serve-tools' options; the docstring (its help) is set below, after `wraps`
    if options.get("upstream") is None and options.get("upstream_url") is None:
        raise UserError("proxy-tools forwards your MCP server: give --upstream 'COMMAND "
                        "ARGS' or --upstream-url URL, and --tasks FILE")
    serve_tools(**options)


proxy_tools.__doc__ = (
    "Serve your own MCP server's tools (--upstream 'COMMAND ARGS' over stdio, or "
    "--upstream-url URL) to any agent over MCP, with agentprop's conditions applied at "
    "the boundary: one episode per question of --tasks, ended with submit_answer and "
    "stored as a trace. Counterfactuals only for read-only tools. Resumable "
    "(docs/your-tools.md).")


def register(app: typer.Typer) -> None:
    """Add `serve-tools`, `proxy-tools` and `gateway` to the main app."""
    app.command("serve-tools")(user_errors(serve_tools))
    app.command("proxy-tools")(user_errors(proxy_tools))
    app.command("gateway")(user_errors(gateway))
