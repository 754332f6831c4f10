"""A bounded, shared memo of pure values, least recently used evicted first.

A snapshot is immutable, so a search is a pure function of its arguments (a SearchCall) and a
read of its read token: computing one once per process instead of once per request changes no
byte of any response. The memo is capped in entries and in bytes; when a new value would pass a
cap, the least recently used values are evicted to make room, so a stream of distinct keys never
stops caching for everyone (a value larger than the byte cap is computed and not kept). Evicting
cannot change a response either: an evicted value is computed again, equal. Memoized values are
shared between requests and must never be mutated.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True)
class MemoStats:
    """What the memo holds and how it was used."""

    entries: int
    bytes: int
    max_entries: int
    max_bytes: int
    hits: int
    misses: int
    evictions: int

    def as_dict(self) -> dict:
        """Return the counters for a log line."""
        return dict(self.__dict__)


class ResultMemo:
    """Memoize values by key within entry and byte caps, evicting the least recently used."""

    def __init__(self, max_entries: int, max_bytes: int, size_of=len, lock=None):
        # lock: shared with other memos when one caller looks them up together (get_held).
        self._values: OrderedDict = OrderedDict()  # key -> (value, size), least recently used first
        self.lock = lock or threading.Lock()
        self._size_of = size_of
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._bytes = 0
        self._hits = 0
        self._misses = 0
        self._evictions = 0

    def get(self, key):
        """Return the value kept for key (now the most recently used), or None."""
        with self.lock:
            return self.get_held(key)

    def get_held(self, key):
        """Return what get(key) returns; the caller holds self.lock."""
        kept = self._values.get(key)
        if kept is None:
            self._misses += 1
            return None
        self._hits += 1
        self._values.move_to_end(key)
        return kept[0]

    def put(self, key, value):
        """Keep value for key, evicting the least recently used values to stay within the caps."""
        size = self._size_of(value)
        if size > self.max_bytes or self.max_entries <= 0:
            return
        with self.lock:
            if key in self._values:  # a race computed an equal value twice; the first one stays
                return
            values = self._values
            while values and (len(values) >= self.max_entries
                              or self._bytes + size > self.max_bytes):
                _, (_, evicted_size) = values.popitem(last=False)
                self._bytes -= evicted_size
                self._evictions += 1
            values[key] = (value, size)
            self._bytes += size

    def get_or_compute(self, key, compute):
        """Return the value for key, computing and keeping it if it is not kept."""
        value = self.get(key)
        if value is None:
            value = compute()
            self.put(key, value)
        return value

    def stats(self) -> MemoStats:
        """Return the current counters."""
        with self.lock:
            return MemoStats(len(self._values), self._bytes, self.max_entries, self.max_bytes,
                             self._hits, self._misses, self._evictions)
