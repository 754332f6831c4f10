"""The operations: one module per route of the contract, each its parsing, its run, its OpenAPI.

An operation is an `Operation` (below) with `route` (its row in retrieval/http/contract.py's
ROUTES), built with the app's AppState, called as `(environ, exchange, path) -> Reply` with the
method already allowed, and with a static `openapi()` (its OpenAPI operation). A route whose input
is a JSON body is a `BodyOperation`: it implements `run` and gets the admission and body checks
first. Adding a route: a row in ROUTES, a module here, a line in retrieval/http/app.py's
OPERATIONS (docs/architecture.md#recipes).
"""

import time

from ..contract import Route
from ..exchange import Exchange, Reply
from ..state import AppState


class Operation:
    """One route's work: built once per app over its state, then called once per request."""

    route: Route

    def __init__(self, state: AppState):
        self.state = state

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        raise NotImplementedError

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        raise NotImplementedError


class BodyOperation(Operation):
    """A route whose input is a JSON body: admitted, its caller and body checked, then run."""

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        return self.state.admitted(environ, exchange, self._admitted)

    def _admitted(self, service, environ, exchange: Exchange) -> Reply:
        started = time.monotonic()
        key, body = self.state.json_body(environ, exchange, started)
        return self.run(service, exchange, key, body, started)

    def run(self, service, exchange: Exchange, key, body: bytes, started: float) -> Reply:
        """Answer an admitted request from the caller's key and the body's bytes."""
        raise NotImplementedError
