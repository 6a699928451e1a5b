"""`agentprop models list` and `agentprop serve-sim`."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.text import Text

from agentprop.cli._common import (
    UserError,
    console,
    err_console,
    listen_error,
    print_json,
    user_errors,
)
from agentprop.cli._layout import narrow_table

models_app = typer.Typer(help="Model providers and simulated agents.", no_args_is_help=True)

# provider → (how it is reached, env var of its key, python module its SDK needs)
_PROVIDER_INFO: dict[str, tuple[str, str | None, str | None]] = {
    "openai": ("OpenAI-compatible chat completions (OPENAI_BASE_URL / --base-url)",
               "OPENAI_API_KEY", "openai"),
    "openrouter": ("OpenRouter (OpenAI-compatible)", "OPENROUTER_API_KEY", "openai"),
    "anthropic": ("Anthropic Messages API (extra: agentprop[anthropic];"
                  " ANTHROPIC_BASE_URL / --base-url)", "ANTHROPIC_API_KEY", "anthropic"),
    "google": ("Google Gemini API (extra: agentprop[google]; GOOGLE_GEMINI_BASE_URL /"
               " --base-url)", "GOOGLE_API_KEY", "google.genai"),
    "local": ("GGUF models in-process through llama.cpp (extra: agentprop[local]); "
              "local/smollm2-135m or local/<path.gguf>; one request at a time per "
              "context (-o contexts=N)", None, "llama_cpp"),
    "sim": ("simulated agents, offline and deterministic", None, None),
    "sim-judge": ("simulated judges, offline", None, None),
}


def _installed(module: str | None) -> bool:
    if module is None:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def providers_info() -> list[dict[str, Any]]:
    from agentprop.models import PROVIDERS
    from agentprop.models._registry import _BUILTIN

    names = sorted(set(_BUILTIN) | set(PROVIDERS.names()))
    out = []
    for n in names:
        desc, key_env, module = _PROVIDER_INFO.get(n, ("", None, None))
        out.append({"name": n, "description": desc, "api_key_env": key_env,
                    "installed": _installed(module), "simulated": n.startswith("sim")})
    return out


def profiles_info() -> list[dict[str, Any]]:
    from agentprop.sim import PROFILES

    return [{"id": f"sim/{p.name}", **p.model_dump(), "true_rates": p.true_rates()}
            for p in PROFILES.values()]


@models_app.command("list")
@user_errors
def list_models(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List model providers and every simulated profile with its parameters."""
    providers, profiles = providers_info(), profiles_info()
    if as_json:
        print_json({"providers": providers, "sim_profiles": profiles})
        return
    t = narrow_table("provider", "key", "installed", "description",
                     title="providers (model id = provider/name)")
    for p in providers:
        t.add_row(p["name"], p["api_key_env"] or "-", "yes" if p["installed"] else "no",
                  escape(p["description"]))
    console.print(t)
    console.print()
    s = narrow_table("model\n(verbosity)", title="simulated agents (sim/<profile>)")
    for col in ("no\ntool", "notice", "correct\nanyway", "base\nerror", "uncertain\nwords",
                "heed\nwarning", "r_23"):
        s.add_column(col, justify="right", no_wrap=True)
    for p in profiles:
        s.add_row(Text(f"{p['id']}\n({p['verbosity']})"), f"{p['p_no_tool']:.2f}",
                  f"{p['p_notice']:.2f}", f"{p['p_correct_anyway']:.2f}",
                  f"{p['base_error']:.2f}", f"{p['p_uncertain_words']:.2f}",
                  f"{p['p_heed_warning']:.2f}", f"{p['true_rates']['r_23']:.3f}")
    console.print(s)


def _parse_faults(text: str) -> tuple[str, ...]:
    from agentprop.sim._server import FAULT_TYPES

    faults = tuple(f.strip() for f in text.split(",") if f.strip())
    for f in faults:
        if f not in FAULT_TYPES:
            raise UserError(f"unknown fault type {f!r} (known: {', '.join(FAULT_TYPES)})")
    return faults


@user_errors
def serve_sim(
    port: int = typer.Option(8768, "--port", envvar="AGENTPROP_SIM_PORT", help="TCP port."),
    host: str = typer.Option("127.0.0.1", "--host", envvar="AGENTPROP_SIM_HOST",
                             help="Interface to bind (loopback by default)."),
    latency_ms: float = typer.Option(0.0, "--latency-ms", help="Added latency per call."),
    fail_rate: float = typer.Option(0.0, "--fail-rate", help="Share of calls that fail."),
    faults: str = typer.Option("429,500,timeout,malformed", "--faults",
                               help="Fault types to draw from (comma separated)."),
    retry_after: float = typer.Option(1.0, "--retry-after", help="Retry-After of a 429 (s)."),
    hold_s: float = typer.Option(300.0, "--hold-s", help="How long a timeout fault holds."),
    fault_seed: int = typer.Option(0, "--fault-seed", help="Seed of the fault draws."),
    rpm: float = typer.Option(None, "--rpm", help="Requests per minute; 429 above it."),
    tpm: float = typer.Option(None, "--tpm",
                              help="Tokens per minute (prompt + completion); 429 above it."),
    alias: list[str] = typer.Option(
        [], "--alias", help="Serve a real model name with a sim profile, NAME=PROFILE "
        "(repeatable), e.g. gpt-4o-mini=balanced."),
    default_profile: str = typer.Option(
        None, "--default-profile",
        help="Profile answering any model name that is neither a profile nor an alias."),
    answer_judges: bool = typer.Option(
        False, "--answer-judges", help="Answer LLM-judge prompts YES/NO with the exact "
        "simulated judge (as `experiment run --rehearse` does)."),
    suite_file: Path = typer.Option(None, "--suite", envvar="AGENTPROP_SUITE",
                                    help="Suite JSONL file (default: built-in)."),
    quirk: list[str] = typer.Option(
        [], "--quirk", help="Imitate a real server's tool-calling failure (repeatable): "
        "drop-tools, json-content, empty-reply, default-none, errors-as-500 "
        "(docs/real-servers.md)."),
) -> None:
    """Serve the sim profiles over the OpenAI (/v1/chat/completions), Anthropic
    (/v1/messages) and Gemini (/v1beta/models/<profile>:generateContent) APIs."""
    from agentprop.sim._server import ServerConfig, SimServer
    from agentprop.suite import load_suite

    if not 0 <= port <= 65535:
        raise UserError(f"invalid port {port}")
    if not 0.0 <= fail_rate <= 1.0:
        raise UserError(f"invalid --fail-rate {fail_rate:g}: must be between 0 and 1")
    if latency_ms < 0:
        raise UserError("--latency-ms must be >= 0")
    if retry_after < 0 or hold_s < 0:
        raise UserError("--retry-after and --hold-s must be >= 0")
    aliases: dict[str, str] = {}
    for pair in alias:
        name, sep, profile = pair.partition("=")
        if not sep or not name.strip() or not profile.strip():
            raise UserError(f"invalid --alias {pair!r}: expected NAME=PROFILE")
        aliases[name.strip()] = profile.strip()
    try:
        config = ServerConfig(host=host, port=port, latency_ms=latency_ms, fail_rate=fail_rate,
                              faults=_parse_faults(faults), retry_after_s=retry_after,
                              hold_s=hold_s, fault_seed=fault_seed, rpm=rpm, tpm=tpm,
                              aliases=aliases, default_profile=default_profile,
                              answer_judges=answer_judges, quirks=tuple(quirk))
    except ValueError as e:
        raise UserError(str(e)) from None
    suite = load_suite(suite_file)

    try:
        server = SimServer(config, suite=suite)
    except ValueError as e:  # an alias or default naming no profile
        raise UserError(str(e)) from None

    async def _serve() -> None:
        try:
            await server.start()
        except OSError as e:  # a bad host or a port in use: before any banner is printed
            raise listen_error(host, port, e) from None
        quirks = f"; quirks {', '.join(quirk)}" if quirk else ""
        err_console.print(f"serve-sim: http://{host}:{server.port}/v1 (models: sim profiles;"
                          f" latency {latency_ms:g} ms, fail rate {fail_rate:g}{quirks})",
                          highlight=False, soft_wrap=True)
        try:
            await server.serve_forever()
        finally:
            await server.close()

    asyncio.run(_serve())


@user_errors
def serve_local(
    model: str = typer.Argument("local/smollm2-135m", help="A local/ model id."),
    port: int = typer.Option(8077, "--port", envvar="AGENTPROP_LOCAL_PORT", help="TCP port."),
    option: list[str] = typer.Option(
        [], "--model-option", "-o",
        help="Model option KEY=VALUE (repeatable): n_ctx, n_threads, max_tokens, chat_format."),
) -> None:
    """Serve a local model through llama-cpp-python's OpenAI-compatible server on
    127.0.0.1, with agentprop's chat handler: `openai/<name> --base-url` then gives the
    same replies as `local/<name>`, and any agent framework can use it offline."""
    import socket

    import uvicorn

    from agentprop.cli._run import _parse_options
    from agentprop.models._local_server import prepare

    if not 1 <= port <= 65535:
        raise UserError(f"invalid port {port}")
    if not model.startswith("local/"):
        raise UserError(f"serve-local serves local/ models, not {model!r}")
    with socket.socket() as probe:  # a port in use: one line, before the model loads
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as e:
            raise UserError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}; "
                            "choose another with --port") from None
    app_, alias = prepare(model, port=port, options=_parse_options(option))
    err_console.print(f"serve-local: http://127.0.0.1:{port}/v1 (use --model openai/{alias}"
                      f" --base-url http://127.0.0.1:{port}/v1)", highlight=False,
                      soft_wrap=True)
    uvicorn.run(app_, host="127.0.0.1", port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main app."""
    app.add_typer(models_app, name="models")
    app.command("serve-sim")(serve_sim)
    app.command("serve-local")(serve_local)
