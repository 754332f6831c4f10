"""Pinned bytes: the fixture's identity and the exact body of each accepted scenario.

Every id is a pure function of its inputs, so these digests must be the same on any process and
any machine. A change here is a change of the wire format: make it on purpose, say so in the
commit, and update the pins; an optimization must leave them untouched.
"""

import unittest

from retrieval.core import digests
from retrieval.http.contract import BODY_DIGEST_HEADER
from retrieval.scenarios import SCENARIOS
from retrieval.wsgi import create_app
from tests.support import call, quiet_settings

TIER = "inprocess"


def memo_lookups(app, memo, outcome) -> int:
    """Return a memo's lookup count from the app's /metrics."""
    prefix = f'retrieval_memo_lookups_total{{memo="{memo}",outcome="{outcome}"}} '.encode()
    line = next(line for line in call(app, "GET", "/metrics").body.split(b"\n")
                if line.startswith(prefix))
    return int(line[len(prefix):])

FIXTURE_CORPUS_ID = "050601391a8a8d4e6e582f7c4915365d69e5b59662e883e28018da1bce1e0940"
BODY_SHA256 = {
    "completed": "8c9ba05ef8c6d1b110b138fd0a6e2fb997890a0b823a1a3a6cdde41cc009d622",
    "incomplete": "1fb4bc43412cb6654e83a6e9db1b9f6ecd298389be0a2b7da0dc0619ee2592b4",
    "empty_eligible": "e6fb6f6cad21e9d0e4486ce1bc642210da804a28b5c71022899ec0ee3ea8ac04",
    "limited": "25ea7e373bf3ef68050b4fd5aa39551d4a439e814b61248601b4c7465c6def09",
}


class GoldenBytesTest(unittest.TestCase):
    def test_fixture_identity_and_bodies_are_pinned(self):
        # Both ways: with the memos (each scenario twice: run, then the memoized reply) and
        # without any (cache_entries 0: every request runs and serializes afresh).
        for memo_entries, calls in ((4096, 2), (0, 1)):
            app = create_app(settings=quiet_settings(cache_entries=memo_entries))
            self.addCleanup(app.close)
            self.assertEqual(app.corpus_id, FIXTURE_CORPUS_ID)
            for scenario in SCENARIOS:
                if scenario.name in BODY_SHA256:
                    for call_number in range(calls):
                        with self.subTest(scenario.name, memo_entries=memo_entries,
                                          call=call_number):
                            reply = call(app, "POST", "/retrieve", scenario.body())
                            self.assertEqual(reply.headers[BODY_DIGEST_HEADER],
                                             BODY_SHA256[scenario.name])
                            self.assertEqual(digests.sha256_hex(reply.body),
                                             BODY_SHA256[scenario.name])
            hits = memo_lookups(app, "response", "hit")
            self.assertEqual(hits, len(BODY_SHA256) if memo_entries else 0)

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
