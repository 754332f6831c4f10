"""Pinned bytes: the fixture's identity and the exact body of each accepted scenario.

Every id is a pure function of its inputs, so these digests must be the same on any process and
any machine. A change here is a change of the wire format: make it on purpose, say so in the
commit, and update the pins; an optimization must leave them untouched.
"""

import unittest

from retrieval.scenarios import SCENARIOS
from retrieval.settings import load_settings
from retrieval.wsgi import BODY_DIGEST_HEADER, create_app
from tests.support import call

FIXTURE_CORPUS_ID = "050601391a8a8d4e6e582f7c4915365d69e5b59662e883e28018da1bce1e0940"
BODY_SHA256 = {
    "completed": "a9bc7faa3c1c686c68ff896a65bf7209a22fd6372a7c615299057007e7a7c8ae",
    "incomplete": "089b0961a8867d5ba0a6ff49b17e5c6fc1a450647f97c4f87d2588d18dde011f",
    "empty_eligible": "ebe2e8caf54a01ae0679471aa6c8e275048d4b0e8cf02c2fd4c1d4491a8eb64c",
    "limited": "17c542e219ee04867fa46d617f0d5616ceef155bb7aa757451df6ec2702372a0",
}


class GoldenBytesTest(unittest.TestCase):
    def test_fixture_identity_and_bodies_are_pinned(self):
        app = create_app(settings=load_settings(environ={}))
        self.addCleanup(app.close)
        self.assertEqual(app.corpus_id, FIXTURE_CORPUS_ID)
        for scenario in SCENARIOS:
            if scenario.name in BODY_SHA256:
                with self.subTest(scenario.name):
                    reply = call(app, "POST", "/retrieve", scenario.body())
                    self.assertEqual(reply.headers[BODY_DIGEST_HEADER], BODY_SHA256[scenario.name])

    def test_memoized_results_do_not_change_later_responses(self):
        app = create_app(settings=load_settings(environ={}))
        self.addCleanup(app.close)
        completed = next(s for s in SCENARIOS if s.name == "completed")
        first = call(app, "POST", "/retrieve", completed.body()).body
        for scenario in SCENARIOS:
            call(app, "POST", "/retrieve", scenario.body())
        self.assertEqual(call(app, "POST", "/retrieve", completed.body()).body, first)


if __name__ == "__main__":
    unittest.main()
