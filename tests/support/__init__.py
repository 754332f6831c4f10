"""Shared test helpers: in-process WSGI calls through wsgiref's validator, snapshots, servers."""

import hashlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
import time
import warnings
from dataclasses import dataclass
from wsgiref.util import setup_testing_defaults
from wsgiref.validate import validator

from retrieval.core.snapshot import default_snapshot_path, seal_snapshot
from retrieval.core.strict_json import loads_strict
from retrieval.scenarios import QUESTION
from retrieval.settings import load_settings
from retrieval.testing import ServerProcess, subprocess_env

# The checkout: tests/support/ is two levels below it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Reply:
    """What an in-process call produced."""

    status: str
    headers: dict
    body: bytes

    @property
    def code(self) -> int:
        return int(self.status.split()[0])

    def json(self):
        return json.loads(self.body)


class UnreadableInput:
    """A wsgi.input that fails the test if the app reads it."""

    def read(self, *args):
        raise AssertionError("the app read a body it should have refused unread")

    readline = readlines = read

    def __iter__(self):
        return self


# Seconds any single wait in a real-server test may take before the test fails (a safety net
# against a hang, never a speed assertion).
WAIT_S = 20


def wait_for(condition, what, deadline=WAIT_S):
    """Poll condition() until it is true, failing with what after deadline seconds."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def class_temporary_directory(cls) -> str:
    """Return a temporary directory removed when a test class's tests are done."""
    tmp = tempfile.TemporaryDirectory()
    cls.addClassCleanup(tmp.cleanup)
    return tmp.name


def tampered_copy(test, snapshot_dir: str, sql: str) -> str:
    """Return a copy of a built snapshot whose database ran `sql`, removed after the test class."""
    copy = os.path.join(class_temporary_directory(test), "snapshot")
    shutil.copytree(snapshot_dir, copy)
    conn = sqlite3.connect(os.path.join(copy, "passages.sqlite"))
    with conn:
        conn.execute(sql)
    conn.close()
    return copy


def quiet_settings(**overrides):
    """Return default settings without the access log (in-process tests would print it)."""
    return load_settings(environ={}, overrides={"access_log": False, **overrides})


def call(app, method="GET", path="/health", body=b"", content_type="application/json",
         content_length="auto", environ=None, validate=True, query="") -> Reply:
    """Call app in process, wrapped in wsgiref.validate.validator unless validate is False.

    validate=False is only for environs the validator itself rejects (a malformed
    CONTENT_LENGTH some other server might still pass through).
    """
    env = {}
    setup_testing_defaults(env)
    env.update(REQUEST_METHOD=method, PATH_INFO=path, QUERY_STRING=query)
    env["wsgi.input"] = io.BytesIO(body) if isinstance(body, bytes) else body
    if content_type is not None:
        env["CONTENT_TYPE"] = content_type
    if content_length == "auto" and isinstance(body, bytes):
        env["CONTENT_LENGTH"] = str(len(body))
    elif content_length not in (None, "auto"):
        env["CONTENT_LENGTH"] = content_length
    env.update(environ or {})
    captured = {}

    def start_response(status, headers, exc_info=None):
        captured["status"], captured["headers"] = status, headers
        return lambda data: None

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a validator warning is a failure here
        result = (validator(app) if validate else app)(env, start_response)
        try:
            data = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
    return Reply(captured["status"], dict(captured["headers"]), data)


def post_json(app, payload, **kwargs) -> Reply:
    """POST a JSON payload to /retrieve in process."""
    return call(app, "POST", "/retrieve", json.dumps(payload).encode("utf-8"), **kwargs)


def ask(**fields) -> dict:
    """Return the standard question with fields overridden."""
    return {"question": QUESTION, "version": "3.12", **fields}


def fixture_document() -> dict:
    """Return the decoded embedded snapshot."""
    with open(default_snapshot_path(), "rb") as handle:
        return loads_strict(handle.read())


def one_line_passage(source_id, url, text, **fields) -> dict:
    """Return a 3.12 passage of one line whose source is its text; sealing fills its digests."""
    return {**fields, "source_id": source_id, "version": "3.12", "url": url, "start_line": 1,
            "end_line": 1, "text": text,
            "source_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "passage_id": "0" * 64, "text_sha256": "0" * 64}


def write_snapshot(directory, document, seal=True) -> str:
    """Write a (by default freshly sealed) snapshot document and return its path."""
    path = os.path.join(directory, "snapshot.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(seal_snapshot(document) if seal else document, handle)
    return path


def read_response(sock) -> bytes:
    """Read one response with a Content-Length from a raw socket; return its bytes."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def temporary_directory(testcase) -> str:
    """Return a temporary directory removed when the test ends."""
    tmp = tempfile.TemporaryDirectory()
    testcase.addCleanup(tmp.cleanup)
    return tmp.name


def start_server(testcase, *serve_args, env=None, health_path="/health") -> ServerProcess:
    """Start a real server for one test; the test fails if it has to be killed to stop."""
    server = ServerProcess(serve_args=list(serve_args), env=env or subprocess_env(), cwd=ROOT,
                           health_path=health_path)
    server.start()

    def stop():
        lifecycle = server.stop()
        testcase.assertFalse(lifecycle.killed, "server ignored SIGTERM and had to be killed")

    testcase.addCleanup(stop)
    return server


@dataclass
class SlowToolLatch:
    """The files through which a test holds retrieval.testing:slow_app's searches, then lets go."""

    marker: str
    release_file: str

    def in_flight(self) -> bool:
        """Tell whether a search has reached the latch."""
        return os.path.exists(self.marker)

    def wait_in_flight(self, what="a request to reach the slow tool"):
        """Wait until a search has reached the latch."""
        wait_for(self.in_flight, what)

    def release(self):
        """Let every search held at the latch, and every later one, go on."""
        with open(self.release_file, "a", encoding="utf-8"):
            pass


def start_slow_server(testcase, *serve_args, **env):
    """Start retrieval.testing:slow_app with env set; return (server, latch), latch still held.

    The latch is released when the test ends, before the server is stopped, so a test that
    never releases it still stops its server cleanly.
    """
    directory = temporary_directory(testcase)
    latch = SlowToolLatch(os.path.join(directory, "in-flight"), os.path.join(directory, "release"))
    server = start_server(testcase, "--app", "retrieval.testing:slow_app", *serve_args,
                          env=subprocess_env(SLOW_TOOL_MARKER=latch.marker,
                                             SLOW_TOOL_RELEASE=latch.release_file, **env))
    testcase.addCleanup(latch.release)  # cleanups run last-in first-out: before the stop
    return server, latch


def require_module(testcase, module: str, extra: str):
    """Skip a test whose optional extra is not installed, except in CI (.ci/run installs it)."""
    try:
        __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            testcase.fail(f"{module} is not installed and CI is set: .ci/run must install "
                          f"the {extra} extra")
        testcase.skipTest(f"{module} is not installed (pip install '.[{extra}]')")
