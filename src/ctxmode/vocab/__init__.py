"""The words hosts and the hooks core share: events, decisions, payload fields, tool names, the host contract.

Imports nothing else of ctxmode, so a host module and the core can both depend on it
without depending on each other.
"""
