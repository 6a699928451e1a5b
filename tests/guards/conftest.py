"""The serve-sim fixtures of tests/external (an OpenAI-compatible LLM on loopback), reused."""

from tests.external.conftest import openai_env, sim_url

__all__ = ["openai_env", "sim_url"]
