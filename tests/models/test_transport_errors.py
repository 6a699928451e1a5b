"""Transport failures of the Gemini SDK's HTTP client are transient: retried, not fatal."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agentprop.models import GenerateConfig, ModelError, get_model
from agentprop.models._retry import RetryableError

pytest.importorskip("google.genai")


def _client(exc: BaseException) -> object:
    async def generate_content(**_: object) -> object:
        raise exc

    return SimpleNamespace(aio=SimpleNamespace(models=SimpleNamespace(
        generate_content=generate_content)))


@pytest.mark.parametrize("mod", ["httpx", "httpx2"])
@pytest.mark.parametrize("name", ["ReadError", "RemoteProtocolError", "WriteError"])
async def test_google_transport_errors_are_retryable(mod, name):
    httpx = pytest.importorskip(mod)
    m = get_model("google/gemini-x", base_url="http://127.0.0.1:9")
    exc = getattr(httpx, name)("connection reset by peer")
    with pytest.raises(RetryableError) as ei:
        await m._attempt(_client(exc), [], [], GenerateConfig())  # type: ignore[attr-defined]
    assert ei.value.kind == "connection"


async def test_google_programming_error_is_not_retried():
    m = get_model("google/gemini-x", base_url="http://127.0.0.1:9")
    with pytest.raises(ModelError):
        await m._attempt(_client(TypeError("bad arg")), [], [],  # type: ignore[attr-defined]
                         GenerateConfig())
