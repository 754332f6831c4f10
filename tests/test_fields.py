"""The field lists of core/fields.py are what the passages, results and schemas hold."""

import dataclasses
import json
import unittest

from retrieval.client import Evidence
from retrieval.core import database
from retrieval.core.admission import DEFAULT_LIMITS
from retrieval.core.fields import (
    CITATION_FIELDS,
    CUT_FIELDS,
    EVIDENCE_FIELDS,
    EVIDENCE_OPTIONAL_FIELDS,
    FIELD_TYPES,
    FLAGGED_FIELDS,
    HANDLE_FIELDS,
    HIT_FIELDS,
    NAMED_FIELDS,
    NOTE_FIELDS,
    PASSAGE_BODY_FIELDS,
    PASSAGE_FIELDS,
    READ_FIELDS,
)
from retrieval.core.model import Passage
from retrieval.core.notes import VersionNote
from retrieval.core.searches import SearchCall
from retrieval.core.service import RetrievalService, RetrieveRequest
from retrieval.core.snapshot import DEFAULT_COLLECTION, default_snapshot_path
from retrieval.core.tools import build_read_result, build_search_result
from retrieval.scenarios import QUESTION
from retrieval.wsgi import create_app
from tests.support import ask, call, post_json, quiet_settings

TIER = "inprocess"


class _OneHit:
    """A collection index that ranks one passage first, whatever is asked."""

    corpus_id = "c" * 64

    def __init__(self, passage):
        self.passage = passage

    def rank(self, search, deadline=None):
        return [(self.passage, -1.5)]


def a_passage(**fields) -> Passage:
    return Passage(**{name: 1 if FIELD_TYPES[name].json_type == "integer" else f"{name} value"
                      for name in PASSAGE_FIELDS if name not in ("title", "flags")} | fields)


class CoreFieldsTest(unittest.TestCase):
    def test_every_listed_field_has_a_type(self):
        for names in (PASSAGE_FIELDS, PASSAGE_BODY_FIELDS, HANDLE_FIELDS, NAMED_FIELDS,
                      READ_FIELDS, EVIDENCE_FIELDS, HIT_FIELDS, CITATION_FIELDS):
            self.assertEqual(len(set(names)), len(names))
            self.assertLessEqual(set(names), set(FIELD_TYPES))

    def test_a_passage_is_stored_and_read_back_in_the_declared_order(self):
        declared = tuple(field.name for field in dataclasses.fields(Passage))
        self.assertEqual(declared, PASSAGE_FIELDS + ("index", "notes"))
        self.assertIs(database.PASSAGE_COLUMNS, PASSAGE_FIELDS)

    def test_hits_and_read_results_carry_the_declared_fields_in_order(self):
        plain, named = a_passage(), a_passage(title="Path.write_text")
        noted = a_passage(title="f", notes=tuple(VersionNote(kind, "1.0", "") for kind in
                                                 reversed(NOTE_FIELDS)))
        flagged = a_passage(title="Path.write_text", flags=("addresses_ai", "hidden_text"))
        for passage, extra in ((plain, ()), (named, NAMED_FIELDS),
                               (noted, NAMED_FIELDS + NOTE_FIELDS),
                               (flagged, NAMED_FIELDS + FLAGGED_FIELDS)):
            result = build_search_result(_OneHit(passage), SearchCall("text", "3.12", 1))
            handle = result["results"][0]
            self.assertEqual(tuple(handle), HANDLE_FIELDS + extra)
            self.assertEqual(handle["url"] if extra else passage.url, passage.url)
            self.assertEqual(handle.get("flags", []), list(passage.flags))
            read = build_read_result(handle, passage)
            self.assertEqual(set(read), set(HANDLE_FIELDS + extra + READ_FIELDS))
            self.assertEqual(tuple(read)[:len(handle)], tuple(handle))

    def test_the_clients_evidence_is_a_read_result(self):
        # Every member a read result may have: those it always has, then the optional ones.
        self.assertEqual(tuple(field.name for field in dataclasses.fields(Evidence)),
                         EVIDENCE_FIELDS + EVIDENCE_OPTIONAL_FIELDS)
        service = RetrievalService.from_path(default_snapshot_path())
        try:
            result = service.retrieve(RetrieveRequest(
                QUESTION, "3.12", DEFAULT_COLLECTION, DEFAULT_LIMITS))
        finally:
            service.close()
        self.assertTrue(result.evidence)
        for item in result.evidence:
            self.assertLessEqual(set(EVIDENCE_FIELDS), set(item))
            self.assertLessEqual(set(item), set(EVIDENCE_FIELDS + EVIDENCE_OPTIONAL_FIELDS))
            self.assertLessEqual(set(CITATION_FIELDS), set(item))


class WireFieldsTest(unittest.TestCase):
    """The HTTP side's bodies and OpenAPI schemas hold the lists core/fields.py declares."""

    @classmethod
    def setUpClass(cls):
        cls.app = create_app(settings=quiet_settings())
        cls.document = json.loads(call(cls.app, "GET", "/openapi.json").body)
        cls.schemas = cls.document["components"]["schemas"]

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def assertTyped(self, properties: dict, names):
        for name in names:
            wanted, schema = FIELD_TYPES[name], properties[name]
            self.assertEqual(schema["type"], wanted.json_type, name)
            self.assertEqual(schema.get("minimum"), wanted.minimum, name)
            self.assertEqual("pattern" in schema, wanted.hex64, name)

    def test_a_passage_looked_up_by_id_has_the_declared_fields(self):
        reply = post_json(self.app, ask())
        passage_id = json.loads(reply.body)["evidence"][0]["passage_id"]
        body = json.loads(call(self.app, "GET", f"/passages/{passage_id}").body)
        self.assertEqual(tuple(body), PASSAGE_BODY_FIELDS)
        properties = self.schemas["Passage"]["properties"]
        self.assertEqual(tuple(properties), PASSAGE_BODY_FIELDS + NOTE_FIELDS + FLAGGED_FIELDS)
        self.assertEqual(tuple(self.schemas["Passage"]["required"]), PASSAGE_BODY_FIELDS)
        self.assertTyped(properties, PASSAGE_BODY_FIELDS + FLAGGED_FIELDS)

    def test_the_openapi_handles_results_and_hits_are_the_declared_lists(self):
        handle = self.schemas["ReadHandle"]
        optional = NAMED_FIELDS + NOTE_FIELDS + FLAGGED_FIELDS
        self.assertEqual(tuple(handle["properties"]), HANDLE_FIELDS + optional)
        self.assertEqual(tuple(handle["required"]), HANDLE_FIELDS)
        self.assertTyped(handle["properties"], HANDLE_FIELDS + NAMED_FIELDS + FLAGGED_FIELDS)
        read = self.schemas["ReadResult"]
        self.assertEqual(set(read["properties"]),
                         set(HANDLE_FIELDS + optional + READ_FIELDS + CUT_FIELDS))
        self.assertTyped(read["properties"], READ_FIELDS + CUT_FIELDS)
        hit = self.schemas["SearchResponse"]["properties"]["hits"]["items"]
        self.assertEqual(set(hit["properties"]),
                         set(HIT_FIELDS + NOTE_FIELDS + CUT_FIELDS) | {"score", "text"})
        self.assertEqual(hit["required"],
                         [name for name in HIT_FIELDS if name not in optional] + ["score"])
        self.assertTyped(hit["properties"], HIT_FIELDS)


if __name__ == "__main__":
    unittest.main()
