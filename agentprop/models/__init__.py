"""Model providers behind one protocol: openai-compatible, anthropic, google, sim."""

from agentprop.models._base import GenerateConfig, Model, ModelError
from agentprop.models._cache import CacheStore, ResponseCache, clean_output, request_key
from agentprop.models._limits import AdaptiveConcurrency, Limiter, RateLimits, TokenBucket
from agentprop.models._prices import DEFAULT_PRICES, PriceError, PriceTable
from agentprop.models._provider import check_base_url
from agentprop.models._registry import (
    PROVIDERS,
    check_model_id,
    get_model,
    register_provider,
    split_model_id,
)
from agentprop.models._retry import RetryableError, RetryPolicy

__all__ = [
    "DEFAULT_PRICES",
    "PROVIDERS",
    "AdaptiveConcurrency",
    "CacheStore",
    "GenerateConfig",
    "Limiter",
    "Model",
    "ModelError",
    "PriceError",
    "PriceTable",
    "RateLimits",
    "ResponseCache",
    "RetryPolicy",
    "RetryableError",
    "TokenBucket",
    "check_base_url",
    "check_model_id",
    "clean_output",
    "get_model",
    "register_provider",
    "request_key",
    "split_model_id",
]
