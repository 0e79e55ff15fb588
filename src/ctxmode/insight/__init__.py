"""`ctxmode insight`: a local, read-only web dashboard of what ctxmode kept out of the context.

Pages: overview (bytes kept out per day, tool and host), sessions, knowledge base, hooks.
Served by Starlette on 127.0.0.1 behind a per-launch token (see `gate`); figures come
from read-only database connections (`projects`) and the hook tally (`hooklog`).
"""
