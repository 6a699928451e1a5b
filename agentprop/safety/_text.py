"""Text that UTF-8 cannot encode: lone UTF-16 surrogates, replaced, counted, never fatal.

JSON may spell a lone surrogate (``"\\ud83d"``) and Python decodes it into a `str`; so can
a provider's answer, an external agent's answer or an MCP argument, and an undecodable
byte of a command-line argument arrives as one (``surrogateescape``). Such a string
cannot be encoded as UTF-8: the trace writer's JSON, SQLite and every HTTP client fail on
it, and a response cache that kept it crashed every rerun the same way. So text is
cleaned where it enters (a provider's answer, the cache, the MCP boundary, the gateway)
and again where it is stored: each lone surrogate becomes U+FFFD, and the number replaced
is recorded with the record (``replaced_code_points``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
M = TypeVar("M", bound="BaseModel")


def utf8_clean(value: Any) -> tuple[Any, int]:
    """`value` (text, or dicts, lists and tuples of it) with every code point UTF-8 cannot
    encode replaced by U+FFFD, and how many were replaced. Unchanged values are returned
    as they are (no copy)."""
    if isinstance(value, str):
        if value.isascii():
            return value, 0
        return _SURROGATE.subn(REPLACEMENT, value)
    if isinstance(value, dict):
        total = 0
        out: dict[Any, Any] = {}
        for k, v in value.items():
            k2, n1 = utf8_clean(k)
            v2, n2 = utf8_clean(v)
            out[k2] = v2
            total += n1 + n2
        return (out, total) if total else (value, 0)
    if isinstance(value, list | tuple):
        cleaned = [utf8_clean(v) for v in value]
        total = sum(n for _, n in cleaned)
        if not total:
            return value, 0
        items = [v for v, _ in cleaned]
        return (items if isinstance(value, list) else tuple(items)), total
    return value, 0


def utf8_clean_model(model: M) -> tuple[M, int]:
    """`model` with its text cleaned by `utf8_clean` (revalidated only when something
    was replaced), and the count."""
    cleaned, _, n = encodable_json(model)
    return cleaned, n


def encodable_json(model: M) -> tuple[M, str, int]:
    """(model, its JSON, code points replaced): the JSON as is when it can be written
    (the common case costs only the serialisation), else of the model with its text
    cleaned by `utf8_clean`."""
    from pydantic_core import PydanticSerializationError

    try:
        return model, model.model_dump_json(), 0
    except PydanticSerializationError:
        data, n = utf8_clean(model.model_dump(round_trip=True))
        cleaned = type(model).model_validate(data)
        return cleaned, cleaned.model_dump_json(), n
