"""The wall-clock deadline: a search still running is interrupted inside SQLite, the run ends
limited/deadline with the evidence already read.

No test here depends on how fast the machine is. The index reads its clock only from SQLite's
progress callback (every PROGRESS_INSTRUCTIONS virtual-machine steps), so the tests give it a clock
that SQLite's own work moves: each callback advances it an hour. A search long enough to be called
back is then past any deadline, one too short never is, on every machine alike."""

import json
import random
import tempfile
import time
import unittest
from types import SimpleNamespace
from unittest import mock

from retrieval.core import index
from retrieval.core.admission import AdmissionRunner, Limits, RunEnded
from retrieval.core.index import DeadlineExceeded
from retrieval.core.searches import SearchCall
from retrieval.core.service import RetrievalService
from retrieval.core.snapshot import DEFAULT_COLLECTION
from retrieval.wsgi import create_app
from tests.support import call, one_line_passage, quiet_settings, write_snapshot
from tests.support.prometheus import parse_exposition

TIER = "inprocess"

WORDS = [f"common{i}" for i in range(20)]
# Every bulk passage holds every word, so the long query matches all of them: thousands of
# virtual-machine steps, where the needle's search (one row) takes a few dozen.
PASSAGES = 1000
LONG_QUERY = " ".join(WORDS[:16])
# Far beyond any run here: only the work clock, never the wall clock, reaches it.
DEADLINE_MS = 600000
POLICY = {
    "rules": [{
        # The first round is cheap (one rare word) and reads the needle; the refinement ANDs
        # sixteen words every bulk passage holds, which is what the deadline interrupts.
        "name": "long-refinement", "phrases": ["slow"], "initial_query": "needle",
        "refinement_query": LONG_QUERY, "required_marker": "never-present", "max_rounds": 2,
    }],
    "fallback": {"name": "fallback", "phrases": [], "initial_query": "needle",
                 "refinement_query": None, "required_marker": None, "max_rounds": 1},
}
QUESTION = {"question": "a slow question", "version": "3.12"}


def passage(number, text):
    return one_line_passage(f"bulk-{number}", f"https://x.example/{number}", text)


def long_query_snapshot_document() -> dict:
    rng = random.Random(7)
    passages = [passage(0, "The needle passage, found by a cheap search.")]
    passages += [passage(i, " ".join(rng.sample(WORDS, len(WORDS)))) for i in range(1, PASSAGES)]
    return {"passages": passages, "policy": POLICY}


class WorkClock:
    """The index's time.monotonic: wall time plus `step` seconds for each time it is read."""

    def __init__(self, step):
        self.step = step
        self.reads = 0

    def monotonic(self):
        self.reads += 1
        return time.monotonic() + self.reads * self.step

    def installed(self):
        """Return a context in which the index (and nothing else) reads this clock."""
        return mock.patch.object(index, "time", SimpleNamespace(monotonic=self.monotonic))


class DeadlineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.TemporaryDirectory()
        cls.addClassCleanup(tmp.cleanup)
        cls.path = write_snapshot(tmp.name, long_query_snapshot_document())

    def app(self, deadline_ms=DEADLINE_MS):
        # No memo: every run searches SQLite again.
        app = create_app(snapshot_path=self.path,
                         settings=quiet_settings(deadline_ms=deadline_ms, cache_entries=0))
        self.addCleanup(app.close)
        return app

    def service(self):
        # The core alone: these tests are about the index's deadline, not the HTTP layer.
        service = RetrievalService.from_path(self.path, memo_entries=0)
        self.addCleanup(service.close)
        return service

    def test_the_fixture_separates_the_two_searches(self):
        # The premise: the long query is called back many times, the needle's never, so the
        # interruption below falls on the refinement and only there.
        collection = self.service().collection(DEFAULT_COLLECTION)

        def callbacks(query) -> int:
            counter = WorkClock(step=0)
            with counter.installed():
                collection.rank(SearchCall(query, "3.12", 2), deadline=time.monotonic() + 3600)
            return counter.reads

        self.assertEqual(callbacks("needle"), 0)
        self.assertGreaterEqual(callbacks(LONG_QUERY), 5)

    def test_a_search_past_the_deadline_is_interrupted_and_the_run_is_limited(self):
        app = self.app()
        with WorkClock(step=3600).installed():
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
        generous = dict(QUESTION, max_source_bytes=1048576)
        body = call(self.app(), "POST", "/retrieve", json.dumps(generous).encode()).json()
        self.assertEqual((body["status"], body["reason"]), ("incomplete", "round_limit"))
        self.assertEqual([e["status"] for e in body["trace"]], ["succeeded"] * 4)

    def test_an_interrupted_query_raises_deadline_exceeded(self):
        collection = self.service().collection(DEFAULT_COLLECTION)
        with self.assertRaises(DeadlineExceeded):
            collection.rank(SearchCall(LONG_QUERY, "3.12", 2), deadline=time.monotonic())
        # The connection is usable again afterwards, without the handler.
        self.assertEqual(len(collection.rank(SearchCall("needle", "3.12", 2))), 1)


class DeadlineBeforeAnActionTest(unittest.TestCase):
    def test_no_action_starts_after_the_deadline(self):
        now = [0.0]

        class Tools:
            def search(self, search):
                now[0] = 5.0  # the first search takes the clock past the deadline
                return {"results": []}

        runner = AdmissionRunner(Limits(6, 2, 2, 4096), Tools(), deadline=1.0,
                                 clock=lambda: now[0])
        runner.search(SearchCall("a", "3.12", 2))
        with self.assertRaises(RunEnded) as ended:
            runner.search(SearchCall("b", "3.12", 2))
        self.assertEqual((ended.exception.status, ended.exception.reason), ("limited", "deadline"))
        self.assertEqual(runner.trace[-1], {
            "action": {"tool": "search", "arguments": {"query": "b", "version": "3.12", "k": 2}},
            "decision": "denied", "reason": "deadline", "invoked": False})
        self.assertEqual(runner.usage()["searches"], 1)


if __name__ == "__main__":
    unittest.main()
