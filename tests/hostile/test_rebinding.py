"""DNS rebinding: a foreign page that resolves its own name to 127.0.0.1 sends its own
name as Host (and Origin). Every local server answers only to the names it was bound to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentprop.labels import make_server
from agentprop.safety import allowed_hosts, host_allowed
from agentprop.sim._server import ServerConfig, ServerThread
from agentprop.store import Workspace
from agentprop.suite import Suite
from tests.hostile._helpers import labelled_workspace, raw_http, serving, status_of
from tests.judges.conftest import TASKS

FORM = b"annotator=mallory&trace=tr-a&label=incorrect"


@pytest.fixture
def label_app(tmp_path: Path):  # type: ignore[no-untyped-def]
    labelled_workspace(tmp_path / "w").close()
    with serving(make_server(tmp_path / "w", Suite(list(TASKS), seed=0), port=0)) as port:
        yield port, tmp_path / "w"


def _post(port: int, host: str, origin: str) -> bytes:
    return raw_http(port, (
        f"POST /label HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(FORM)}\r\nConnection: close\r\n\r\n").encode() + FORM)


def _get(port: int, host: str | None, path: str = "/label?annotator=x&trace=tr-a") -> bytes:
    head = f"Host: {host}\r\n" if host is not None else ""
    return raw_http(port, f"GET {path} HTTP/1.0\r\n{head}\r\n".encode())


def test_label_app_refuses_a_rebound_post(label_app: tuple[int, Path]) -> None:
    port, wsp = label_app
    evil = f"evil.example:{port}"
    answer = _post(port, evil, f"http://{evil}")
    assert status_of(answer) == 421
    assert Workspace(wsp).labels() == []
    # the same post under our own name is stored (the check is not a blanket refusal)
    assert status_of(_post(port, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}")) == 303
    assert [lab.annotator for lab in Workspace(wsp).labels()] == ["mallory"]


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1:1",
                                  "localhost.evil.example:{port}", None])
def test_label_app_refuses_a_rebound_read(label_app: tuple[int, Path], host: str | None
                                          ) -> None:
    port, _ = label_app
    answer = _get(port, None if host is None else host.format(port=port))
    assert status_of(answer) == 421
    assert b"London" not in answer  # the question of tr-a is not shown


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_label_app_answers_its_own_names(label_app: tuple[int, Path], host: str) -> None:
    port, _ = label_app
    answer = _get(port, host.format(port=port))
    assert status_of(answer) == 200 and b"London" in answer


def test_serve_sim_refuses_a_rebound_request() -> None:
    body = json.dumps({"model": "balanced", "messages": [{"role": "user", "content": "hi"}]})
    with ServerThread(ServerConfig(port=0), suite=None) as srv:
        port = srv.server.port

        def call(host: str, path: str = "/v1/chat/completions") -> bytes:
            return raw_http(port, (
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}").encode())

        for evil in (f"evil.example:{port}", "evil.example"):
            answer = call(evil)
            assert status_of(answer) == 421, answer[:200]
            assert b"choices" not in answer
        stats = raw_http(port, f"GET /stats HTTP/1.0\r\nHost: evil.example:{port}\r\n\r\n"
                         .encode())
        assert status_of(stats) == 421 and b"by_model" not in stats
        assert srv.stats["chat_completions"] == 0  # refused before routing
        assert status_of(call(f"localhost:{port}")) == 200
        assert status_of(call(f"127.0.0.1:{port}")) == 200


def test_host_allow_list() -> None:
    assert allowed_hosts("127.0.0.1", 8765) == {
        "127.0.0.1:8765", "localhost:8765", "[::1]:8765"}
    assert host_allowed("[::1]:9", "::1", 9) and host_allowed("Localhost:9", "127.0.0.1", 9)
    # the --host value is accepted too, with its port; a wildcard bind adds only itself
    assert host_allowed("10.0.0.5:9", "10.0.0.5", 9)
    assert host_allowed("lab.internal:9", "lab.internal", 9)
    assert not host_allowed("10.0.0.5:9", "0.0.0.0", 9)
    assert host_allowed("0.0.0.0:9", "0.0.0.0", 9)
    # another port, no port, an empty or missing Host, a lookalike: refused
    for bad in ("127.0.0.1:10", "127.0.0.1", "", None, "127.0.0.1.evil.example:9",
                "localhost.:9", "evil.example:9", "127.0.0.1:9@evil.example"):
        assert not host_allowed(bad, "127.0.0.1", 9)
    # port 80: a browser omits it
    assert host_allowed("localhost", "127.0.0.1", 80)
