"""Fetching URLs safely (SSRF policy, pinned HTTP, redirects re-checked) into indexable text.

Import-free: `from ctxmode.fetch import fetch_document` loads the service module on first use.
"""

from __future__ import annotations

from typing import Any

_PUBLIC = frozenset(
    {
        "FetchCache",
        "FetchError",
        "FetchOutcome",
        "FetchedDocument",
        "classify_address",
        "fetch_and_index",
        "fetch_document",
    }
)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        from ctxmode.fetch import service

        return getattr(service, name)
    raise AttributeError(f"module 'ctxmode.fetch' has no attribute {name!r}")
