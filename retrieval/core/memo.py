"""A bounded, shared memo of pure tool results.

A snapshot is immutable, so a search is a pure function of (query, version, k, match) and a read
of its read token: computing one once per process instead of once per request changes no byte of
any response. The memo is capped in entries and in bytes; once a cap is reached new results are
computed per call and not kept (no eviction: the memo never holds anything a request could see
change). Memoized values are shared between requests and must never be mutated.
"""

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class MemoStats:
    """What the memo holds and how it was used (hits and misses are approximate under threads)."""

    entries: int
    bytes: int
    max_entries: int
    max_bytes: int
    hits: int
    misses: int

    def as_dict(self) -> dict:
        """Return the counters for a log line."""
        return dict(self.__dict__)


class ResultMemo:
    """Memoize values by key within an entry cap and a byte cap."""

    def __init__(self, max_entries: int, max_bytes: int, size_of=len):
        self._values = {}
        self._lock = threading.Lock()
        self._size_of = size_of
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._bytes = 0
        self._hits = 0
        self._misses = 0

    def get_or_compute(self, key, compute):
        """Return the value for key, computing it (and keeping it while there is room)."""
        value = self._values.get(key)
        if value is not None:
            self._hits += 1
            return value
        self._misses += 1
        value = compute()
        size = self._size_of(value)
        with self._lock:
            # A race can only compute an equal value twice; the first one kept wins.
            if key not in self._values and len(self._values) < self.max_entries \
                    and self._bytes + size <= self.max_bytes:
                self._values[key] = value
                self._bytes += size
        return value

    def stats(self) -> MemoStats:
        """Return the current counters."""
        with self._lock:
            return MemoStats(len(self._values), self._bytes, self.max_entries, self.max_bytes,
                             self._hits, self._misses)
