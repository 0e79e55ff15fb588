"""Command-line session memory: named sessions bound to a workspace, and their context block."""
