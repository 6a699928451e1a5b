"""serve-sim and the label app against oversize bodies, slow clients, many connections,
broken bodies and clients that hang up."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from agentprop.labels import make_server
from agentprop.sim._server import MAX_BODY, ServerConfig, ServerThread
from agentprop.store import Workspace
from agentprop.suite import Suite
from tests.hostile._helpers import (
    labelled_workspace,
    raw_http,
    seconds_until_closed,
    serving,
    status_of,
)
from tests.judges.conftest import TASKS

FIFTY_MB = 50 * 1024 * 1024
SLOW = 1.0  # the deadlines the servers get here, seconds


def _send_body(port: int, head: bytes, pieces: int, piece: bytes) -> bytes:
    """Send the head and up to `pieces` pieces (the server may stop reading), then read
    the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(head)
        try:
            for _ in range(pieces):
                s.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            return s.recv(4096)
        except ConnectionResetError:
            return b""


@pytest.fixture(scope="module")
def sim() -> ServerThread:
    with ServerThread(ServerConfig(port=0, idle_timeout_s=SLOW, header_timeout_s=SLOW,
                                   body_timeout_s=SLOW), suite=None) as srv:
        yield srv  # type: ignore[misc]


def _post_head(port: int, extra: str) -> bytes:
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\n{extra}\r\n").encode()


def test_serve_sim_refuses_an_oversize_chunked_body(sim: ServerThread) -> None:
    port = sim.server.port
    chunk = b"x" * 65536
    piece = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    answer = _send_body(port, _post_head(port, "Transfer-Encoding: chunked\r\n"),
                        FIFTY_MB // len(chunk), piece)
    assert status_of(answer) == 413, answer[:100]
    assert FIFTY_MB > MAX_BODY


def test_serve_sim_answers_413_to_an_oversize_content_length(sim: ServerThread) -> None:
    port = sim.server.port
    answer = _send_body(port, _post_head(port, f"Content-Length: {FIFTY_MB}\r\n"),
                        FIFTY_MB // 65536, b"x" * 65536)
    assert status_of(answer) == 413, answer[:100]


def test_serve_sim_still_serves_after_the_probes(sim: ServerThread) -> None:
    port = sim.server.port
    assert status_of(raw_http(port, f"GET /health HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                              .encode())) == 200


@pytest.mark.parametrize("partial", [
    b"",  # connects and says nothing
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1",  # headers never finish
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    b"Content-Length: 1000\r\n\r\n{\"model\":",  # the body never finishes
])
def test_serve_sim_hangs_up_on_a_slow_client(sim: ServerThread, partial: bytes) -> None:
    port = sim.server.port
    took = seconds_until_closed(port, partial.replace(b"{port}", str(port).encode()))
    assert took < SLOW + 3, took


@pytest.fixture
def label_app(tmp_path: Path):  # type: ignore[no-untyped-def]
    labelled_workspace(tmp_path / "w").close()
    server = make_server(tmp_path / "w", Suite(list(TASKS), seed=0), port=0,
                         max_connections=3, header_timeout_s=SLOW, body_timeout_s=SLOW)
    with serving(server) as port:
        yield port, tmp_path / "w"


@pytest.mark.parametrize("partial", [
    b"",
    b"GET /label?annotator=x HTTP/1.1\r\nHost: 127.0.0.1",
    b"POST /label HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 500\r\n\r\nannot",
])
def test_label_app_hangs_up_on_a_slow_client(label_app: tuple[int, Path], partial: bytes
                                             ) -> None:
    port, _ = label_app
    took = seconds_until_closed(port, partial.replace(b"{port}", str(port).encode()))
    assert took < SLOW + 3, took


def test_label_app_hangs_up_on_a_trickling_client(label_app: tuple[int, Path]) -> None:
    """One byte at a time, each well inside any per-read timeout: the whole-request
    deadline still ends it."""
    port, _ = label_app
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            for byte in b"GET /label?annotator=" + b"x" * 200:
                s.sendall(bytes([byte]))
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass
    assert time.monotonic() - start < SLOW + 3


def test_label_app_bounds_its_connections(label_app: tuple[int, Path]) -> None:
    port, _ = label_app
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    try:
        time.sleep(0.2)
        start = time.monotonic()
        answer = raw_http(port, f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert status_of(answer) == 503 and time.monotonic() - start < 1.0
    finally:
        for s in silent:
            s.close()
    deadline = time.monotonic() + SLOW + 3
    while True:  # the slots come back when the silent clients are gone
        answer = raw_http(port, f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        if status_of(answer) == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert status_of(answer) == 200


def _post(port: int, body: bytes, length: str | None = None) -> bytes:
    return raw_http(port, (
        f"POST /label HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
        f"Content-Length: {len(body) if length is None else length}\r\n"
        "Connection: close\r\n\r\n").encode() + body)


@pytest.mark.parametrize("body,length", [
    (b"annotator=\xff\xfe&trace=tr-a&label=correct", None),  # not UTF-8
    (b"annotator=%ff%fe&trace=tr-a&label=correct", None),  # percent-encoded, not UTF-8
    (b"annotator=x&trace=tr-a&label=correct", "abc"),  # a Content-Length that is no number
    (b"annotator=x&trace=tr-a&label=correct", "-5"),
    (b"annotator=x&trace=tr-a&label=correct", "1e3"),
])
def test_label_app_answers_400_to_a_broken_body(label_app: tuple[int, Path], body: bytes,
                                                length: str | None) -> None:
    port, wsp = label_app
    answer = _post(port, body, length)
    assert status_of(answer) == 400, answer[:200]
    assert Workspace(wsp).labels() == []


def test_label_app_survives_clients_that_hang_up(label_app: tuple[int, Path],
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    port, _ = label_app
    for _ in range(8):  # ask for a page, then reset the connection before it comes
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.sendall(f"GET /label?annotator=x&trace=tr-a HTTP/1.0\r\nHost: 127.0.0.1:{port}"
                  "\r\n\r\n".encode())
        s.close()
    time.sleep(0.5)
    answer = raw_http(port, f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert status_of(answer) == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err


def test_threads_do_not_pile_up(label_app: tuple[int, Path]) -> None:
    port, _ = label_app
    before = threading.active_count()
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
    time.sleep(0.3)
    assert threading.active_count() - before <= 3  # max_connections
    for s in silent:
        s.close()
