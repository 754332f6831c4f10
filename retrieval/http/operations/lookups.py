"""GET /corpus and GET /passages/{id}: what a caller may read, and one cited passage.

Both answer content-addressed bodies (an ETag, 304 on If-None-Match); with keys, what they show
depends on who asked, so no shared cache may keep them.
"""

import re

from ...core.fields import PASSAGE_BODY_FIELDS
from ...core.flags import flags_field
from ...core.notes import note_fields
from ..contract import CORPUS, OK, PASSAGE
from ..errors import PassageNotFound
from ..exchange import (
    IMMUTABLE,
    PRIVATE_IMMUTABLE,
    PRIVATE_REVALIDATE,
    REVALIDATE,
    Exchange,
    Reply,
    encode_json,
)
from ..schema import (
    BEARER,
    CONTENT_ADDRESSED,
    HEX64,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    error_responses,
    ref,
    response,
)
from ..state import AppState, verified
from . import Operation

_PASSAGE_ID = re.compile(r"[0-9a-f]{64}")


def _lookup_errors() -> dict:
    # 421: without keys, a Host name the service is not served under (any route).
    return error_responses({"401", "404", "405", "421", "503"})


def passage_body(corpus_id, passage) -> dict:
    """Return the /passages/{id} body: the passage with its provenance and digests.

    corpus_id is that of the passage's collection, the one its passage_id derives from. Its
    version notes follow, where it has some (core/notes.py), then its flags where it has any.
    """
    return {name: corpus_id if name == "corpus_id" else getattr(passage, name)
            for name in PASSAGE_BODY_FIELDS} | note_fields(passage.notes) | \
        flags_field(passage.flags)


def corpus_body(collections, default_collection: str | None, project=None) -> dict:
    """Return the /corpus body: the caller's collections, each with its id and versions.

    Only the collections the caller may read are listed, and nothing whole-snapshot (such as the
    snapshot's corpus_id, which moves when any collection changes) is included. The default
    collection is what a request of this caller naming none reads (AppState.default_for): one of
    them, or null. A snapshot built for a project (core/project.py) also lists its pins, but those
    of collections the caller may not read.
    """
    collections = list(collections)
    names = [collection.name for collection in collections]
    body: dict = {"default_collection": default_collection if default_collection in names else None,
            "collections": [collection.describe() for collection in collections]}
    if project is not None:
        body["project"] = {"project": project.project, "lockfile": project.lockfile,
                           "pins": [pin.describe() for pin in project.pins
                                    if pin.collection is None or pin.collection in names]}
    return body


class Corpus(Operation):
    """GET /corpus: the caller's collections, one reply built per set of visible collections."""

    route = CORPUS

    def __init__(self, state: AppState):
        super().__init__(state)
        self._replies: dict[tuple, Reply] = {}  # by the collections a caller may read

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        state = self.state
        service = state.ready_service()
        key = state.authenticate(environ, exchange)
        visible = state.visible(key)
        reply = self._replies.get(visible)
        if reply is None:
            body = corpus_body((state.collections[name] for name in visible),
                               state.default_for(key), service.snapshot.project)
            reply = Reply(OK, encode_json(body),
                          cache_control=REVALIDATE if state.keys is None else PRIVATE_REVALIDATE)
            self._replies[visible] = reply
        return reply

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {
            "summary": "The caller's collections and their exact versions",
            "security": BEARER,
            "parameters": [IF_NONE_MATCH],
            "responses": {"200": response(ref("Corpus"), "The corpus", CONTENT_ADDRESSED),
                          "304": NOT_MODIFIED, **_lookup_errors()}}


class Passage(Operation):
    """GET /passages/{passage_id}: one passage by id, immutable."""

    route = PASSAGE

    def __call__(self, environ, exchange: Exchange, path: str) -> Reply:
        state = self.state
        service = state.ready_service()
        key = state.authenticate(environ, exchange)
        passage_id = PASSAGE.value_of(path)
        passage = service.passage(passage_id) if _PASSAGE_ID.fullmatch(passage_id) else None
        # A passage of a collection the key may not read is answered exactly like a missing one,
        # after the same work (the lookup reads and decodes a row either way).
        if passage is None or (key is not None and not key.may_read(passage.collection)):
            raise PassageNotFound(passage_id[:64])
        verified(service)  # the row just read came from the verified file
        corpus_id = state.collections[passage.collection].corpus_id
        return Reply(OK, encode_json(passage_body(corpus_id, passage)),
                     cache_control=IMMUTABLE if state.keys is None else PRIVATE_IMMUTABLE)

    @staticmethod
    def openapi() -> dict:
        """Return this route's OpenAPI operation."""
        return {
            "summary": "Look up a cited passage",
            "security": BEARER,
            "parameters": [{"name": "passage_id", "in": "path", "required": True,
                            "schema": HEX64}, IF_NONE_MATCH],
            "responses": {"200": response(ref("Passage"), "The passage (immutable)",
                                               CONTENT_ADDRESSED),
                          "304": NOT_MODIFIED, **_lookup_errors()}}
