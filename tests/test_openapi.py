"""The OpenAPI document stays true: its codes are the app's codes, real responses validate."""

import io
import json
import unittest

from retrieval.http import errors as error_module
from retrieval.http.errors import HTTP_STATUS
from retrieval.scenarios import SCENARIOS, TRUSTED_FAULT
from retrieval.testing import create_fault_app
from retrieval.wsgi import create_app
from tests.schema import errors as schema_errors
from tests.support import ask, call, quiet_settings

TIER = "inprocess"


def all_error_classes(cls=error_module.ServiceError):
    for subclass in cls.__subclasses__():
        yield subclass
        yield from all_error_classes(subclass)


class OpenAPITest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = create_app(settings=quiet_settings())
        cls.document = json.loads(call(cls.app, "GET", "/openapi.json").body)

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def response_schema(self, path, method, status):
        responses = self.document["paths"][path][method]["responses"]
        return responses[str(status)]["content"]["application/json"]["schema"]

    def assertValid(self, schema, value):
        self.assertEqual(schema_errors(schema, value, self.document), [])

    def test_documented_error_codes_are_the_codes_the_app_produces(self):
        documented = set(self.document["components"]["schemas"]["Error"]["properties"]["error"]
                         ["properties"]["code"]["enum"])
        raised = {cls.code for cls in all_error_classes()}
        self.assertEqual(documented, set(HTTP_STATUS))
        self.assertEqual(raised, set(HTTP_STATUS))
        for status in {s.split()[0] for s in HTTP_STATUS.values()}:
            self.assertIn(status, self.document["paths"]["/retrieve"]["post"]["responses"])

    def test_request_schema_matches_validation(self):
        schema = self.document["components"]["schemas"]["RetrieveRequest"]
        self.assertValid(schema, ask())
        self.assertValid(schema, ask(max_steps=64, max_source_bytes=1048576))
        for bad in (ask(max_steps=True), ask(max_steps=65), ask(extra=1), ask(version="3.x"),
                    {"question": "q"}, ask(max_reads=6.0)):
            with self.subTest(bad=bad):
                self.assertNotEqual(schema_errors(schema, bad, self.document), [])
        self.assertEqual(schema["properties"]["max_steps"]["default"], 6)

    def test_every_scenario_response_validates(self):
        for scenario in SCENARIOS:
            with self.subTest(scenario.name):
                if scenario.chunked_oversize:
                    reply = call(self.app, "POST", "/retrieve", io.BytesIO(scenario.body()),
                                 content_length=None, environ={"wsgi.input_terminated": True})
                else:
                    reply = call(self.app, "POST", "/retrieve", scenario.body(),
                                 content_type=scenario.content_type)
                self.assertEqual(reply.code, scenario.http_status)
                self.assertValid(self.response_schema("/retrieve", "post", reply.code),
                                 reply.json())
        fault_app = create_fault_app(settings=quiet_settings())
        self.addCleanup(fault_app.close)
        reply = call(fault_app, "POST", "/retrieve", TRUSTED_FAULT.body())
        self.assertEqual(reply.code, 503)
        self.assertValid(self.response_schema("/retrieve", "post", 503), reply.json())

    def test_other_routes_validate(self):
        checks = [("/health", 200), ("/corpus", 200), ("/nope", 404)]
        for path, status in checks:
            reply = call(self.app, "GET", path)
            self.assertEqual(reply.code, status)
            route = path if path in self.document["paths"] else "/corpus"
            self.assertValid(self.response_schema(route, "get", status), reply.json())
        evidence = json.loads(call(self.app, "POST", "/retrieve",
                                   json.dumps(ask()).encode()).body)["evidence"][0]
        reply = call(self.app, "GET", "/passages/" + evidence["passage_id"])
        self.assertValid(self.response_schema("/passages/{passage_id}", "get", 200), reply.json())

    def test_the_validator_can_fail(self):
        reply = call(self.app, "POST", "/retrieve", json.dumps(ask()).encode())
        body = reply.json()
        schema = self.response_schema("/retrieve", "post", 200)
        for edit in (lambda b: b.update(status="done"), lambda b: b["usage"].update(steps=-1),
                     lambda b: b.update(extra=1), lambda b: b["trace"][0].pop("decision"),
                     lambda b: b["evidence"][0].update(passage_id="xyz")):
            edited = json.loads(reply.body)
            edit(edited)
            self.assertNotEqual(schema_errors(schema, edited, self.document), [])
        self.assertValid(schema, body)


if __name__ == "__main__":
    unittest.main()
