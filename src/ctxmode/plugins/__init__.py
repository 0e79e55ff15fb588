"""Package data: the JS shims plugin hosts load (`bridge.js`, shared, and one folder per host).

Each shim forwards the host's plugin events to ctxmode's Python rules through `bridge.js`
and applies the answer; `ctxmode setup <host>` copies a host's folder into its config.
"""
