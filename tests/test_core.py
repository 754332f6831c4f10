"""Unit: ranking, tools, admission and the scripted policy, without HTTP."""

import dataclasses
import threading
import unittest

from retrieval.core import digests
from retrieval.core.admission import AdmissionRunner, Limits, RunEnded
from retrieval.core.index import SnapshotIndex
from retrieval.core.outcomes import DEADLINE, DENIAL_REASONS, RUN_REASONS, RUN_STATUSES, repeatable
from retrieval.core.query import quote_fts_terms
from retrieval.core.searches import SearchCall
from retrieval.core.service import RetrievalService, RetrieveRequest
from retrieval.core.snapshot import (
    DEFAULT_COLLECTION,
    default_snapshot_path,
    load_snapshot,
    parse_snapshot,
    seal_snapshot,
)
from retrieval.core.tools import RetrievalTools, ToolFailure
from retrieval.scenarios import QUESTION, SCENARIOS, TRUSTED_FAULT
from retrieval.testing import CountingToolFactory, FailingTools
from tests.support import fixture_document

TIER = "unit"

DEFAULTS = Limits(6, 2, 2, 4096)


def fixture_service(tool_factory=None) -> RetrievalService:
    return RetrievalService.from_path(default_snapshot_path(), tool_factory=tool_factory)


class RankingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.index = SnapshotIndex(load_snapshot(default_snapshot_path()))

    @classmethod
    def tearDownClass(cls):
        cls.index.close()

    def ranked(self, query, version="3.12", k=2):
        ranked = self.index.collection(DEFAULT_COLLECTION).rank(SearchCall(query, version, k))
        return [(p.source_id, score, p.byte_count) for p, score in ranked]

    def test_reference_scores_are_reproduced_exactly(self):
        self.assertEqual(self.ranked("text"), [
            ("path-read", -1.4220532319391636e-06, 154),
            ("path-write", -1.3203883495145633e-06, 224),
        ])
        self.assertEqual(self.ranked("overwritten"), [("path-write", -0.7992166451067194, 224)])

    def test_only_the_exact_version_is_searched(self):
        self.assertEqual(self.ranked("text", version="9.99"), [])
        self.assertEqual(self.ranked("text", version="3.1"), [])

    def test_fts_syntax_in_queries_is_searched_as_text(self):
        hostile = ['NEAR(text overwritten)', 'text OR', '"', '""', 'overwritten*', '-overwritten',
                   'text:overwritten', '(', ')', 'AND', 'NOT text', '^text', 'text + "a"', "'"]
        for query in hostile:
            with self.subTest(query=query):
                self.ranked(query)  # never an FTS5 syntax error
        self.assertEqual(self.ranked("NEAR(text overwritten)"), [])
        self.assertEqual(self.ranked("overwritten*"), self.ranked("overwritten"))
        self.assertEqual(quote_fts_terms('a "b" NEAR'), '"a" """b""" "NEAR"')
        self.assertIsNone(quote_fts_terms("  \t "))

    def test_rule_text_with_fts_syntax_cannot_inject(self):
        document = fixture_document()
        document["policy"]["rules"][0]["initial_query"] = 'text OR "unlink'
        service = RetrievalService(parse_snapshot(seal_snapshot(document)))
        self.addCleanup(service.close)
        result = service.retrieve(RetrieveRequest(QUESTION, "3.12", DEFAULT_COLLECTION, DEFAULTS))
        self.assertEqual(result.trace[0]["status"], "succeeded")
        self.assertEqual(result.trace[0]["result"]["results"], [])

    def test_each_thread_gets_its_own_connection(self):
        seen = []

        def search():
            seen.append(self.ranked("overwritten"))

        threads = [threading.Thread(target=search) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        self.assertEqual(len(seen), 4)
        self.assertTrue(all(result == seen[0] for result in seen))


class FixtureToolsTestCase(unittest.TestCase):
    """A fresh service over the fixture and one request's tools for its default collection."""

    def setUp(self):
        self.service = fixture_service()
        self.addCleanup(self.service.close)
        self.tools = RetrievalTools(self.service.collection(DEFAULT_COLLECTION),
                                    self.service.memo)
        self.addCleanup(self.tools.close)


class ToolsTest(FixtureToolsTestCase):

    def test_search_hits_are_read_handles_with_documented_ids(self):
        found = self.tools.search(SearchCall("text", "3.12", 2))
        corpus = self.service.corpus_id
        self.assertEqual(found["search_request_id"],
                         digests.search_request_id(corpus, {"query": "text", "version": "3.12",
                                                            "k": 2}))
        handle = found["results"][0]
        self.assertEqual(list(handle), [
            "corpus_id", "search_request_id", "passage_id", "source_id", "version",
            "document_revision", "source_sha256", "start_line", "end_line", "text_sha256",
            "byte_count", "native_score", "rank", "read_token"])
        self.assertEqual(handle["read_token"],
                         digests.read_token(found["search_request_id"], handle["passage_id"]))

    def test_read_returns_text_with_provenance_and_digest(self):
        handle = self.tools.search(SearchCall("overwritten", "3.12", 2))["results"][0]
        result = self.tools.read(handle)
        self.assertTrue(result["text"].startswith("Path.write_text("))
        self.assertTrue(result["url"].endswith("#pathlib.Path.write_text"))
        self.assertEqual(result["read_request_id"], digests.read_request_id(handle["read_token"]))
        without = {k: v for k, v in result.items() if k != "result_sha256"}
        self.assertEqual(result["result_sha256"], digests.read_result_sha256(without))

    def test_read_refuses_altered_and_foreign_handles(self):
        handle = self.tools.search(SearchCall("text", "3.12", 2))["results"][0]
        altered = [
            dict(handle, byte_count=1),
            dict(handle, start_line=1.0),  # equal in Python, not the same JSON
            dict(handle, rank=True),
            dict(handle, passage_id="0" * 64),
            {k: v for k, v in handle.items() if k != "native_score"},
            "not a handle",
        ]
        for candidate in altered:
            with self.subTest(candidate=str(candidate)[:60]):
                with self.assertRaises(ToolFailure) as caught:
                    self.tools.read(candidate)
                self.assertEqual(caught.exception.reason, "handle_not_issued")
        other = RetrievalTools(self.service.collection(DEFAULT_COLLECTION), self.service.memo)
        self.addCleanup(other.close)
        with self.assertRaises(ToolFailure):
            other.read(handle)  # issued by another request's tools

    def test_closed_tools_refuse_everything(self):
        handle = self.tools.search(SearchCall("text", "3.12", 2))["results"][0]
        self.tools.close()
        with self.assertRaises(ToolFailure):
            self.tools.read(handle)
        with self.assertRaises(ToolFailure):
            self.tools.search(SearchCall("text", "3.12", 2))


class AdmissionTest(FixtureToolsTestCase):
    def runner(self, *limits):
        return AdmissionRunner(Limits(*limits), self.tools)

    def test_steps_are_checked_before_searches(self):
        runner = self.runner(0, 0, 0, 0)
        with self.assertRaises(RunEnded) as caught:
            runner.search(SearchCall("text", "3.12", 2))
        self.assertEqual((caught.exception.status, caught.exception.reason),
                         ("limited", "max_steps"))
        self.assertEqual(runner.trace, [{
            "action": {"tool": "search", "arguments": {"query": "text", "version": "3.12", "k": 2}},
            "decision": "denied", "reason": "max_steps", "invoked": False}])

    def test_searches_then_reads_then_source_bytes(self):
        runner = self.runner(5, 0, 5, 5000)
        with self.assertRaises(RunEnded) as caught:
            runner.search(SearchCall("text", "3.12", 2))
        self.assertEqual(caught.exception.reason, "max_searches")

        runner = self.runner(5, 1, 0, 0)
        handle = runner.search(SearchCall("text", "3.12", 2))["results"][0]
        with self.assertRaises(RunEnded) as caught:
            runner.read(handle)
        self.assertEqual(caught.exception.reason, "max_reads")

        runner = self.runner(5, 1, 1, 153)
        handle = runner.search(SearchCall("text", "3.12", 2))["results"][0]
        with self.assertRaises(RunEnded) as caught:
            runner.read(handle)
        self.assertEqual(caught.exception.reason, "max_source_bytes")
        self.assertEqual(runner.trace[-1]["preflight_source_bytes"], 154)
        self.assertFalse(runner.trace[-1]["invoked"])
        self.assertEqual(runner.usage()["reads"], 0)

    def test_exact_byte_allowance_admits_the_read(self):
        runner = self.runner(5, 1, 1, 154)
        handle = runner.search(SearchCall("text", "3.12", 2))["results"][0]
        runner.read(handle)
        self.assertEqual(runner.usage(), {"steps": 2, "searches": 1, "reads": 1,
                                          "reserved_source_bytes": 154,
                                          "delivered_source_bytes": 154})

    def test_failed_action_stays_charged(self):
        tools = FailingTools(self.service.collection(DEFAULT_COLLECTION), self.service.memo,
                             fail_at=2)
        self.addCleanup(tools.close)
        runner = AdmissionRunner(DEFAULTS, tools)
        handle = runner.search(SearchCall("text", "3.12", 2))["results"][0]
        with self.assertRaises(RunEnded) as caught:
            runner.read(handle)
        self.assertEqual((caught.exception.status, caught.exception.reason),
                         ("failed", "retrieval_failed"))
        entry = runner.trace[-1]
        self.assertEqual((entry["decision"], entry["invoked"], entry["status"], entry["reason"]),
                         ("executed", True, "failed", "tool_failure"))
        self.assertEqual(entry["usage_after"], {"steps": 2, "searches": 1, "reads": 1,
                                                "reserved_source_bytes": 154,
                                                "delivered_source_bytes": 0})


class PolicyTest(unittest.TestCase):
    def setUp(self):
        self.factory = CountingToolFactory()
        self.service = fixture_service(self.factory)
        self.addCleanup(self.service.close)

    def run_request(self, question=QUESTION, version="3.12", limits=DEFAULTS):
        return self.service.retrieve(RetrieveRequest(question, version, DEFAULT_COLLECTION, limits))

    def test_completed_reads_until_the_marker(self):
        result = self.run_request()
        self.assertEqual((result.status, result.reason),
                         ("completed", "configured_context_marker_found"))
        self.assertEqual([e["source_id"] for e in result.evidence], ["path-read", "path-write"])
        self.assertEqual([t["action"]["tool"] for t in result.trace],
                         ["search", "read", "search", "read"])

    def test_rule_matching_is_case_folded_and_first_wins(self):
        self.assertEqual(self.run_request(question="WRITE_TEXT?").policy["name"], "existing-path")
        self.assertEqual(self.run_request(question="An EXISTING FILE").policy["name"],
                         "existing-path")
        self.assertEqual(self.run_request(question="backups").policy["name"], "no-matching-rule")

    def test_no_refinement_ends_after_the_first_round(self):
        result = self.run_request(question="How often are backups taken?")
        self.assertEqual((result.status, result.reason), ("incomplete", "no_refinement_rule"))
        self.assertEqual(result.usage["steps"], 2)

    def test_rounds_run_out_without_hits(self):
        result = self.run_request(version="9.99")
        self.assertEqual((result.status, result.reason), ("incomplete", "round_limit"))
        self.assertEqual(result.usage["searches"], 2)

    def test_an_unread_passage_is_preferred(self):
        document = fixture_document()
        document["policy"]["rules"][0].update(refinement_query="text", max_rounds=3)
        service = RetrievalService(parse_snapshot(seal_snapshot(document)))
        self.addCleanup(service.close)
        result = service.retrieve(
            RetrieveRequest(QUESTION, "3.12", DEFAULT_COLLECTION, Limits(10, 3, 3, 4096)))
        self.assertEqual([e["source_id"] for e in result.evidence], ["path-read", "path-write"])
        self.assertEqual((result.status, result.reason), ("completed",
                                                           "configured_context_marker_found"))

    def test_denial_limits_the_run(self):
        result = self.run_request(limits=Limits(1, 2, 2, 4096))
        self.assertEqual((result.status, result.reason), ("limited", "max_steps"))
        self.assertEqual(result.trace[-1]["preflight_source_bytes"], 154)

    def test_tools_close_on_every_path(self):
        self.run_request()
        self.run_request(limits=Limits(1, 2, 2, 4096))
        failing = CountingToolFactory(FailingTools, fail_at=1)
        service = fixture_service(failing)
        self.addCleanup(service.close)
        request = RetrieveRequest(QUESTION, "3.12", DEFAULT_COLLECTION, DEFAULTS)
        self.assertEqual(service.retrieve(request).status, "failed")
        self.assertEqual((len(self.factory.created), self.factory.open_count), (2, 0))
        self.assertEqual((len(failing.created), failing.open_count), (1, 0))

    def test_identical_requests_give_identical_results(self):
        other = fixture_service()
        self.addCleanup(other.close)
        first = self.run_request()
        second = other.retrieve(RetrieveRequest(QUESTION, "3.12", DEFAULT_COLLECTION, DEFAULTS))
        self.assertEqual(digests.canonical_json(first.__dict__),
                         digests.canonical_json(second.__dict__))


class RunOutcomeTest(unittest.TestCase):
    def test_denial_reasons_are_the_allowances_in_the_order_checked_then_the_deadline(self):
        self.assertEqual(DENIAL_REASONS,
                         tuple(field.name for field in dataclasses.fields(Limits)) + (DEADLINE,))

    def test_every_outcome_a_scenario_expects_is_declared(self):
        outcomes = [(s.expect["status"], s.expect["reason"])
                    for s in SCENARIOS + (TRUSTED_FAULT,) if "status" in s.expect]
        self.assertEqual({status for status, _ in outcomes}, set(RUN_STATUSES))
        for status, reason in outcomes:
            self.assertIn(reason, RUN_REASONS[status])

    def test_only_the_deadline_and_failures_are_not_repeatable(self):
        unrepeatable = {(status, reason) for status, reasons in RUN_REASONS.items()
                        for reason in reasons if not repeatable(status, reason)}
        self.assertEqual(unrepeatable, {("limited", "deadline"), ("failed", "retrieval_failed")})


if __name__ == "__main__":
    unittest.main()
