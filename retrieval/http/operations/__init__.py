"""The operations: one module per route of the contract, each its parsing, its run, its OpenAPI.

An operation is a class with `route` (its row in retrieval/http/contract.py's ROUTES), a
constructor taking the app's Guards, `__call__(environ, exchange, path) -> Reply` (called with the
method already allowed), and a static `openapi()` (its OpenAPI operation). Adding a route: a row
in ROUTES, a module here, a line in retrieval/http/app.py's OPERATIONS.
"""
