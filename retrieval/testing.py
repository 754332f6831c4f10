"""Test fixtures that ship with the package: the fault app and a real-server launcher.

Faults are injected by the operator's choice of app, never by a request field: no body sent to
the production app can make a tool fail.
"""

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

from .core.tools import RetrievalTools, ToolFailure


class CountingToolFactory:
    """Create tools and count how many were created and how many are still open."""

    def __init__(self, tools_class=RetrievalTools, **tool_options):
        self._tools_class = tools_class
        self._tool_options = tool_options
        self._lock = threading.Lock()
        self.created = []

    def __call__(self, index, memo, deadline=None):
        tools = self._tools_class(index, memo, deadline, **self._tool_options)
        with self._lock:
            self.created.append(tools)
        return tools

    @property
    def open_count(self) -> int:
        """Return how many created tool instances were never closed."""
        with self._lock:
            return sum(1 for tools in self.created if not tools.closed)


class FailingTools(RetrievalTools):
    """Tools whose Nth action (1-based, searches and reads counted together) fails."""

    def __init__(self, index, memo, deadline=None, fail_at: int = 1):
        super().__init__(index, memo, deadline)
        self._fail_at = fail_at
        self._actions = 0

    def _maybe_fail(self):
        self._actions += 1
        if self._actions == self._fail_at:
            raise ToolFailure("tool_failure")

    def search(self, search):
        self._maybe_fail()
        return super().search(search)

    def read(self, handle):
        self._maybe_fail()
        return super().read(handle)


class SlowTools(RetrievalTools):
    """Tools whose searches wait for a latch the test releases, to hold a request in flight.

    The server runs in another process, so the latch is a file: SLOW_TOOL_RELEASE names it, and
    once it exists every search, now and later, goes on (threading.Event's set(), across
    processes). If SLOW_TOOL_MARKER names a file, it is created when a search starts, so a test
    sees the request is in flight without guessing. A latch never released lets searches go on
    after LATCH_LIMIT_S, so a forgotten release cannot hang a server being stopped.
    """

    LATCH_LIMIT_S = 60.0

    def search(self, search):
        marker = os.environ.get("SLOW_TOOL_MARKER")
        if marker:
            with open(marker, "a", encoding="utf-8"):
                pass
        release = os.environ.get("SLOW_TOOL_RELEASE")
        end = time.monotonic() + self.LATCH_LIMIT_S
        while release and not os.path.exists(release) and time.monotonic() < end:
            time.sleep(0.005)
        return super().search(search)


def create_fault_app(fail_at: int = 1, settings=None):
    """Return the retrieval app over the default snapshot with a tool failing at action fail_at."""
    from .http.factory import create_app

    return create_app(tool_factory=CountingToolFactory(FailingTools, fail_at=fail_at),
                      settings=settings)


def create_slow_app(settings=None):
    """Return the retrieval app over the default snapshot with slow searches."""
    from .http.factory import create_app

    return create_app(tool_factory=CountingToolFactory(SlowTools), settings=settings)


MOUNT_PREFIX = "/rag"


def create_mounted_app(settings=None, prefix=MOUNT_PREFIX):
    """Return the retrieval app mounted under prefix by a minimal WSGI dispatcher.

    What any stack that mounts the app at a path does: the prefix moves from PATH_INFO to
    SCRIPT_NAME; everything outside it is another application's (here a bare 404).
    """
    from .http.factory import create_app

    app = create_app(settings=settings)

    def dispatcher(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path == prefix or path.startswith(prefix + "/"):
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + prefix
            environ["PATH_INFO"] = path[len(prefix):]
            return app(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain"),
                                         ("Content-Length", "9")])
        return [b"not here\n"]

    dispatcher.close = app.close
    return dispatcher


_LAZY_APPS = {"fault_app": create_fault_app, "slow_app": create_slow_app,
              "mounted_app": create_mounted_app}


def __getattr__(name):
    # The fixture apps are built on first access, like retrieval.wsgi.app.
    if name in _LAZY_APPS:
        app = _LAZY_APPS[name]()
        globals()[name] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- a real server in a subprocess ------------------------------------------------------------

class ServerStartError(RuntimeError):
    """The server did not become ready before its deadline."""


@dataclass
class Lifecycle:
    """What was observed of one server process, recorded as it happened."""

    command: list
    startup_observed: bool = False
    shutdown_exit_status: object = None
    stdout: str = ""
    stderr: str = ""
    shutdown_complete_observed: bool = False
    server_process_reaped: bool = False
    killed: bool = False

    def as_dict(self) -> dict:
        """Return the lifecycle in the saved-result layout."""
        return {
            "command": self.command,
            "startup_observed": self.startup_observed,
            "shutdown_exit_status": self.shutdown_exit_status,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "shutdown_complete_observed": self.shutdown_complete_observed,
            "server_process_reaped": self.server_process_reaped,
        }


def _health_ok(host, port, timeout, path="/health") -> bool:
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status == 200
    except OSError:
        return False
    finally:
        conn.close()


@dataclass
class ServerProcess:
    """`python -m retrieval serve` on a loopback socket bound here and inherited by the child.

    Binding in the parent means the port is known before the child starts and no other process
    can take it in between; connections made before the child accepts wait in the backlog.
    """

    serve_args: list = field(default_factory=list)
    env: dict | None = None
    ready_timeout: float = 20.0
    stop_timeout: float = 20.0
    cwd: str | None = None
    health_path: str = "/health"  # where readiness is polled (an app mounted elsewhere)

    def __post_init__(self):
        self.process = None
        self.lifecycle = None
        self._listener = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        """Start the child and poll /health until it answers 200, or raise ServerStartError."""
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self.port = self._listener.getsockname()[1]
        fd = self._listener.fileno()
        command = [sys.executable, "-m", "retrieval", "serve", "--fd", str(fd), *self.serve_args]
        self.lifecycle = Lifecycle(command=[
            "python", "-m", "retrieval", "serve", "--fd", "<inherited-loopback-socket>",
            *self.serve_args])
        self._stdout = tempfile.TemporaryFile()
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command, pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=self._stdout,
            stderr=self._stderr, env=self.env, cwd=self.cwd)
        # The child holds the listening socket now. Closing our copy means that once the child
        # exits, connections are refused instead of waiting in a backlog nobody will accept.
        self._listener.close()
        self._listener = None
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if _health_ok("127.0.0.1", self.port, max(0.1, deadline - time.monotonic()),
                          self.health_path):
                self.lifecycle.startup_observed = True
                return self
            time.sleep(0.05)  # between polls only: the loop itself is bounded by the deadline
        self.stop()
        raise ServerStartError(
            f"server not ready within {self.ready_timeout}s; "
            f"stderr: {self.lifecycle.stderr[-2000:]}")

    def stop(self, signum=signal.SIGTERM) -> Lifecycle:
        """Send signum, wait for exit (kill after stop_timeout) and record what happened."""
        process = self.process
        if process is not None and process.returncode is None:
            if process.poll() is None:
                process.send_signal(signum)
            try:
                process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.lifecycle.killed = True
                process.kill()
                process.wait()
        if process is not None:
            self.lifecycle.server_process_reaped = process.returncode is not None
            self.lifecycle.shutdown_exit_status = process.returncode
            self.lifecycle.stdout = _drain(self._stdout)
            self.lifecycle.stderr = _drain(self._stderr)
            self.lifecycle.shutdown_complete_observed = (
                "retrieval: shutdown complete" in self.lifecycle.stderr)
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        return self.lifecycle

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()


def _drain(tmp) -> str:
    if tmp.closed:
        return ""
    tmp.seek(0)
    text = tmp.read().decode("utf-8", errors="replace")
    tmp.close()
    return text


def subprocess_env(**extra) -> dict:
    """Return an environment for a server child that imports this checkout's package."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra)
    return env
