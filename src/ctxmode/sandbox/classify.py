"""Is a finished run an error for the model? Pure rules over the run's outcome.

A shell exit 1 that printed something is how grep, diff and `test` say "no
match"/"different": it is reported as a soft failure, not an error. A timeout
that produced stdout shows the partial output without failing the call.
"""

from __future__ import annotations

from dataclasses import dataclass

OK = "ok"
SOFT_FAILURE = "soft_failure"  # non-zero exit that is an answer, not a failure (grep's 1)
ERROR = "error"
COMPILE_ERROR = "compile_error"
TIMEOUT_PARTIAL = "timeout_partial"  # timed out, stdout so far is shown
TIMEOUT = "timeout"  # timed out with nothing on stdout
BACKGROUNDED = "backgrounded"
OUTPUT_CAPPED = "output_capped"  # killed for writing more than the output cap
RUNTIME_ERROR = "runtime_error"  # the program could not be started (runtime missing, bad cwd)

ERROR_KINDS = frozenset({ERROR, COMPILE_ERROR, TIMEOUT, OUTPUT_CAPPED, RUNTIME_ERROR})


@dataclass(frozen=True)
class Outcome:
    """The facts classification looks at."""

    language: str
    exit_code: int | None
    stdout_blank: bool
    timed_out: bool = False
    backgrounded: bool = False
    output_capped: bool = False
    compile_failed: bool = False
    start_error: str | None = None


def classify(outcome: Outcome) -> str:
    """One of the kinds above."""
    if outcome.start_error is not None:
        return RUNTIME_ERROR
    if outcome.backgrounded:
        return BACKGROUNDED
    if outcome.output_capped:
        return OUTPUT_CAPPED
    if outcome.timed_out:
        return TIMEOUT if outcome.stdout_blank else TIMEOUT_PARTIAL
    if outcome.compile_failed:
        return COMPILE_ERROR
    if outcome.exit_code == 0:
        return OK
    if outcome.language == "shell" and outcome.exit_code == 1 and not outcome.stdout_blank:
        return SOFT_FAILURE
    return ERROR


def is_error(kind: str) -> bool:
    return kind in ERROR_KINDS
