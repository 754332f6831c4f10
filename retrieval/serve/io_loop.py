"""Waitress's I/O loop with each connection's interest kept registered in epoll.

Waitress's own loop (`wasyncore.poll`) asks every open connection `readable()` and `writable()`
in Python on every pass and hands select() the whole list, so a pass costs as much as there are
connections: with one worker serving and 128 keep-alive clients waiting, the loop spent more of
the GIL walking idle connections than on the requests (docs/performance.md). This loop keeps each
connection's interest registered in an epoll object and asks again only the objects whose answer
can have changed since the last pass:

- those an event was dispatched to on the last pass (their own reads and writes);
- channels a worker thread is serving, or has finished serving since the last pass: the only
  changes made off the I/O thread, and each is followed by the worker pulling the trigger;
- channels just opened or closed;
- objects that are not connections (listeners, the trigger), on every pass: a listener's
  `readable()` runs Waitress's maintenance and its connection limit.

Everything is asked again after maintenance (it closes idle channels from the loop thread) and at
least once per loop timeout, so an answer that changed some other way is seen no later than
Waitress's own loop would see it when idle. Dispatch follows `wasyncore.poll`: reads, then
writes, then exceptional conditions, through wasyncore's own `read`, `write` and `_exception`.
Only where epoll exists (Linux); elsewhere `retrieval serve` keeps Waitress's loop.
"""

import select
import time
from collections import deque

from waitress import wasyncore

AVAILABLE = hasattr(select, "epoll")

_IN = getattr(select, "EPOLLIN", 0x001)
_PRI = getattr(select, "EPOLLPRI", 0x002)
_OUT = getattr(select, "EPOLLOUT", 0x004)
_ERR = getattr(select, "EPOLLERR", 0x008)
_HUP = getattr(select, "EPOLLHUP", 0x010)
# What select() would report for each list it was given (Linux fs/select.c: POLLIN_SET,
# POLLOUT_SET, POLLEX_SET), so dispatch sees the same events as under Waitress's loop.
_AS_READ = _IN | _HUP | _ERR
_AS_WRITE = _OUT | _ERR


class TrackedChannel:
    """Channel mixin that tells the server's RegisteredInterestLoop when its interest may change.

    Must precede Waitress's HTTPChannel in the bases. Without a loop on the server (plain
    Waitress loop) it does nothing.
    """

    def add_channel(self, map=None):
        super().add_channel(map)
        loop = getattr(self.server, "io_loop", None)
        if loop is not None:
            loop.opened(self)

    def del_channel(self, map=None):
        fd = self._fileno
        super().del_channel(map)
        loop = getattr(self.server, "io_loop", None)
        if loop is not None and fd is not None:
            loop.closed(fd, self)

    def service(self):
        loop = getattr(self.server, "io_loop", None)
        if loop is None:
            return super().service()
        loop.serving(self)
        try:
            return super().service()
        finally:
            loop.served(self)


class RegisteredInterestLoop:
    """A stand-in for the `wasyncore` module on a Waitress server: `loop()` is this class's."""

    def __init__(self, full_pass_s: float | None = None):
        # How often everything is asked again whatever happened; None: once per loop timeout.
        self._full_pass_s = full_pass_s
        self._epoll = select.epoll()
        self._interest: dict = {}  # fd -> (object, registered event mask; 0: not in epoll)
        self._always: list = []  # (fd, object) of everything in the map that is not a channel
        # Written by worker threads, read by the loop: deque appends and pops and set.add and
        # discard are atomic under the GIL, and the loop copies the set before walking it.
        self._serving: set = set()
        self._served: deque = deque()
        self._opened: deque = deque()
        self._closed: deque = deque()
        self._dispatched: list = []
        self._ask_all = True
        self._ask_all_after = 0.0
        self.passes = 0  # passes run so far (how docs/performance.md counted passes per request)

    # --- what channels and maintenance report, from any thread ---------------------------------

    def opened(self, channel):
        """Note a channel just added to the map."""
        self._opened.append(channel)

    def closed(self, fd, channel):
        """Note a channel just removed from the map (its fd may be reused at once)."""
        self._closed.append((fd, channel))

    def serving(self, channel):
        """Note that a worker is about to serve a request on channel."""
        self._serving.add(channel)

    def served(self, channel):
        """Note that a worker has finished serving on channel."""
        # Queued before it leaves _serving, so a pass that walks _serving and then drains
        # _served cannot miss it (a worker's last change precedes its trigger and this call).
        self._served.append(channel)
        self._serving.discard(channel)

    def ask_all(self):
        """Ask every object again on the next pass (after maintenance changed channels)."""
        self._ask_all = True

    # --- the loop -------------------------------------------------------------------------------

    def loop(self, timeout=30.0, use_poll=False, map=None, count=None):
        """Run passes while the map has objects, like wasyncore.loop (use_poll is moot)."""
        if map is None:
            map = wasyncore.socket_map
        try:
            while map and (count is None or count > 0):
                self.poll(timeout, map)
                if count is not None:
                    count -= 1
        finally:
            self.close()

    def poll(self, timeout, map):
        """Update the registered interest that may have changed, wait, dispatch one pass."""
        self.passes += 1
        self._update_interest(timeout, map)
        try:
            events = self._epoll.poll(timeout)
        except InterruptedError:
            return
        interest = self._interest
        reads, writes, exceptional = [], [], []
        for fd, flags in events:
            mask = interest.get(fd, (None, 0))[1]
            if mask & _IN and flags & _AS_READ:
                reads.append(fd)
            if mask & _OUT and flags & _AS_WRITE:
                writes.append(fd)
            if flags & _PRI:
                exceptional.append(fd)
        dispatched = self._dispatched
        for fds, handle in ((reads, wasyncore.read), (writes, wasyncore.write),
                            (exceptional, wasyncore._exception)):
            for fd in fds:
                obj = map.get(fd)
                if obj is not None:
                    handle(obj)
                    dispatched.append((fd, obj))

    def close(self):
        """Release the epoll object."""
        self._epoll.close()

    def _update_interest(self, timeout, map):
        now = time.monotonic()
        while self._closed:
            fd, channel = self._closed.popleft()
            if self._interest.get(fd, (None,))[0] is channel:
                self._forget(fd)
        for fd, obj in self._always:
            self._ask(fd, obj)  # a listener's readable() may run maintenance: ask_all()
        if self._ask_all or now >= self._ask_all_after:
            self._ask_all = False
            every = timeout if self._full_pass_s is None else self._full_pass_s
            self._ask_all_after = now + every
            self._ask_everything(map)
            return
        for fd, obj in self._dispatched:
            if map.get(fd) is obj:
                self._ask(fd, obj)
        self._dispatched.clear()
        # _serving before _served: see served().
        for channel in [*self._serving, *_drain(self._served), *_drain(self._opened)]:
            fd = channel._fileno
            if fd is not None and map.get(fd) is channel:
                self._ask(fd, channel)

    def _ask_everything(self, map):
        self._dispatched.clear()
        self._served.clear()
        self._opened.clear()
        for fd in [fd for fd, (obj, _) in self._interest.items() if map.get(fd) is not obj]:
            self._forget(fd)
        entries = list(map.items())
        self._always = [(fd, obj) for fd, obj in entries if not isinstance(obj, TrackedChannel)]
        for fd, obj in entries:
            self._ask(fd, obj)

    def _ask(self, fd, obj):
        mask = 0
        if obj.readable():
            mask = _IN | _PRI
        # As in wasyncore.poll: accepting sockets are never writable.
        if obj.writable() and not obj.accepting:
            mask |= _OUT | _PRI
        old_obj, old_mask = self._interest.get(fd, (None, 0))
        if old_obj is obj and old_mask == mask:
            return
        epoll = self._epoll
        if old_mask and old_obj is obj and mask:
            epoll.modify(fd, mask)
        else:
            if old_mask:
                _unregister(epoll, fd)
            if mask:
                try:
                    epoll.register(fd, mask)
                except FileExistsError:  # an fd reused before its old registration went
                    epoll.modify(fd, mask)
        self._interest[fd] = (obj, mask)

    def _forget(self, fd):
        _, mask = self._interest.pop(fd)
        if mask:
            _unregister(self._epoll, fd)


def _drain(queue: deque) -> list:
    items = []
    while queue:
        items.append(queue.popleft())
    return items


def _unregister(epoll, fd):
    try:
        epoll.unregister(fd)
    except OSError:  # closed already: the kernel dropped its registration with the file
        pass


def install(server) -> RegisteredInterestLoop | None:
    """Run server (one listener or Waitress's MultiSocketServer) on a RegisteredInterestLoop."""
    if not AVAILABLE:
        return None
    loop = RegisteredInterestLoop()
    # Waitress's servers call self.asyncore.loop(...) in run(): its documented test shim.
    server.asyncore = loop
    return loop
