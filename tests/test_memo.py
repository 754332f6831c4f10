"""The memos: bounded and evicting (core); the full-response memo and its body index (HTTP)."""

import json
import unittest

from retrieval.core.memo import ResultMemo
from retrieval.core.service import RunResult
from retrieval.core.tools import DEADLINE_EXCEEDED, RetrievalTools, ToolFailure
from retrieval.http.exchange import Reply
from retrieval.http.response_memo import KnownRequest, MemoizedRun, ResponseMemo, RetrieveMemos
from retrieval.scenarios import SCENARIOS
from retrieval.testing import CountingToolFactory, FailingTools
from retrieval.wsgi import create_app
from tests.support import call, quiet_settings
from tests.test_golden import memo_lookups

TIER = "inprocess"


def kept(memo, key) -> bool:
    """Tell whether memo holds key, without counting a lookup as a use."""
    return key in memo._values


class ResultMemoTest(unittest.TestCase):
    def test_distinct_keys_past_the_entry_cap_keep_being_cached(self):
        memo = ResultMemo(max_entries=100, max_bytes=10**9)
        for number in range(20_000):
            memo.get_or_compute(("search", number), lambda number=number: f"result {number}")
        stats = memo.stats()
        self.assertEqual((stats.entries, stats.evictions), (100, 19_900))
        # The newest question is answered from the memo: caching did not stop when it filled.
        self.assertEqual(memo.get_or_compute(("search", 19_999), lambda: self.fail("recomputed")),
                         "result 19999")
        self.assertFalse(kept(memo, ("search", 0)))

    def test_the_least_recently_used_value_is_evicted_first(self):
        memo = ResultMemo(max_entries=3, max_bytes=10**9)
        for key in "abc":
            memo.put(key, key.upper())
        self.assertEqual(memo.get("a"), "A")  # a is now the most recently used
        memo.put("d", "D")
        self.assertEqual([key for key in "abcd" if kept(memo, key)], ["a", "c", "d"])

    def test_the_byte_cap_evicts_as_many_values_as_needed(self):
        memo = ResultMemo(max_entries=100, max_bytes=10)
        memo.put("a", "xxxx")
        memo.put("b", "yyyy")
        memo.put("c", "zzzzzzzz")  # 8 bytes: both others must go
        self.assertEqual([key for key in "abc" if kept(memo, key)], ["c"])
        self.assertEqual(memo.stats().bytes, 8)
        memo.put("huge", "h" * 11)  # larger than the cap: computed, never kept, evicts nothing
        self.assertEqual([key for key in ("c", "huge") if kept(memo, key)], ["c"])

    def test_zero_entries_keeps_nothing(self):
        memo = ResultMemo(max_entries=0, max_bytes=10**9)
        memo.put("a", "A")
        self.assertIsNone(memo.get("a"))
        self.assertEqual(memo.stats().entries, 0)


def run_result(status, reason) -> RunResult:
    return RunResult(request_id="r", corpus_id="c", request={}, status=status, reason=reason,
                     limits={}, usage={}, trace=[], evidence=[], policy={})


class ResponseMemoTest(unittest.TestCase):
    def test_only_repeatable_runs_are_kept(self):
        memo = ResponseMemo(max_entries=10, max_bytes=10**6)
        cases = [("completed", "evidence_found", True), ("incomplete", "no_match", True),
                 ("limited", "max_searches", True), ("limited", "deadline", False),
                 ("failed", "retrieval_failed", False)]
        for status, reason, expected in cases:
            with self.subTest(status=status, reason=reason):
                memo.put(f"{status}/{reason}",
                         MemoizedRun(Reply("200 OK", b"{}"), run_result(status, reason), ""))
                self.assertEqual(kept(memo, f"{status}/{reason}"), expected)

    def test_replies_are_counted_in_body_bytes(self):
        memo = ResponseMemo(max_entries=10, max_bytes=100)
        memo.put("a", MemoizedRun(Reply("200 OK", b"x" * 60), run_result("completed", ""), ""))
        memo.put("b", MemoizedRun(Reply("200 OK", b"y" * 60), run_result("completed", ""), ""))
        self.assertEqual((memo.stats().entries, memo.stats().bytes, memo.stats().evictions),
                         (1, 60, 1))


class RetrieveMemosTest(unittest.TestCase):
    def test_a_known_body_finds_its_request_and_its_reply(self):
        memos = RetrieveMemos(max_entries=10, max_bytes=10**6)
        self.assertIs(memos.requests.lock, memos.responses.lock)  # one acquisition for both
        self.assertEqual(memos.find(b"{}"), (None, None))
        # An unknown body's request_id is unknown too: no reply was looked up.
        self.assertEqual((memos.requests.stats().misses, memos.responses.stats().misses), (1, 0))
        known = KnownRequest(request=None, request_id="r", body_bytes=2)
        memos.requests.put(b"{}", known)
        self.assertEqual(memos.find(b"{}"), (known, None))
        memoized = MemoizedRun(Reply("200 OK", b"{}"), run_result("completed", ""), "")
        memos.responses.put("r", memoized)
        self.assertEqual(memos.find(b"{}"), (known, memoized))
        self.assertEqual((memos.requests.stats().hits, memos.responses.stats().hits), (2, 1))


class InterruptedTools(RetrievalTools):
    """Tools whose every search is interrupted by the deadline as SQLite's progress handler does."""

    def search(self, search):
        raise ToolFailure(DEADLINE_EXCEEDED)


class AppResponseMemoTest(unittest.TestCase):
    def test_a_repeated_question_costs_one_run(self):
        tools = CountingToolFactory()
        app = create_app(tool_factory=tools, settings=quiet_settings())
        self.addCleanup(app.close)
        completed = next(s for s in SCENARIOS if s.name == "completed")
        first = call(app, "POST", "/retrieve", completed.body())
        for _ in range(5):
            again = call(app, "POST", "/retrieve", completed.body())
            self.assertEqual((again.status, again.headers, again.body),
                             (first.status, first.headers, first.body))
        self.assertEqual(len(tools.created), 1)
        self.assertEqual(memo_lookups(app, "response", "hit"), 5)
        self.assertEqual(memo_lookups(app, "request", "hit"), 5)  # not parsed again either

    def test_the_same_request_spelled_differently_shares_the_reply(self):
        tools = CountingToolFactory()
        app = create_app(tool_factory=tools, settings=quiet_settings())
        self.addCleanup(app.close)
        completed = next(s for s in SCENARIOS if s.name == "completed")
        compact = completed.body()
        spaced = json.dumps(json.loads(compact), indent=2).encode()
        self.assertNotEqual(compact, spaced)
        self.assertEqual(call(app, "POST", "/retrieve", spaced).body,
                         call(app, "POST", "/retrieve", compact).body)
        self.assertEqual(len(tools.created), 1)
        self.assertEqual(memo_lookups(app, "request", "hit"), 0)
        self.assertEqual(memo_lookups(app, "response", "hit"), 1)

    def test_a_failed_run_is_never_replayed(self):
        tools = CountingToolFactory(FailingTools, fail_at=1)
        app = create_app(tool_factory=tools, settings=quiet_settings())
        self.addCleanup(app.close)
        completed = next(s for s in SCENARIOS if s.name == "completed")
        for _ in range(3):
            self.assertEqual(call(app, "POST", "/retrieve", completed.body()).code, 503)
        self.assertEqual(len(tools.created), 3)
        self.assertEqual(memo_lookups(app, "response", "hit"), 0)

    def test_a_run_ended_by_the_deadline_is_never_replayed(self):
        tools = CountingToolFactory(InterruptedTools)
        app = create_app(tool_factory=tools, settings=quiet_settings())
        self.addCleanup(app.close)
        completed = next(s for s in SCENARIOS if s.name == "completed")
        for _ in range(2):
            reply = call(app, "POST", "/retrieve", completed.body())
            self.assertEqual((reply.json()["status"], reply.json()["reason"]),
                             ("limited", "deadline"))
        self.assertEqual(len(tools.created), 2)


if __name__ == "__main__":
    unittest.main()
