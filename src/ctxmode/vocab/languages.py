"""The languages ctx_execute runs, named once for the tool schema and the sandbox's runtimes.

A module of its own, outside `ctxmode.sandbox`, so the server can list its tools without
loading the sandbox.
"""

SUPPORTED_LANGUAGES: tuple[str, ...] = (
    "javascript",
    "typescript",
    "python",
    "shell",
    "ruby",
    "go",
    "rust",
    "php",
    "perl",
    "r",
    "elixir",
    "csharp",
)
