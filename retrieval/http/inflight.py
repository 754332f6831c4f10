"""Concurrency admission: at most `limit` /retrieve requests in flight, the next refused at once.

"In flight" means admitted and not yet answered. Under `retrieval serve` the server admits a
request when Waitress hands it to the task queue (retrieval/serve/server.py), so requests
waiting for a worker thread count too and the queue of retrievals never grows past the limit; it
marks the WSGI environ with the decision under ADMISSION_KEY. Under any other WSGI server the
app admits the request itself when it starts running it, which bounds concurrent runs.
"""

import threading

# environ key set by retrieval/serve/server.py: True (admitted; the server releases the slot), False
# (refused), or DRAINING (arrived after the drain began: refused, never queued). Absent: the app
# admits on its own.
ADMISSION_KEY = "retrieval.admitted"
DRAINING = "draining"


class InFlightGate:
    """A non-blocking counting semaphore with a readable count, and an optional share per peer.

    per_peer (0: none): the most slots one peer (a client address, as the server names it) may
    hold at once, so a few clients looping expensive requests cannot take every slot.
    """

    def __init__(self, limit: int, per_peer: int = 0):
        self.limit = limit
        self.per_peer = per_peer
        self._count = 0
        self._by_peer: dict = {}
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        """Return how many requests hold a slot now."""
        return self._count

    def try_enter(self, peer=None) -> bool:
        """Take a slot if one is free (and the peer has its share left); never wait."""
        with self._lock:
            if self._count >= self.limit:
                return False
            if self.per_peer and peer is not None:
                held = self._by_peer.get(peer, 0)
                if held >= self.per_peer:
                    return False
                self._by_peer[peer] = held + 1
            self._count += 1
            return True

    def leave(self, peer=None):
        """Give back a slot taken by try_enter (with the same peer)."""
        with self._lock:
            self._count -= 1
            if self.per_peer and peer is not None:
                held = self._by_peer.pop(peer) - 1
                if held:
                    self._by_peer[peer] = held
