"""ctxmode: keep an AI coding agent's context window for thinking, not raw bytes.

This module stays import-free: the hook path imports it on every tool call.
"""

__version__ = "0.1.0"
