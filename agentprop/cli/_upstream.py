"""The options that point a run at the user's own MCP server and questions:
`--upstream 'COMMAND ARGS'` or `--upstream-url URL`, `--safe-tool NAME`, `--tasks FILE`
(docs/your-tools.md)."""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentprop.cli._common import UserError

if TYPE_CHECKING:
    from agentprop.domains import Domain
    from agentprop.external import Upstream, UpstreamDomain
    from agentprop.store import Workspace
    from agentprop.suite import Suite

UpstreamOpt = typer.Option(
    None, "--upstream", envvar="AGENTPROP_UPSTREAM",
    help="Your MCP server, as the command that starts it over stdio (quoted: 'python -m "
    "my_server --flag'). Its tools replace the suite's; use with --tasks "
    "(docs/your-tools.md).")
UpstreamUrlOpt = typer.Option(
    None, "--upstream-url", envvar="AGENTPROP_UPSTREAM_URL",
    help="Your MCP server at a streamable-HTTP URL, instead of --upstream.")
SafeToolOpt = typer.Option(
    [], "--safe-tool", envvar="AGENTPROP_SAFE_TOOL",
    help="A tool of the upstream that has no side effects, though not annotated "
    "readOnlyHint (repeatable): its counterfactual is made by a second call.")
TasksOpt = typer.Option(
    None, "--tasks", envvar="AGENTPROP_TASKS",
    help="Your questions for the upstream's tools: JSONL or YAML, each with a query and "
    "optionally a reference and tools.")
UpstreamTimeoutOpt = typer.Option(
    60.0, "--upstream-timeout", envvar="AGENTPROP_UPSTREAM_TIMEOUT",
    help="Seconds an upstream tool call may take before the episode is an error trace.")


@dataclass(frozen=True)
class UserTools:
    """The user's server (as a domain) and questions, resolved before anything runs."""

    upstream: Upstream
    domain: UpstreamDomain
    suite: Suite
    tasks_file: Path

    @property
    def domains(self) -> dict[str, Domain]:
        return {self.domain.name: self.domain}

    def manifest(self) -> dict[str, Any]:
        """What the run records (the command or URL without credentials)."""
        return {"upstream": self.upstream.describe(), "safe_tools": sorted(
            self.upstream.safe_tools), "tasks_file": str(self.tasks_file),
            "upstream_server": self.domain.name}

    def recorded(self) -> dict[str, Any]:
        """What the run's manifest (`RunSpec.config`) keeps: `manifest` and each tool's
        read-only flag (``upstream_tools``: name → True when its counterfactual may be
        made, by readOnlyHint or --safe-tool), so the report names the tools whose S2 is
        undefined. Kept out of `manifest`, which the run id is derived from."""
        return {**self.manifest(), "upstream_tools": {
            t.spec.name: not t.spec.mutates for t in self.domain.tools}}

    def store(self, ws: Workspace) -> None:
        """Keep the questions in the workspace, so judge and report find them."""
        from agentprop.store import WorkspaceError

        try:
            ws.put_tasks(self.suite.tasks)
        except WorkspaceError as e:
            raise UserError(str(e)) from None


def user_tools(command: str | None, url: str | None, safe_tools: list[str],
               tasks_file: Path | None, timeout_s: float) -> UserTools | None:
    """The upstream and its tasks (None when the run uses the suite's own tools); one
    `UserError` line for every mistake, before anything is written."""
    if command is None and url is None:
        if tasks_file is not None:
            raise UserError("--tasks gives questions for your own tools: add --upstream "
                            "'COMMAND ARGS' or --upstream-url URL (docs/your-tools.md)")
        if safe_tools:
            raise UserError("--safe-tool names a tool of --upstream: give the upstream too")
        return None
    from agentprop.external import Upstream, UpstreamError, discover
    from agentprop.suite import SuiteError, load_user_tasks, user_suite

    if timeout_s <= 0:
        raise UserError(f"invalid --upstream-timeout {timeout_s:g}: must be > 0 seconds")
    if tasks_file is None:
        raise UserError("--upstream needs --tasks FILE: the questions to ask of its tools "
                        "(docs/your-tools.md)")
    try:
        upstream = Upstream.parse(command, url, safe_tools=safe_tools, call_timeout_s=timeout_s)
        domain = asyncio.run(discover(upstream))
    except UpstreamError as e:
        raise UserError(str(e)) from None
    names = [t.name for t in domain.tools]
    for name in safe_tools:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UserError(f"--safe-tool {name!r}: the upstream has no such tool{hint}; "
                            f"its tools: {', '.join(names)}")
    try:
        tasks = load_user_tasks(tasks_file, domain=domain.name, tools=names)
    except SuiteError as e:
        raise UserError(str(e)) from None
    return UserTools(upstream, domain, user_suite(tasks), tasks_file)
