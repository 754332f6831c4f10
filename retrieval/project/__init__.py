"""`retrieval project`: a snapshot of the documentation of what a project pins, at those versions.

- `pins.py` reads what the project pins (a lock file, requirements, or pyproject.toml and an
  installed environment), with `markers.py` evaluating PEP 508 markers for the target; nothing
  there fetches.
- `collect.py` builds each pin's collection from its best source, in an order the user may
  change (a rendered site named for it, the release's sdist from the index, the installed
  package), through sources.plan and the builder, caching each collection's units; it says what
  each got in a coverage table and writes the pins beside the manifest (`project.json`).
"""
