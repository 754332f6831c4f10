"""Unit: snapshots are validated, identified by content, and refused when they lie."""

import copy
import dataclasses
import json
import os
import unittest

from retrieval.core import digests
from retrieval.core.identity import identity_content
from retrieval.core.snapshot import (
    Policy,
    SnapshotError,
    compute_corpus_id,
    default_snapshot_path,
    load_snapshot,
    parse_snapshot,
    seal_snapshot,
)
from retrieval.ingest.builder import DEFAULT_POLICY, default_policy
from tests.support import fixture_document, temporary_directory, write_snapshot

TIER = "unit"


class FixtureSnapshotTest(unittest.TestCase):
    def test_fixture_loads_with_four_passages_and_one_rule(self):
        snapshot = load_snapshot(default_snapshot_path())
        self.assertEqual([p.source_id for p in snapshot.passages],
                         ["path-read", "path-write", "path-exists", "path-unlink"])
        self.assertEqual({p.version for p in snapshot.passages}, {"3.12"})
        self.assertEqual([r.name for r in snapshot.rules], ["existing-path"])
        self.assertEqual(snapshot.fallback.describe(), {
            "name": "no-matching-rule", "initial_query": "text", "refinement_query": None,
            "required_marker": None, "max_rounds": 2})

    def test_fixture_is_sealed_exactly(self):
        document = fixture_document()
        self.assertEqual(seal_snapshot(document), document)

    def test_passage_digests_follow_their_definitions(self):
        snapshot = load_snapshot(default_snapshot_path())
        passage = snapshot.passages[1]
        self.assertEqual(passage.text_sha256, digests.sha256_hex(passage.text.encode("utf-8")))
        self.assertEqual(passage.byte_count, 224)
        self.assertEqual(passage.passage_id, digests.passage_id(
            snapshot.corpus_id, "path-write", "3.12", 1, 1, passage.text_sha256))
        self.assertEqual(passage.document_revision, digests.document_revision(
            "path-write", "3.12", passage.source_sha256))


class SnapshotIdentityTest(unittest.TestCase):
    def test_any_change_to_text_or_rules_changes_corpus_id(self):
        base = seal_snapshot(fixture_document())["corpus_id"]
        edited_text = fixture_document()
        edited_text["passages"][0]["text"] += " "
        edited_rule = fixture_document()
        edited_rule["policy"]["rules"][0]["max_rounds"] = 3
        reordered = fixture_document()
        reordered["passages"].reverse()
        ids = {base} | {seal_snapshot(d)["corpus_id"]
                        for d in (edited_text, edited_rule, reordered)}
        self.assertEqual(len(ids), 4)

    def test_streamed_corpus_id_equals_the_whole_document_digest(self):
        document = fixture_document()
        contents = [{k: v for k, v in p.items() if k not in ("passage_id", "text_sha256")}
                    for p in document["passages"]]
        whole = digests.corpus_id(identity_content(contents, document["policy"]))
        self.assertEqual(compute_corpus_id(contents, document["policy"]), whole)
        self.assertEqual(whole, document["corpus_id"])

    def test_digests_of_different_kinds_never_share_inputs(self):
        inputs = {"read_token": "x"}
        self.assertNotEqual(digests.tagged_digest("a", inputs), digests.tagged_digest("b", inputs))


class SnapshotRefusalTest(unittest.TestCase):
    def refused(self, document, fragment):
        with self.assertRaises(SnapshotError) as caught:
            parse_snapshot(document)
        self.assertIn(fragment, str(caught.exception))

    def test_edited_text_is_refused_naming_the_field(self):
        document = fixture_document()
        document["passages"][2]["text"] = document["passages"][2]["text"].replace("True", "False")
        self.refused(document, "passages[2].text_sha256")

    def test_edited_rule_is_refused_by_corpus_id(self):
        document = fixture_document()
        document["policy"]["rules"][0]["required_marker"] = "replaced"
        self.refused(document, "corpus_id: does not match")

    def test_edited_passage_id_is_refused(self):
        document = fixture_document()
        document["passages"][0]["passage_id"] = "0" * 64
        self.refused(document, "passages[0].passage_id")

    def test_duplicate_passages_are_refused(self):
        document = fixture_document()
        document["passages"].append(copy.deepcopy(document["passages"][0]))
        sealed = seal_snapshot(document)
        self.refused(sealed, "duplicates passages[0]")

    def test_schema_errors_name_what_is_wrong(self):
        cases = [
            (lambda d: d["passages"][0].pop("url"), "passages[0]: missing field 'url'"),
            (lambda d: d["passages"][0].update(start_line=True), "passages[0].start_line"),
            (lambda d: d["passages"][0].update(end_line=0), "passages[0].end_line"),
            (lambda d: d["passages"][0].update(version="3.x"), "passages[0].version"),
            (lambda d: d.update(extra=1), "unknown field 'extra'"),
            (lambda d: d["policy"]["rules"][0].update(max_rounds=0), "max_rounds"),
            (lambda d: d["policy"]["rules"][0].update(phrases=["Write_Text"]), "case-folded"),
            (lambda d: d["policy"]["fallback"].update(name="existing-path"), "duplicate rule"),
            (lambda d: d.update(bm25={"k1": 2.0, "b": 0.75}), "bm25"),
        ]
        for edit, fragment in cases:
            with self.subTest(fragment=fragment):
                document = fixture_document()
                edit(document)
                self.refused(document, fragment)

    def test_inconsistent_source_digest_is_refused(self):
        document = fixture_document()
        extra = dict(document["passages"][0], start_line=2, end_line=2, text="More text.",
                     source_sha256="1" * 64)
        document["passages"].append(extra)
        self.refused(seal_snapshot(document), "source_sha256")


class QuestionTermsPolicyTest(unittest.TestCase):
    def fallback(self, **fields):
        document = fixture_document()
        document["policy"]["fallback"] = dict(
            name="question-terms", kind="question_terms", phrases=[], initial_query=None,
            refinement_query="overwritten", required_marker="overwritten", max_rounds=2,
            stop_words=["the", "a", "of", "does"], **fields)
        return document

    def test_derives_case_folded_words_without_stop_words_or_punctuation(self):
        snapshot = parse_snapshot(seal_snapshot(self.fallback()))
        rule = snapshot.select_rule('Does THE "pathlib" NEAR(a) module* of -the- Path: path?')
        self.assertEqual(rule.initial_query, "pathlib near module path")
        self.assertEqual(rule.initial_match, "any")
        self.assertEqual(rule.describe()["kind"], "question_terms")
        self.assertEqual(snapshot.select_rule("write_text?").name, "existing-path")

    def test_policy_shape_is_checked(self):
        bad = self.fallback()
        bad["policy"]["fallback"]["initial_query"] = "text"
        with self.assertRaisesRegex(SnapshotError, "must be null"):
            parse_snapshot(seal_snapshot(bad))
        bad = self.fallback()
        bad["policy"]["fallback"]["stop_words"] = ["The"]
        with self.assertRaisesRegex(SnapshotError, "stop_words"):
            parse_snapshot(seal_snapshot(bad))
        bad = fixture_document()
        bad["policy"]["fallback"]["stop_words"] = ["the"]
        with self.assertRaisesRegex(SnapshotError, "only a question_terms fallback"):
            parse_snapshot(seal_snapshot(bad))


class PolicyTest(unittest.TestCase):
    def test_a_snapshot_holds_its_policy_parsed_once_with_the_document_it_came_from(self):
        document = fixture_document()
        snapshot = parse_snapshot(document)
        policy = snapshot.policy
        self.assertIsInstance(policy, Policy)
        # The very document corpus_id digests: parsing changes none of its bytes.
        self.assertIs(policy.document, document["policy"])
        self.assertEqual(policy, Policy.parse(fixture_document()["policy"]))
        self.assertEqual((snapshot.rules, snapshot.fallback, snapshot.ranking),
                         (policy.rules, policy.fallback, None))
        self.assertIsNone(policy.semantic)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            policy.rules = ()
        with self.assertRaisesRegex(SnapshotError, "^policy: a built snapshot's policy needs"):
            policy.built_ranking()

    def test_a_built_policy_is_parsed_with_its_sections(self):
        fitted, fielded = Policy.parse(DEFAULT_POLICY), Policy.parse(default_policy("fielded"))
        self.assertEqual(fitted.fallback.name, DEFAULT_POLICY["fallback"]["name"])
        self.assertIs(fitted.built_ranking(), fitted.ranking)
        self.assertIsNotNone(fitted.ranking.model)
        self.assertIsNone(fielded.built_ranking().model)
        self.assertEqual(fielded.ranking.weights, fitted.ranking.weights)
        with self.assertRaisesRegex(SnapshotError, "^policy.semantic: re-ranks a fielded"):
            Policy.parse(dict(fixture_document()["policy"], semantic={
                "candidates": 1, "dimensions": 1, "model_sha256": "0" * 64, "recipe": "r",
                "weight": 0.5}))


class LoadSnapshotTest(unittest.TestCase):
    def test_missing_truncated_and_pinned_mismatch_are_refused(self):
        directory = temporary_directory(self)
        with self.assertRaisesRegex(SnapshotError, "cannot read"):
            load_snapshot(os.path.join(directory, "absent.json"))
        truncated = os.path.join(directory, "truncated.json")
        with open(default_snapshot_path(), "rb") as source, open(truncated, "wb") as out:
            out.write(source.read()[:500])
        with self.assertRaisesRegex(SnapshotError, "not strict JSON"):
            load_snapshot(truncated)
        with self.assertRaisesRegex(SnapshotError, "is not the expected"):
            load_snapshot(default_snapshot_path(), expect_corpus_id="f" * 64)

    def test_pinned_identity_loads(self):
        corpus = load_snapshot(default_snapshot_path()).corpus_id
        self.assertEqual(load_snapshot(default_snapshot_path(), corpus).corpus_id, corpus)

    def test_duplicate_keys_in_the_file_are_refused(self):
        path = os.path.join(temporary_directory(self), "dup.json")
        text = json.dumps(fixture_document())
        with open(path, "w") as out:
            out.write(text[:-1] + ', "format": "retrieval-snapshot"}')
        with self.assertRaisesRegex(SnapshotError, "duplicate key"):
            load_snapshot(path)

    def test_written_snapshot_round_trips(self):
        path = write_snapshot(temporary_directory(self), fixture_document())
        self.assertEqual(load_snapshot(path).corpus_id,
                         load_snapshot(default_snapshot_path()).corpus_id)


if __name__ == "__main__":
    unittest.main()
