"""The result memo: bounded in entries and bytes, least recently used evicted first."""

import unittest

from retrieval.core.memo import ResultMemo


def kept(memo, key) -> bool:
    """Tell whether memo holds key, without counting a lookup as a use."""
    return key in memo._values


class ResultMemoTest(unittest.TestCase):
    def test_distinct_keys_past_the_entry_cap_keep_being_cached(self):
        memo = ResultMemo(max_entries=100, max_bytes=10**9)
        for number in range(20_000):
            memo.get_or_compute(("search", number), lambda: f"result {number}")
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


if __name__ == "__main__":
    unittest.main()
