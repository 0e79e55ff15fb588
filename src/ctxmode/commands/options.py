"""Options several commands share, declared once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

# An existing directory: a mistyped path must not quietly become a new, empty project.
PROJECT_DIR = click.Path(exists=True, file_okay=False)


def project_option(
    help_text: str = "Project directory (default: git root of the cwd).", **extra: Any
) -> Callable[[Any], Any]:
    """`--project DIR`, passed to the command as `project_dir`; DIR must exist."""
    return click.option("--project", "project_dir", type=PROJECT_DIR, help=help_text, **extra)
