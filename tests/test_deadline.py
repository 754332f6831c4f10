"""The wall-clock deadline: a search still running is interrupted inside SQLite, the run ends
limited/deadline with the evidence already read. Tested on a deliberately slow fixture (tens of
thousands of words per passage, all from a vocabulary of twenty), never with sleeps in
production code."""

import json
import random
import tempfile
import time
import unittest

from retrieval.core.admission import AdmissionRunner, Limits, RunEnded
from retrieval.core.index import DeadlineExceeded
from retrieval.core.snapshot import DEFAULT_COLLECTION
from retrieval.wsgi import create_app
from tests.support import call, one_line_passage, quiet_settings, write_snapshot
from tests.support.prometheus import parse_exposition

WORDS = [f"common{i}" for i in range(20)]
# 5,000 passages of 800 words: a 16-word AND over them takes ~180 ms on the 2-core CI machine.
PASSAGES = 5000
WORDS_PER_PASSAGE = 800
DEADLINE_MS = 40
SLOW_QUERY = " ".join(WORDS[:16])
POLICY = {
    "rules": [{
        # The first round is cheap (one rare word) and reads the needle; the refinement ANDs
        # sixteen words that almost every passage holds, which is what the deadline interrupts.
        "name": "slow-refinement", "phrases": ["slow"], "initial_query": "needle",
        "refinement_query": SLOW_QUERY, "required_marker": "never-present", "max_rounds": 2,
    }],
    "fallback": {"name": "fallback", "phrases": [], "initial_query": "needle",
                 "refinement_query": None, "required_marker": None, "max_rounds": 1},
}
QUESTION = {"question": "a slow question", "version": "3.12"}


def passage(index, text):
    return one_line_passage(f"bulk-{index}", f"https://x.example/{index}", text)


def slow_snapshot_document() -> dict:
    rng = random.Random(7)
    passages = [passage(0, "The needle passage, found by a cheap search.")]
    passages += [passage(i, " ".join(rng.choice(WORDS) for _ in range(WORDS_PER_PASSAGE)))
                 for i in range(1, PASSAGES)]
    return {"passages": passages, "policy": POLICY}


class DeadlineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(tmp.cleanup)
        cls.path = write_snapshot(tmp.name, slow_snapshot_document())

    def app(self, deadline_ms):
        # No memo: every run searches SQLite again.
        app = create_app(snapshot_path=self.path,
                         settings=quiet_settings(deadline_ms=deadline_ms, cache_entries=0))
        self.addCleanup(app.close)
        return app

    def test_the_fixture_is_slow_enough(self):
        # The fixture's premise: without a deadline in the way, the refinement takes far longer
        # than the deadline used below, so the interruption cannot be a coincidence.
        collection = self.app(60000)._service.collection(DEFAULT_COLLECTION)
        started = time.monotonic()
        collection.rank(SLOW_QUERY, "3.12", 2)
        self.assertGreater(time.monotonic() - started, 2 * DEADLINE_MS / 1000)

    def test_a_search_past_the_deadline_is_interrupted_and_the_run_is_limited(self):
        app = self.app(deadline_ms=DEADLINE_MS)
        reply = call(app, "POST", "/retrieve", json.dumps(QUESTION).encode())
        self.assertEqual(reply.code, 200)
        body = reply.json()
        self.assertEqual((body["status"], body["reason"]), ("limited", "deadline"))
        trace = body["trace"]
        self.assertEqual([(e["action"]["tool"], e["status"]) for e in trace],
                         [("search", "succeeded"), ("read", "succeeded"), ("search", "failed")])
        self.assertEqual(trace[2]["reason"], "deadline_exceeded")
        self.assertEqual(trace[2]["usage_after"]["searches"], 2)  # the attempt stays charged
        self.assertEqual([e["source_id"] for e in body["evidence"]], ["bulk-0"])
        metrics = parse_exposition(call(app, "GET", "/metrics").body.decode())
        self.assertEqual(metrics["retrieval_tool_failures_total"].value(
            reason="deadline_exceeded"), 1)
        self.assertEqual(metrics["retrieval_runs_total"].value(status="limited"), 1)

    def test_with_time_to_spare_the_same_run_is_not_limited(self):
        generous = dict(QUESTION, max_source_bytes=1048576)  # bulk passages are ~7 KB
        body = call(self.app(deadline_ms=60000), "POST", "/retrieve",
                    json.dumps(generous).encode()).json()
        self.assertEqual((body["status"], body["reason"]), ("incomplete", "round_limit"))
        self.assertEqual([e["status"] for e in body["trace"]], ["succeeded"] * 4)

    def test_an_interrupted_query_raises_deadline_exceeded(self):
        collection = self.app(60000)._service.collection(DEFAULT_COLLECTION)
        with self.assertRaises(DeadlineExceeded):
            collection.rank(SLOW_QUERY, "3.12", 2, deadline=time.monotonic())
        # The connection is usable again afterwards, without the handler.
        self.assertEqual(len(collection.rank("needle", "3.12", 2)), 1)


class DeadlineBeforeAnActionTest(unittest.TestCase):
    def test_no_action_starts_after_the_deadline(self):
        now = [0.0]

        class Tools:
            def search(self, *args):
                now[0] = 5.0  # the first search takes the clock past the deadline
                return {"results": []}

        runner = AdmissionRunner(Limits(6, 2, 2, 4096), Tools(), deadline=1.0,
                                 clock=lambda: now[0])
        runner.search("a", "3.12", 2)
        with self.assertRaises(RunEnded) as ended:
            runner.search("b", "3.12", 2)
        self.assertEqual((ended.exception.status, ended.exception.reason), ("limited", "deadline"))
        self.assertEqual(runner.trace[-1], {
            "action": {"tool": "search", "arguments": {"query": "b", "version": "3.12", "k": 2}},
            "decision": "denied", "reason": "deadline", "invoked": False})
        self.assertEqual(runner.usage()["searches"], 1)


if __name__ == "__main__":
    unittest.main()
