"""uvicorn's HTTP/1.1 protocol with a deadline on each request's arrival (the slowloris guard).

uvicorn times out only idle keep-alive connections: a request head sent a byte at a time, or
never finished, holds its connection forever, and 120 of them held every slot of
`retrieval mcp --transport http` (at the fd limit it logged 262 MB of tracebacks in 80 s). Here a
connection whose request has not arrived in full within the deadline, counted from its first
byte (or from the connection, for the first request), is closed, as `retrieval serve` does.
"""

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# States of the client's side while its request is still arriving.
_ARRIVING = (h11.IDLE, h11.SEND_BODY)


class RequestDeadlineProtocol(H11Protocol):
    """Close a connection whose request is not in within `deadline_s` of its first byte."""

    deadline_s = 20.0  # set per server by deadline_protocol()
    _timer = None

    def connection_made(self, transport):
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._timer is None and self.conn.their_state in _ARRIVING:
            self._arm()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self._timer is not None and self.conn.their_state not in _ARRIVING:
            self._disarm()

    def connection_lost(self, exc):
        self._disarm()
        super().connection_lost(exc)

    def _arm(self):
        self._timer = self.loop.call_later(self.deadline_s, self._overdue)

    def _disarm(self):
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _overdue(self):
        self._timer = None
        if self.conn.their_state in _ARRIVING and not self.transport.is_closing():
            self.transport.close()


def deadline_protocol(deadline_s: float) -> type:
    """Return the protocol class with this deadline."""
    return type("RetrievalMCPProtocol", (RequestDeadlineProtocol,), {"deadline_s": deadline_s})
