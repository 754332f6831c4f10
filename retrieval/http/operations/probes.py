"""GET /health, /metrics and /openapi.json: readiness, counters and this service's document."""

from ..contract import HEALTH, METRICS, OK, OPENAPI, UNAVAILABLE
from ..exchange import REVALIDATE, Exchange, Reply, encode_json
from ..metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from ..schema import BEARER, error_responses, ref, response
from ..state import AppState
from . import Operation

HEALTH_MODE = "offline-scripted-retrieval"


def health_body(corpus_id, draining=False, show_corpus_id=True) -> dict:
    """Return the /health body: ready with the served corpus, draining, or not ready.

    show_corpus_id=False leaves the snapshot-wide id out: it changes whenever any collection
    does, so with keys it would tell anyone that collections they may not read exist and when
    they change.
    """
    if draining:
        return {"status": "draining"}
    if corpus_id is None:
        return {"status": "not_ready"}
    if not show_corpus_id:
        return {"status": "ok", "mode": HEALTH_MODE}
    return {"status": "ok", "mode": HEALTH_MODE, "corpus_id": corpus_id}


class Health(Operation):
    """GET /health: ready with the served corpus, draining, or not ready."""

    route = HEALTH

    def __init__(self, state: AppState):
        super().__init__(state)
        service = state.service
        assert service is not None
        # Its bytes never change while ready: built (and hashed) once, not per request.
        self._ok = Reply(OK, encode_json(health_body(service.corpus_id,
                                                     show_corpus_id=state.keys is None)))

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        state = self.state
        service = state.service
        if state.draining or service is None or not service.serving_verified():
            return Reply(UNAVAILABLE, encode_json(health_body(None, draining=state.draining)))
        return self._ok

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {"summary": "Readiness", "responses": {
            "200": response(ref("Health"), "Ready, with the served corpus"),
            "503": response(ref("Health"), "Not ready"), **error_responses({"405", "421"})}}


class MetricsText(Operation):
    """GET /metrics: the Prometheus text exposition."""

    route = METRICS

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        # With keys, the counters (memo hits among them) would tell one key of others' requests.
        self.state.authenticate(environ, exchange)
        return Reply(OK, self.state.metrics.render(), content_type=METRICS_CONTENT_TYPE)

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {"summary": "Prometheus text exposition", "security": BEARER, "responses": {
            "200": {"description": "Counters, latency histogram, in-flight gauge",
                    "content": {"text/plain": {}}}, **error_responses({"401", "421"})}}


class OpenAPIDocument(Operation):
    """GET /openapi.json: the document of every operation, built once for these settings."""

    route = OPENAPI

    def __init__(self, state: AppState):
        super().__init__(state)
        self._reply = Reply(OK, encode_json(state.openapi), cache_control=REVALIDATE)

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        return self._reply

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {"summary": "This document", "responses": {
            "200": {"description": "OpenAPI 3.1", "content": {"application/json": {}}}}}
