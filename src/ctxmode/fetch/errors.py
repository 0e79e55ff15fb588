"""The one exception the fetch package raises: a one-line message fit to show the model."""

from __future__ import annotations

from ctxmode.errors import CtxmodeError


class FetchError(CtxmodeError):
    """A URL could not be fetched or indexed; `str(error)` is one line, never a traceback."""


def one_line(text: object, limit: int = 300) -> str:
    """Collapse whitespace so a library's multi-line message stays one short line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
