"""Rules for untrusted input and output, one home each (SECURITY.md lists them).

- `host_allowed`: the Host allow-list every local agentprop server applies against DNS
  rebinding (label app, serve-sim; the MCP tool server and gateway reuse it).
- `cross_site_refusal` / `json_refusal`: writes from another site (Origin,
  Sec-Fetch-Site) and bodies not declared JSON are refused.
- `redact_url` / `redact_urls` / `url_credentials`: credentials in URLs never reach a
  message or a log (found by the URL's structure, not a pattern of characters).
- `neutralise_cell` / `restore_cell`: spreadsheet formulas in CSV exports;
  `markdown_cell`: HTML, links and control characters in Markdown tables.
- `term_safe` / `has_control_chars`: stored text never drives the user's terminal.
- `utf8_clean` / `utf8_clean_model` / `encodable_json`: text UTF-8 cannot encode (lone
  surrogates) is replaced and counted, never fatal to a writer, a cache or an HTTP client.

Imports nothing of ours, so every layer may use it.
"""

from agentprop.safety._cells import (
    FORMULA_PREFIXES,
    markdown_cell,
    neutralise_cell,
    restore_cell,
)
from agentprop.safety._hosts import (
    MISDIRECTED,
    allowed_hosts,
    cross_site_refusal,
    host_allowed,
    json_refusal,
)
from agentprop.safety._terminal import has_control_chars, term_safe
from agentprop.safety._text import REPLACEMENT, encodable_json, utf8_clean, utf8_clean_model
from agentprop.safety._urls import redact_url, redact_urls, url_credentials

__all__ = [
    "FORMULA_PREFIXES",
    "MISDIRECTED",
    "REPLACEMENT",
    "allowed_hosts",
    "cross_site_refusal",
    "encodable_json",
    "has_control_chars",
    "host_allowed",
    "json_refusal",
    "markdown_cell",
    "neutralise_cell",
    "redact_url",
    "redact_urls",
    "restore_cell",
    "term_safe",
    "url_credentials",
    "utf8_clean",
    "utf8_clean_model",
]
