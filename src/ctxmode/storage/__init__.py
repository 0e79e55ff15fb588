"""The per-project database: which file (`project`), opening it (`db`), its tables and
migrations (`schema`), a damaged file (`salvage`), and deleting what it holds (`purge`).

Empty on purpose: the hook path imports `storage.project` and must not pay for the rest.
"""
