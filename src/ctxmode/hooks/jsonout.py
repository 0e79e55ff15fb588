"""A compact JSON encoder built on the C encoder of `_json` (no `import json` on the hook path).

Output is ASCII-only (`\\uXXXX` escapes), so it survives any stdout encoding.
"""

from __future__ import annotations

_encode = None


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
