"""The driver against real servers, and the checker that re-verifies what it saved."""

import copy
import hashlib
import io
import json
import os
import unittest
from contextlib import redirect_stdout

import run_scenarios
from retrieval.check import check_saved_result
from retrieval.cli.main import main as retrieval_main
from retrieval.core import digests
from tests.support import temporary_directory

TIER = "server"

REFERENCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..",
                         "shared", "reference-recording", "saved-result.json")


# The production-boundary issue adds the collection to the normalized request.
COLLECTION_MEMBER = '"collection":"default",'


# The errors-that-explain issue adds words beside the seed's stable members.
ERROR_WORDS = ("message", "byte_offset")
ISSUE_WORDS = ("message", "limit", "pattern")


def without_words(error_body):
    """Return an error body with exactly the members the errors-that-explain issue added."""
    error = {k: v for k, v in error_body["error"].items() if k not in ERROR_WORDS}
    if "issues" in error:
        error["issues"] = [{k: v for k, v in issue.items() if k not in ISSUE_WORDS}
                           for issue in error["issues"]]
    return {**error_body, "error": error}


def shape(value):
    """Replace every digest with a placeholder, keeping keys, order and other values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return "<sha256>"
    return value


def reseal_raw(case, edit_text):
    """Edit a case's raw text consistently (parsed copy and digests follow), as a forger would."""
    case["raw_response_text"] = edit_text(case["raw_response_text"])
    case["response"] = json.loads(case["raw_response_text"])
    digest = hashlib.sha256(case["raw_response_text"].encode("utf-8")).hexdigest()
    case["body_sha256_header"] = case["raw_body_sha256"] = digest


class DriverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.result, cls.problems = run_scenarios.run()

    def test_driver_passes_and_records_lifecycles(self):
        self.assertEqual(self.problems, [])
        for name in ("lifecycle", "fault_lifecycle"):
            lifecycle = self.result[name]
            self.assertEqual(lifecycle["shutdown_exit_status"], 0)
            self.assertTrue(lifecycle["startup_observed"])
            self.assertTrue(lifecycle["shutdown_complete_observed"])
            self.assertTrue(lifecycle["server_process_reaped"])
            self.assertIn("<inherited-loopback-socket>", lifecycle["command"])

    def test_saved_layout_matches_the_reference_recording(self):
        self.assertEqual(list(self.result), ["execution_mode", "model_called", "health", "cases",
                                             "trusted_fault", "lifecycle", "fault_lifecycle",
                                             "interpretation"])
        if not os.path.exists(REFERENCE):
            self.skipTest("shared/reference-recording is not beside this checkout")
        with open(REFERENCE, encoding="utf-8") as handle:
            reference = json.load(handle)
        self.assertEqual(list(self.result["lifecycle"]), list(reference["lifecycle"]))
        ours = {case["scenario"]: case for case in self.result["cases"]}
        for theirs in reference["cases"] + [reference["trusted_fault"]]:
            with self.subTest(theirs["scenario"]):
                mine = ours.get(theirs["scenario"], self.result["trusted_fault"])
                self.assertEqual(list(mine), list(theirs))
                self.assertEqual(mine["http_status"], theirs["http_status"])
                # Same shapes, statuses, counters, byte counts and scores; digests differ. Ours
                # goes further where an issue says so: the request echo names its collection.
                response = copy.deepcopy(mine["response"])
                if "error" in response:
                    # Every error body is the seed's byte for byte once the words are removed.
                    self.assertTrue(response["error"]["message"])
                    self.assertEqual(json.dumps(without_words(response), separators=(",", ":")),
                                     theirs["raw_response_text"])
                    continue
                added = 0
                if "request" in response:
                    self.assertEqual(response["request"].pop("collection"), "default")
                    added = len(COLLECTION_MEMBER)
                    self.assertIn(COLLECTION_MEMBER, mine["raw_response_text"])
                self.assertEqual(shape(response), shape(theirs["response"]))
                self.assertEqual(len(mine["raw_response_text"]),
                                 len(theirs["raw_response_text"]) + added)

    def test_checker_accepts_the_saved_result(self):
        self.assertEqual(check_saved_result(copy.deepcopy(self.result)), [])

    def test_checker_rejects_edits(self):
        def edited(edit):
            document = copy.deepcopy(self.result)
            edit(document)
            return check_saved_result(document)

        def int_to_float(case):
            reseal_raw(case, lambda text: text.replace('"max_steps":6,', '"max_steps":6.0,', 1))

        edits = {
            "request 6 -> 6.0, digests resealed": lambda d: int_to_float(d["cases"][0]),
            "one byte of evidence text": lambda d: reseal_raw(
                d["cases"][0], lambda text: text.replace("overwritten.", "overwritten!", 1)),
            "raw text only": lambda d: d["cases"][1].update(
                raw_response_text=d["cases"][1]["raw_response_text"].replace("2", "3", 1)),
            "parsed copy only": lambda d: d["cases"][2]["response"].update(status="completed"),
            "parsed number type only": lambda d: d["cases"][3]["response"]["usage"].update(
                steps=1.0),
            "error body": lambda d: d["cases"][6].update(raw_response_text="{}"),
            "fault case": lambda d: reseal_raw(
                d["trusted_fault"], lambda text: text.replace('"steps":1', '"steps":0', 1)),
        }
        for name, edit in edits.items():
            with self.subTest(name):
                self.assertNotEqual(edited(edit), [])

    def test_check_command_exit_codes(self):
        directory = temporary_directory(self)
        good = os.path.join(directory, "good.json")
        bad = os.path.join(directory, "bad.json")
        with open(good, "w", encoding="utf-8") as handle:
            json.dump(self.result, handle)
        document = copy.deepcopy(self.result)
        reseal_raw(document["cases"][0],
                   lambda text: text.replace('"max_steps":6,', '"max_steps":6.0,', 1))
        with open(bad, "w", encoding="utf-8") as handle:
            json.dump(document, handle)
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(retrieval_main(["check", good]), 0)
            self.assertEqual(retrieval_main(["check", bad]), 1)
        self.assertIn("completed: rejected: ", out.getvalue())
        self.assertIn("request_id does not recompute", out.getvalue())

    def test_check_command_rejects_what_it_cannot_verify(self):
        # Every digest resealed, so only the item that is not an object is wrong.
        directory = temporary_directory(self)
        for part, item in (("evidence", '"unverified text"'), ("trace", "7")):
            with self.subTest(part):
                document = copy.deepcopy(self.result)
                reseal_raw(document["cases"][0],
                           lambda text, part=part, item=item: digests.append_result_sha256(
                               digests.split_result_sha256(text.encode())[0].replace(
                                   f'"{part}":['.encode(), f'"{part}":[{item},'.encode(), 1)
                           ).decode())
                path = os.path.join(directory, f"{part}.json")
                with open(path, "w", encoding="utf-8") as handle:
                    json.dump(document, handle)
                out = io.StringIO()
                with redirect_stdout(out):
                    self.assertEqual(retrieval_main(["check", path]), 1)
                self.assertEqual(out.getvalue().splitlines()[0],
                                 f"completed: rejected: {part}: an item is not an object")


if __name__ == "__main__":
    unittest.main()
