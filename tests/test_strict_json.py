"""Unit: the strict JSON decoder accepts one meaning per document and refuses the rest."""

import unittest

from retrieval.core.strict_json import MAX_DEPTH, StrictJSONError, loads_strict

TIER = "unit"


class StrictJSONTest(unittest.TestCase):
    def assertRefused(self, data: bytes):
        with self.assertRaises(StrictJSONError, msg=data[:80]):
            loads_strict(data)

    def test_accepts_plain_documents(self):
        self.assertEqual(loads_strict(b' {"a": [1, 2.5, "\\u00e9", null, true]} \n'),
                         {"a": [1, 2.5, "\u00e9", None, True]})
        self.assertEqual(loads_strict('"\U0001F600"'.encode("utf-8")), "\U0001F600")
        self.assertEqual(loads_strict(b'"\\ud83d\\ude00"'), "\U0001F600")  # a valid pair

    def test_refuses_invalid_utf8_and_bom(self):
        self.assertRefused(b'{"a": "\xff"}')
        self.assertRefused(b'{"a": "\xed\xa0\x80"}')  # a surrogate encoded in UTF-8
        self.assertRefused(b"\xef\xbb\xbf{}")

    def test_refuses_duplicate_keys_at_any_depth(self):
        self.assertRefused(b'{"a": 1, "a": 1}')
        self.assertRefused(b'{"a": {"b": 1, "b": 2}}')
        self.assertRefused(b'[{"x": [{"k": 1, "k": 1}]}]')

    def test_refuses_non_finite_and_unrepresentable_numbers(self):
        for token in (b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e999"):
            self.assertRefused(b'{"n": ' + token + b"}")
        self.assertRefused(b"1" * 5000)  # over Python's int digit limit

    def test_refuses_lone_surrogate_escapes(self):
        self.assertRefused(b'"\\ud800"')
        self.assertRefused(b'{"\\udc00": 1}')
        self.assertRefused(b'["ok", "\\ude00 tail"]')

    def test_refusals_say_where(self):
        # Offsets are in bytes of the input, found even for rules the stdlib decoder cannot see.
        cases = [
            (b'[{"x": [{"k": 1, "k": 1}]}]', 17, 'duplicate key "k"'),
            (b'{"\xc3\xa9": 1, "b": "\\ud800"}', 15, "lone surrogate"),
            (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), MAX_DEPTH, "nesting deeper"),
            (b"[" * 5000 + b"]" * 5000, MAX_DEPTH, "nesting deeper"),
            (b"[" * MAX_DEPTH + b"1" + b"]" * MAX_DEPTH, MAX_DEPTH, "nesting deeper"),
            (b'{"k": ' * MAX_DEPTH + b'"v"' + b"}" * MAX_DEPTH, 6 * MAX_DEPTH, "nesting deeper"),
            (b'{"a": 1,}', 8, "expecting property name"),
        ]
        for data, offset, words in cases:
            with self.subTest(data=data[:40]):
                with self.assertRaises(StrictJSONError) as caught:
                    loads_strict(data)
                self.assertEqual(caught.exception.byte_offset, offset)
                self.assertIn(words, str(caught.exception))
                self.assertTrue(str(caught.exception).endswith(f" at byte {offset}"))

    def test_refuses_excessive_nesting(self):
        loads_strict(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
        self.assertRefused(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
        self.assertRefused(b"[" * 5000 + b"]" * 5000)  # deeper than the C scanner's stack

    def test_refuses_trailing_garbage_and_empty_input(self):
        for data in (b'{"a": 1} x', b'{"a": 1}{}', b"", b"   ", b'{"a": 1', b"{'a': 1}"):
            self.assertRefused(data)


if __name__ == "__main__":
    unittest.main()
