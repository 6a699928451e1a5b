"""Shared pieces of the hostile-input probes: raw HTTP, a labelled workspace, the CLI."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.store import Workspace
from tests.judges.conftest import CALENDAR, MEDICAL, RETAIL, WEATHER, make_trace

ESC = "\x1b"
TERMINAL_ATTACK = f"{ESC}]0;pwned{ESC}\\{ESC}[2J"  # set the window title, clear the screen


def raw_http(port: int, request: bytes, *, timeout: float = 10.0) -> bytes:
    """Send `request` as is and read the whole answer (until the server closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        chunks = []
        try:
            while data := s.recv(65536):
                chunks.append(data)
        except (ConnectionResetError, TimeoutError):
            pass
    return b"".join(chunks)


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/") else 0


def seconds_until_closed(port: int, partial: bytes, *, limit: float = 15.0) -> float:
    """Send a partial request, then wait for the server to hang up; the seconds it took."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as s:
        s.sendall(partial)
        try:
            while s.recv(65536):
                pass
        except (ConnectionResetError, TimeoutError):
            pass
    return time.monotonic() - start


def labelled_workspace(path: Path, *, answer: str = "Tomorrow in London: 14°C, light rain."
                       ) -> Workspace:
    """Five traces of the judge tests' hand-made tasks, all in the label sample."""
    ws = Workspace(path)
    traces = [
        make_trace("tr-a", WEATHER, answer),
        make_trace("tr-b", MEDICAL, "Severity high."),
        make_trace("tr-c", RETAIL, "$74.97"),
        make_trace("tr-d", CALENDAR, "Two events."),
        make_trace("tr-e", WEATHER, "No idea."),
    ]
    ws.put_traces(traces)
    ws.put_label_sample([{"trace_id": t.id, "position": i, "stratum": "s"}
                         for i, t in enumerate(traces)])
    return ws


@contextmanager
def serving(server: Any) -> Iterator[int]:
    """A label server (make_server) serving in a thread; yields its port."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()


def invoke(*args: str, **env: str | None) -> Any:
    """The CLI in-process; `env` entries set (or with None, unset) variables."""
    return CliRunner().invoke(app, list(args), env={"AGENTPROP_WORKSPACE": None, **env})


def one_line_error(result: Any) -> str:
    """The single stderr line of a failed command (no traceback, non-zero exit)."""
    assert result.exit_code not in (0, None), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception))
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:")
    return lines[0]


def cli_process(*args: str, env: dict[str, str] | None = None, **popen: Any
                ) -> subprocess.Popen[str]:
    """`agentprop ARGS` as a real process (signals, concurrency)."""
    full = {**os.environ, **(env or {})}
    return subprocess.Popen([sys.executable, "-c", "from agentprop.cli import main; main()",
                             *args], env=full, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **popen)


LONE_SURROGATE = "\\ud83d"
"""A lone UTF-16 surrogate as JSON spells it: valid JSON, text UTF-8 cannot encode."""


@contextmanager
def canned_openai(answer: Any) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions server on loopback whose every answer is `answer(request)`, raw
    JSON text (so it can hold what json.dumps never writes, such as a lone surrogate);
    yields (base URL, the requests it received)."""
    import json
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            request = json.loads(body)
            seen.append(request)
            data = answer(request).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


class RawMcp:
    """A minimal MCP client over streamable HTTP that sends request bodies as given (raw
    JSON text, e.g. with a lone surrogate, which the SDK's client cannot send)."""

    def __init__(self, url: str, *, headers: dict[str, str] | None = None) -> None:
        import httpx

        self.url = url
        self.http = httpx.Client(timeout=30)
        self.headers = {"accept": "application/json, text/event-stream",
                        "content-type": "application/json", **(headers or {})}
        self.session: str | None = None
        self._id = 0

    def post(self, body: str | bytes, **headers: str) -> Any:
        h = {**self.headers, **headers}
        if self.session:
            h["mcp-session-id"] = self.session
        return self.http.post(self.url, content=body, headers=h)

    def request(self, method: str, params_json: str) -> Any:
        self._id += 1
        return self.post(f'{{"jsonrpc":"2.0","id":{self._id},"method":"{method}",'
                         f'"params":{params_json}}}')

    def initialize(self) -> Any:
        r = self.request("initialize", '{"protocolVersion":"2025-06-18","capabilities":{},'
                         '"clientInfo":{"name":"raw","version":"0"}}')
        if r.status_code == 200:
            self.session = r.headers.get("mcp-session-id")
            self.post('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        return r

    def tools(self) -> list[str]:
        return [t["name"] for t in self.request("tools/list", "{}").json()["result"]["tools"]]

    def call(self, name: str, arguments_json: str) -> Any:
        return self.request("tools/call", f'{{"name":"{name}","arguments":{arguments_json}}}')

    def close(self) -> None:
        self.http.close()
