"""JSON on the hook path without `import json`: the C scanner and encoder of `_json`.

`import json` compiles regexes and costs more than a routing decision, so the hook
path and the permission rules parse and write JSON through `_json` directly.
Output is ASCII-only (`\\uXXXX` escapes), so it survives any stdout encoding.
"""

from __future__ import annotations

import sys

from ctxmode.errors import CtxmodeError

_WHITESPACE = " \t\n\r"


class MalformedJSON(CtxmodeError, ValueError):
    """Text that is not one JSON value; the message says where it went wrong."""


class _ScannerContext:
    """The attributes `_json.make_scanner` reads (what `json.JSONDecoder` would provide)."""

    strict = False  # hosts may send raw control characters inside strings
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_scan_once = None
_encode = None


def loads(text: str) -> object:
    """Parse one JSON document (whitespace around it allowed); ValueError otherwise."""
    global _scan_once
    if _scan_once is None:
        import _json

        # The stub asks for a JSONDecoder; the C scanner only reads the attributes above.
        _scan_once = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan_once(text, start)
    except StopIteration as stop:
        raise MalformedJSON(f"malformed JSON at offset {stop.value}") from None
    except RecursionError:
        raise MalformedJSON("malformed JSON: nested too deeply") from None
    except ValueError as error:
        raise MalformedJSON(f"malformed JSON: {str(error)[:120]}") from None
    except SystemError:
        # The C scanner builds some errors from json.decoder, which it expects to be
        # imported already; import it (error path only) and scan again for the message.
        if "json.decoder" in sys.modules:
            raise MalformedJSON("malformed JSON") from None
        import json.decoder  # noqa: F401

        return loads(text)
    if text[end:].strip(_WHITESPACE):
        raise MalformedJSON(f"malformed JSON: extra data at offset {end}")
    return value


def _fallback(value: object) -> object:
    """Values JSON cannot hold are written as their string form rather than failing."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def dumps(value: object) -> str:
    """One-line JSON text for dicts, lists, strings, numbers, booleans and None."""
    global _encode
    if _encode is None:
        import _json

        _encode = _json.make_encoder(
            None,  # no cycle detection: we only encode trees we built
            _fallback,
            _json.encode_basestring_ascii,
            None,  # no indent
            ":",
            ",",
            False,  # sort_keys
            False,  # skipkeys
            True,  # allow_nan (never produced by us; tolerated from payload echoes)
        )
    return "".join(_encode(value, 0))
