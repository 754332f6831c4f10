"""Where the MCP tools' answers come from: the HTTP API's own operations, in process or remote.

`LocalBackend` serves a snapshot in this process by calling the very WSGI app `retrieval serve`
runs (GET /corpus, GET /passages/{id}, POST /retrieve, POST /search), so keys, the in-flight
gate, rate limits, memos, metrics and the access log apply exactly as over HTTP.
`RemoteBackend` fronts a running service through the verifying `retrieval.client`.

Both return decoded, verified documents and raise `BackendError` with the service's error body.
"""

import hashlib
import io
import json
import sys
import time
from wsgiref.util import setup_testing_defaults

from ..http.contract import CORPUS, DIFF, LOOKUP, PASSAGE, RETRIEVE, SEARCH
from ..http.errors import Unauthenticated
from ..http.factory import create_app
from ..settings import Settings

# What --url answers when the service fronted predates POST /search.
NO_SEARCH_ROUTE = ("search_docs needs a newer service than the one this server fronts (it has no "
                   "search operation); serve the snapshot in process instead: retrieval mcp "
                   "--snapshot PATH")


class BackendError(Exception):
    """The service refused: `body` is its documented error body ({"error": {code, message}})."""

    def __init__(self, body: dict):
        error = body.get("error") if isinstance(body, dict) else None
        self.code = error.get("code") if isinstance(error, dict) else None
        super().__init__(self.code or "error")
        self.body = body


def bearer_header(api_key):
    """Return the Authorization header value the service expects for a key, or None."""
    return None if api_key is None else f"Bearer {api_key}"


class LocalBackend:
    """A snapshot served in this process through the service's own WSGI app.

    authorization: an `Authorization` header value, as a request would carry it (None: none).
    """

    def __init__(self, settings: Settings):
        # Built as `retrieval serve` builds it; over stdio the access log goes to stderr, since
        # stdout is the protocol's.
        self.app = create_app(settings=settings)
        # The allowances a request may ask for, as the app enforces them (the tools' schemas).
        self.maxima = self.app.maxima

    @property
    def keys_required(self) -> bool:
        """Tell whether callers must present a key."""
        return self.app.keys_required

    def authenticate(self, authorization):
        """Return the caller's key (None without a keys file); raise the service's refusal."""
        return self.app.authenticate(authorization)

    def close(self):
        """Release the snapshot and flush the access log."""
        self.app.close()

    def provenance(self):
        """Return what the snapshot records of its sources (core.provenance), or None."""
        return self.app.provenance

    def corpus(self, authorization=None) -> dict:
        """Return the /corpus document the caller would get."""
        return self._call("GET", CORPUS.path, authorization)

    def passage(self, passage_id: str, authorization=None) -> dict:
        """Return the /passages/{id} document the caller would get."""
        return self._call("GET", PASSAGE.fill(passage_id), authorization)

    def retrieve(self, arguments: dict, authorization=None) -> dict:
        """Return the /retrieve run result (a failed run included) the caller would get."""
        body = json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode()
        return self._call("POST", RETRIEVE.path, authorization, body, run=True)

    def search(self, arguments: dict, authorization=None) -> dict:
        """Return the POST /search document the caller would get."""
        body = json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode()
        return self._call("POST", SEARCH.path, authorization, body)

    def diff(self, arguments: dict, authorization=None) -> dict:
        """Return the POST /diff document the caller would get."""
        body = json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode()
        return self._call("POST", DIFF.path, authorization, body)

    def lookup(self, arguments: dict, authorization=None) -> dict:
        """Return the POST /lookup document the caller would get."""
        body = json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode()
        return self._call("POST", LOOKUP.path, authorization, body)

    def _call(self, method, path, authorization, body=b"", run=False) -> dict:
        environ: dict = {}
        setup_testing_defaults(environ)
        environ.update({"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "",
                        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
                        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr})
        if authorization is not None:
            environ["HTTP_AUTHORIZATION"] = authorization
        status = []
        raw = b"".join(self.app(environ, lambda line, headers, exc_info=None:
                                status.append(int(line[:3]))))
        document = json.loads(raw)
        # A failed run is a 503 carrying a whole run result: an answer, not a refusal.
        if status[0] == 200 or (run and "error" not in document):
            return document
        raise BackendError(document)


class RemoteBackend:
    """A running service, through the verifying client (an altered response raises).

    Every caller's client shares one HTTP session, so distinct bearers cost no socket each (the
    session's pool is bounded). Whether the service wants keys is asked once, at start-up: a
    service that does not answer /corpus without one is taken to want them.
    """

    # How long a bearer the service accepted is taken as valid without asking again, and how
    # many such verdicts are kept: random bearers cannot grow them past the cap.
    ACCEPTED_S = 30.0
    ACCEPTED_MAX = 256

    def __init__(self, url: str, api_key=None, timeout=10.0):
        import requests

        from ..client import IntegrityError, RetrievalClient, RetrievalError, TransportError

        self._session = requests.Session()
        self._open = lambda key: RetrievalClient(url, api_key=key, timeout=timeout,
                                                 session=self._session)
        self._api_key = api_key
        self._accepted: dict[str, float] = {}  # digest of a bearer -> when its verdict ends
        try:
            self._open(None).corpus()
            self.keys_required = False
        except (RetrievalError, TransportError, IntegrityError):
            self.keys_required = True  # unreachable or refusing: ask every caller for a key

    def authenticate(self, authorization):
        """Raise the service's refusal of this Authorization header; None when it may call."""
        if not self.keys_required:
            return None
        if authorization is None:
            raise Unauthenticated("no Authorization header")
        digest = hashlib.sha256(authorization.encode("utf-8", "surrogateescape")).hexdigest()
        now = time.monotonic()
        if self._accepted.get(digest, 0.0) > now:
            return None
        self.corpus(authorization)  # the service's own 401 for a bearer it does not accept
        if len(self._accepted) >= self.ACCEPTED_MAX:
            self._accepted = {d: t for d, t in self._accepted.items() if t > now}
        if len(self._accepted) < self.ACCEPTED_MAX:
            self._accepted[digest] = now + self.ACCEPTED_S
        return None

    def close(self):
        """Close the shared session."""
        self._session.close()

    def _with(self, authorization):
        # Over Streamable HTTP each MCP caller's own bearer is forwarded; over stdio, --api-key.
        key = self._api_key if authorization is None else authorization.partition(" ")[2]
        return self._open(key)

    @staticmethod
    def provenance():
        """Return None: the HTTP API does not say where a snapshot's sources came from."""
        return None

    def corpus(self, authorization=None) -> dict:
        """Return the service's verified /corpus document."""
        return self._translated(lambda: self._with(authorization).corpus())

    def passage(self, passage_id: str, authorization=None) -> dict:
        """Return the service's verified /passages/{id} document."""
        return self._translated(lambda: self._with(authorization).passage(passage_id))

    def retrieve(self, arguments: dict, authorization=None) -> dict:
        """Return the service's verified run result document."""
        arguments = dict(arguments)
        question, version = arguments.pop("question", None), arguments.pop("version", None)
        return self._translated(
            lambda: self._with(authorization).retrieve(question, version, **arguments).document)

    def search(self, arguments: dict, authorization=None) -> dict:
        """Return the service's verified POST /search document."""
        try:
            options = dict(arguments)
            query, version = options.pop("query", None), options.pop("version", None)
            return self._translated(
                lambda: self._with(authorization).search(query, version, **options))
        except BackendError as error:
            if error.code != "not_found":  # not_found names a route, never a collection
                raise
            raise BackendError({"error": {"code": "not_found", "message": NO_SEARCH_ROUTE}}) \
                from None

    def diff(self, arguments: dict, authorization=None) -> dict:
        """Return the service's POST /diff document, its echo verified."""
        options = dict(arguments)
        to_version, version = options.pop("to_version", None), options.pop("version", None)
        return self._translated(
            lambda: self._with(authorization).diff(to_version, version, **options))

    def lookup(self, arguments: dict, authorization=None) -> dict:
        """Return the service's verified POST /lookup document."""
        options = dict(arguments)
        name, version = options.pop("name", None), options.pop("version", None)
        return self._translated(lambda: self._with(authorization).lookup(name, version, **options))

    @staticmethod
    def _translated(operation):
        from ..client import RetrievalError

        try:
            return operation()
        except RetrievalError as error:
            raise BackendError(error.body) from None
