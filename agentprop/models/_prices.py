"""An editable price table: USD per 1M input / output tokens, and the cost of one call.

Edit `DEFAULT_PRICES` or point ``AGENTPROP_PRICES`` at a JSON or YAML file mapping a model
name to ``{"input": x, "output": y}`` (or ``[x, y]``); entries there override the defaults.
Names are matched exactly, then after dropping a vendor prefix (``openai/gpt-4o`` on
OpenRouter), then by the longest known prefix (``gpt-4o-mini-2024-07-18`` → gpt-4o-mini).
Unknown models cost 0.0: cost is informative, never a reason to fail a run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentprop.core import Usage
from agentprop.models._base import ModelError

# List prices (USD per 1M tokens: input, output), standard tier, mid-2025.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o1": (15.00, 60.00),
    "o1-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gemini-2.0-flash": (0.10, 0.40),
    "gemini-2.0-flash-lite": (0.075, 0.30),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
    "deepseek-v3": (0.27, 1.10),
    "deepseek-chat": (0.27, 1.10),
    "claude-3-haiku": (0.25, 1.25),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-haiku-4-5": (1.00, 5.00),
}


class PriceError(ModelError):
    """A price table that cannot be read; one line for the user (kind "config")."""

    def __init__(self, message: str) -> None:
        super().__init__("config", message)


def _parse_entry(name: str, value: Any) -> tuple[float, float]:
    if isinstance(value, Mapping):
        pair = (value.get("input"), value.get("output"))
    elif isinstance(value, list | tuple) and len(value) == 2:
        pair = (value[0], value[1])
    else:
        raise PriceError(f"price for {name!r} must be {{input: x, output: y}} or [x, y]")
    try:
        return float(pair[0]), float(pair[1])  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise PriceError(f"price for {name!r} is not numeric") from None


def load_price_file(path: str | Path) -> dict[str, tuple[float, float]]:
    """Read a user price file (JSON, or YAML by extension)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PriceError(f"cannot read price file {path}: {e.strerror or e}") from None
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as e:
        raise PriceError(f"price file {path} is not valid: {e}") from None
    if not isinstance(data, Mapping):
        raise PriceError(f"price file {path} must map model names to prices")
    return {str(k): _parse_entry(str(k), v) for k, v in data.items()}


class PriceTable:
    """Model name → (input, output) USD per 1M tokens, with forgiving name matching."""

    def __init__(self, prices: Mapping[str, Any] | None = None) -> None:
        self.prices: dict[str, tuple[float, float]] = dict(DEFAULT_PRICES)
        env_path = os.environ.get("AGENTPROP_PRICES")
        if env_path:
            self.prices.update(load_price_file(env_path))
        if prices:
            self.prices.update({k: _parse_entry(k, v) for k, v in prices.items()})

    def lookup(self, model: str) -> tuple[float, float] | None:
        for name in (model, model.rsplit("/", 1)[-1]):
            if name in self.prices:
                return self.prices[name]
        short = model.rsplit("/", 1)[-1]
        best = max((k for k in self.prices if short.startswith(k)), key=len, default=None)
        return self.prices[best] if best else None

    def cost(self, model: str, usage: Usage) -> float:
        price = self.lookup(model)
        if price is None:
            return 0.0
        return (usage.input_tokens * price[0] + usage.output_tokens * price[1]) / 1_000_000


def price_table(prices: Any = None) -> PriceTable:
    """A PriceTable from a `prices` option: None, a mapping of overrides, or a PriceTable."""
    if isinstance(prices, PriceTable):
        return prices
    return PriceTable(prices)
