"""Pinned bytes: the fixture's identity and the exact body of each accepted scenario.

Every id is a pure function of its inputs, so these digests must be the same on any process and
any machine. A change here is a change of the wire format: make it on purpose, say so in the
commit, and update the pins; an optimization must leave them untouched.
"""

import unittest

from retrieval.scenarios import SCENARIOS
from retrieval.wsgi import BODY_DIGEST_HEADER, create_app
from tests.support import call, quiet_settings

FIXTURE_CORPUS_ID = "050601391a8a8d4e6e582f7c4915365d69e5b59662e883e28018da1bce1e0940"
BODY_SHA256 = {
    "completed": "8c9ba05ef8c6d1b110b138fd0a6e2fb997890a0b823a1a3a6cdde41cc009d622",
    "incomplete": "1fb4bc43412cb6654e83a6e9db1b9f6ecd298389be0a2b7da0dc0619ee2592b4",
    "empty_eligible": "e6fb6f6cad21e9d0e4486ce1bc642210da804a28b5c71022899ec0ee3ea8ac04",
    "limited": "25ea7e373bf3ef68050b4fd5aa39551d4a439e814b61248601b4c7465c6def09",
}


class GoldenBytesTest(unittest.TestCase):
    def test_fixture_identity_and_bodies_are_pinned(self):
        app = create_app(settings=quiet_settings())
        self.addCleanup(app.close)
        self.assertEqual(app.corpus_id, FIXTURE_CORPUS_ID)
        for scenario in SCENARIOS:
            if scenario.name in BODY_SHA256:
                with self.subTest(scenario.name):
                    reply = call(app, "POST", "/retrieve", scenario.body())
                    self.assertEqual(reply.headers[BODY_DIGEST_HEADER], BODY_SHA256[scenario.name])

    def test_memoized_results_do_not_change_later_responses(self):
        app = create_app(settings=quiet_settings())
        self.addCleanup(app.close)
        completed = next(s for s in SCENARIOS if s.name == "completed")
        first = call(app, "POST", "/retrieve", completed.body()).body
        for scenario in SCENARIOS:
            call(app, "POST", "/retrieve", scenario.body())
        self.assertEqual(call(app, "POST", "/retrieve", completed.body()).body, first)


if __name__ == "__main__":
    unittest.main()
