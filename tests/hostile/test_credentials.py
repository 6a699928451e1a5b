"""Passwords in base URLs never reach a message: every command that takes a base URL,
with the URL bad, unreachable, or failing inside the SDK."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from urllib.parse import quote

import pytest

from agentprop.models import ModelError, get_model
from agentprop.safety import redact_url, redact_urls
from tests.hostile._helpers import invoke, labelled_workspace, one_line_error

PASSWORD = "hunter2-s3cret"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _url(port: int | str) -> str:
    return f"http://alice:{PASSWORD}@127.0.0.1:{port}/v1"


def _no_secret(result: object) -> str:
    line = one_line_error(result)
    assert PASSWORD not in result.output + result.stderr  # type: ignore[attr-defined]
    assert "alice" not in line
    return line


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(var, "sk-test-not-a-key")
    for var in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("port", ["99999", "abc"])
def test_run_with_a_bad_port(tmp_path: Path, port: str) -> None:
    line = _no_secret(invoke("run", "-m", "openai/gpt-4o-mini", "-w", str(tmp_path / "w"),
                             "-n", "1", "--base-url", _url(port)))
    assert "invalid base URL" in line and "***@127.0.0.1" in line
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("provider,var", [("openai", "OPENAI_BASE_URL"),
                                          ("anthropic", "ANTHROPIC_BASE_URL"),
                                          ("google", "GOOGLE_GEMINI_BASE_URL")])
def test_run_with_an_unreachable_url_from_the_environment(tmp_path: Path, provider: str,
                                                          var: str) -> None:
    line = _no_secret(invoke("run", "-m", f"{provider}/m", "-w", str(tmp_path / "w"), "-n",
                             "1", **{var: _url(_closed_port())}))
    assert "cannot connect to http://***@127.0.0.1:" in line


def test_run_with_an_unreachable_url_option(tmp_path: Path) -> None:
    line = _no_secret(invoke("run", "-m", "openai/m", "-w", str(tmp_path / "w"), "-n", "1",
                             "--base-url", _url(_closed_port())))
    assert "cannot connect to http://***@127.0.0.1:" in line


@pytest.mark.parametrize("url", [f"http://alice:{PASSWORD}@[::1", _url(99999)])
def test_judge_with_an_invalid_url_in_the_environment(tmp_path: Path, url: str) -> None:
    labelled_workspace(tmp_path / "w").close()
    line = _no_secret(invoke("judge", "-w", str(tmp_path / "w"), "-j", "llm:openai/m",
                             OPENAI_BASE_URL=url))
    assert "invalid base URL" in line


def test_judge_with_an_unreachable_url(tmp_path: Path) -> None:
    labelled_workspace(tmp_path / "w").close()
    line = _no_secret(invoke("judge", "-w", str(tmp_path / "w"), "-j", "llm:openai/m",
                             OPENAI_BASE_URL=_url(_closed_port())))
    assert "cannot connect to http://***@127.0.0.1:" in line


def test_judge_when_the_sdk_itself_cannot_connect(tmp_path: Path) -> None:
    """The SDK's own connection error (met when no probe ran, or the server went away)
    is redacted where it is made, so no message built from it holds the password."""
    from agentprop.judges import JudgeUnavailableError, judge_workspace
    from agentprop.suite import Suite
    from tests.judges.conftest import TASKS

    ws = labelled_workspace(tmp_path / "w")
    with pytest.raises(JudgeUnavailableError) as e:
        judge_workspace(ws, ["llm:openai/m"], suite=Suite(list(TASKS), seed=0), progress=False,
                        model_options={"base_url": _url(_closed_port()), "max_attempts": 1})
    assert PASSWORD not in str(e.value) and "http://***@127.0.0.1:" in str(e.value)


def test_run_when_the_sdk_itself_cannot_connect(tmp_path: Path) -> None:
    line = _no_secret(invoke("run", "-m", "openai/m", "-w", str(tmp_path / "w"), "-n", "2",
                             "-o", "max_attempts=1", "--base-url", _url(_closed_port()),
                             NO_PROXY="*"))
    assert "http://***@127.0.0.1:" in line


def test_intercept_evaluate_with_an_unreachable_url(tmp_path: Path) -> None:
    line = _no_secret(invoke("intercept", "evaluate", "-w", str(tmp_path / "w"), "-m",
                             "openai/m", "--config", "l1=1,l2=2,l3=on",
                             OPENAI_BASE_URL=_url(_closed_port())))
    assert "cannot connect to http://***@127.0.0.1:" in line


@pytest.mark.parametrize("port", ["99999", "closed"])
def test_experiment_with_a_credential_url(tmp_path: Path, port: str) -> None:
    real = str(_closed_port()) if port == "closed" else port
    config = tmp_path / "study.yaml"
    config.write_text(
        "name: cred\nmodels:\n  - id: openai/m\n    base_url: " + _url(real) + "\n"
        "runs:\n  - name: r\n    models: [openai/m]\n    n: 1\njudges: [facts]\n")
    line = _no_secret(invoke("experiment", "run", str(config), "-w", str(tmp_path / "w")))
    assert "***@127.0.0.1" in line
    assert not (tmp_path / "w").exists()


def test_models_never_show_the_password() -> None:
    model = get_model("openai/m", base_url=_url(8000))
    assert PASSWORD not in repr(model) and PASSWORD not in model.where  # type: ignore[attr-defined]
    with pytest.raises(ModelError) as e:
        get_model("openai/m", base_url=f"http://alice:{PASSWORD}@host:port/v1")
    assert PASSWORD not in e.value.message and "invalid base URL" in e.value.message


def test_redaction_rules() -> None:
    assert redact_url(_url(1)) == "http://***@127.0.0.1:1/v1"
    assert redact_url("https://api.example.com/v1") == "https://api.example.com/v1"
    assert redact_url(f"http://a:{PASSWORD}@[::1") == "http://***@[::1"
    # a "/" in the password (not percent-encoded) does not let its tail through
    assert PASSWORD not in redact_url(f"http://a:x/{PASSWORD}@h/v1")
    text = f"cannot reach '{_url(1)}' nor https://bob:pw@example.com/x, see http://ok/"
    assert redact_urls(text) == ("cannot reach 'http://***@127.0.0.1:1/v1' nor "
                                 "https://***@example.com/x, see http://ok/")


# Passwords a pattern of "password characters" stopped at (issue 24): the userinfo is
# found by the URL's structure, so each is hidden whole.
ODD = ["it's-" + PASSWORD, 'say"' + PASSWORD, "hash#" + PASSWORD, "what?" + PASSWORD,
       "two words " + PASSWORD, "at@" + PASSWORD, "sl/ash" + PASSWORD]


@pytest.mark.parametrize("password", ODD)
def test_redaction_by_the_url_structure(password: str) -> None:
    url = f"http://alice:{password}@127.0.0.1:1/v1"
    assert redact_url(url) == "http://***@127.0.0.1:1/v1"
    text = f"cannot connect to {url} (refused); retried http://ok:8000/v1"
    assert redact_urls(text) == ("cannot connect to http://***@127.0.0.1:1/v1 (refused); "
                                 "retried http://ok:8000/v1")
    from agentprop.runner import redact_text

    quoted = f"error at 'http://alice:{quote(password, safe='')}@h/v1'"
    assert PASSWORD not in redact_text(quoted, [])


@pytest.mark.parametrize("password", ODD)
def test_odd_passwords_never_reach_an_error(tmp_path: Path, password: str) -> None:
    url = f"http://alice:{password}@127.0.0.1:{_closed_port()}/v1"
    result = invoke("run", "-m", "openai/m", "-w", str(tmp_path / "w"), "-n", "1",
                    "--base-url", url)
    assert PASSWORD not in result.output + result.stderr
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("password", ["it's-" + PASSWORD, "two words " + PASSWORD])
def test_a_run_stores_no_password(tmp_path: Path, password: str) -> None:
    """The run succeeds with these (the SDK sends them), and neither the manifest, the
    traces nor anything else in the workspace holds the password."""
    from agentprop.sim._server import ServerConfig, ServerThread

    with ServerThread(ServerConfig(port=0), suite=None) as srv:
        url = srv.base_url.replace("http://", f"http://alice:{password}@")
        result = invoke("run", "-m", "openai/balanced", "-w", str(tmp_path / "w"), "-n",
                        "2", "--base-url", url, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["completed"] == 2
    for f in (tmp_path / "w").rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert PASSWORD.encode() not in data and quote(PASSWORD).encode() not in data, f
