"""The interceptor's configuration: thresholds per layer, mode, keyword list."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_KEYWORDS: tuple[str, ...] = (
    "error",
    "invalid",
    "unknown",
    "missing",
    "incorrect",
    "wrong",
    "cannot",
)
"""The paper's uncertainty keywords (L2), matched as whole words, case-insensitive."""

InterceptMode = Literal["abstain", "warn"]


class InterceptConfig(BaseModel):
    """Thresholds of the three layers and what to do when one fires.

    L1 fires when the episode has at least `tau_l1` tool error observations; L2 when the
    agent's reasoning text contains at least `tau_l2` keyword occurrences; L3 (if `l3`)
    when the final answer states a number no observation supports.
    """

    model_config = ConfigDict(frozen=True)

    tau_l1: int = Field(default=1, ge=1)
    tau_l2: int = Field(default=2, ge=1)
    l3: bool = True
    # Off: the layer never fires (a one-layer mitigation, `abstain_l2`). Left out of the
    # stored form when on, so configurations stored before the flags keep their identity.
    l1: bool = Field(default=True, exclude_if=lambda on: on is True)
    l2: bool = Field(default=True, exclude_if=lambda on: on is True)
    mode: InterceptMode = "abstain"
    keywords: tuple[str, ...] = DEFAULT_KEYWORDS

    @property
    def label(self) -> str:
        """The thresholds in the CLI's `--config` syntax (mode and keywords left out)."""
        off = "".join(f",{n}=off" for n, on in (("l1", self.l1), ("l2", self.l2)) if not on)
        return (f"tau_l1={self.tau_l1},tau_l2={self.tau_l2},l3={'on' if self.l3 else 'off'}"
                f"{off}")

    def keyword_pattern(self) -> re.Pattern[str]:
        words = sorted({k.strip().lower() for k in self.keywords if k.strip()}, key=len)
        if not words:
            return re.compile(r"(?!x)x")  # matches nothing
        alternation = "|".join(re.escape(w) for w in reversed(words))
        return re.compile(rf"\b(?:{alternation})\b", re.IGNORECASE)


def default_configs(mode: InterceptMode = "abstain") -> list[InterceptConfig]:
    """The sweep's 12 configurations: τ_L1 ∈ {1,2,3} × τ_L2 ∈ {2,3} × L3 on/off."""
    return [
        InterceptConfig(tau_l1=t1, tau_l2=t2, l3=l3, mode=mode)
        for t1 in (1, 2, 3)
        for t2 in (2, 3)
        for l3 in (True, False)
    ]


_ON = {"on", "true", "yes", "1"}
_OFF = {"off", "false", "no", "0"}


def parse_config(spec: str, base: InterceptConfig | None = None) -> InterceptConfig:
    """Parse "tau_l1=1,tau_l2=2,l3=on[,mode=warn]" on top of `base` (default config).

    Raises ValueError with a one-line message on bad input.
    """
    values = (base or InterceptConfig()).model_dump()
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        key, sep, raw = part.partition("=")
        key, raw = key.strip().lower(), raw.strip().lower()
        if not sep or not raw:
            raise ValueError(f"bad interceptor setting {part!r}: expected key=value")
        if key in ("tau_l1", "tau_l2"):
            if not raw.isdigit() or int(raw) < 1:
                raise ValueError(f"{key} must be a positive integer, got {raw!r}")
            values[key] = int(raw)
        elif key in ("l1", "l2", "l3"):
            if raw not in _ON | _OFF:
                raise ValueError(f"{key} must be on or off, got {raw!r}")
            values[key] = raw in _ON
        elif key == "mode":
            if raw not in ("abstain", "warn"):
                raise ValueError(f"mode must be abstain or warn, got {raw!r}")
            values["mode"] = raw
        else:
            raise ValueError(
                f"unknown interceptor setting {key!r} (use tau_l1, tau_l2, l1, l2, l3, "
                "mode)"
            )
    return InterceptConfig.model_validate(values)
