"""One-line ASCII JSON for host envelopes (see `ctxmode.fastjson`)."""

from ctxmode.fastjson import dumps

__all__ = ["dumps"]
