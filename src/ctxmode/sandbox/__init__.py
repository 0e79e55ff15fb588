"""Running code for the agent: runtimes, a process-group sandbox, and output shaped for context.

Standard library only (no MCP). The names below are the public surface.
"""

from ctxmode.sandbox.batch import BatchResult, BatchSection, run_batch
from ctxmode.sandbox.files import FileAccessError, PathOutsideProjectError, resolve_file_in_project
from ctxmode.sandbox.process import stop_background_processes
from ctxmode.sandbox.runner import ExecResult, run_code, run_file
from ctxmode.sandbox.runtimes import RuntimeMissingError
from ctxmode.sandbox.shaping import (
    Knowledge,
    Passage,
    ShapedReply,
    StoreKnowledge,
    shape_output,
    unique_label,
)
from ctxmode.vocab.languages import SUPPORTED_LANGUAGES

__all__ = [
    "SUPPORTED_LANGUAGES",
    "BatchResult",
    "BatchSection",
    "ExecResult",
    "FileAccessError",
    "Knowledge",
    "Passage",
    "PathOutsideProjectError",
    "RuntimeMissingError",
    "ShapedReply",
    "StoreKnowledge",
    "resolve_file_in_project",
    "run_batch",
    "run_code",
    "run_file",
    "shape_output",
    "stop_background_processes",
    "unique_label",
]
