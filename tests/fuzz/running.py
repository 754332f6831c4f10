"""Running a case: sending its bytes on its own connection and collecting what came back."""

import socket
import struct
import time
from dataclasses import dataclass, field

from .cases import Case
from .responses import ProtocolError, parse_all, parse_response
from .service import DEFAULT_TIMEOUT


@dataclass
class Outcome:
    responses: list = field(default_factory=list)
    end: str = ""  # closed | reset | timeout | sent (abort) | kept (sequential, we closed)
    problems: list = field(default_factory=list)  # transport-level violations
    elapsed: float = 0.0
    received: bytes = b""


def recv_to_close(sock, outcome):
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            outcome.end = "timeout"
            break
        except ConnectionResetError:
            outcome.end = "reset"
            break
        if not chunk:
            outcome.end = "closed"
            break
        chunks.append(chunk)
    return b"".join(chunks)


def run_case(case: Case, host: str, port: int, timeout: float = DEFAULT_TIMEOUT) -> Outcome:
    """Send a case on a fresh connection and collect what comes back."""
    outcome = Outcome()
    started = time.perf_counter()
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        outcome.end = "connect_failed"
        outcome.problems.append(f"cannot connect: {exc}")
        return outcome
    try:
        sock.settimeout(timeout)
        if case.mode == "abort":
            try:
                sock.sendall(case.steps[0])
            except OSError:
                pass
            if case.rst:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            outcome.end = "sent"
        elif case.mode == "close":
            try:
                sock.sendall(case.steps[0])
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the server may answer and close before reading everything (431, 413)
            data = recv_to_close(sock, outcome)
            outcome.received = data
            methods = [req.method for req in case.requests]
            outcome.responses, problem = parse_all(data, methods)
            if problem and outcome.end != "reset":
                outcome.problems.append(f"unparseable response bytes: {problem}")
            if outcome.end == "timeout":
                outcome.problems.append(
                    f"hang: no close within {timeout}s after the request was sent "
                    f"({len(data)} bytes received)")
        else:
            _run_sequential(case, sock, outcome, timeout)
    finally:
        sock.close()
        outcome.elapsed = time.perf_counter() - started
    return outcome


def _run_sequential(case, sock, outcome, timeout):
    buf = b""
    for step, req in zip(case.steps, case.requests, strict=True):
        try:
            sock.sendall(step)
        except OSError as exc:
            outcome.problems.append(f"keep-alive connection unusable before request "
                                    f"{len(outcome.responses) + 1}: {exc}")
            return
        eof = False
        while True:
            try:
                parsed = parse_response(buf, req.method, eof)
            except ProtocolError as exc:
                outcome.problems.append(f"unparseable response bytes: {exc}")
                return
            if parsed is not None:
                response, buf = parsed
                outcome.responses.append(response)
                if response.status < 200:
                    continue
                break
            if eof:
                outcome.end = "closed"
                outcome.problems.append(
                    f"server closed a keep-alive connection without answering request "
                    f"{len(outcome.responses) + 1}")
                return
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                outcome.end = "timeout"
                outcome.problems.append(f"hang: no response within {timeout}s on a keep-alive "
                                        f"connection (request {len(outcome.responses) + 1})")
                return
            except ConnectionResetError:
                outcome.end = "reset"
                outcome.problems.append("connection reset on a keep-alive connection")
                return
            if not chunk:
                eof = True
            buf += chunk
        if (response.header("connection") or "").lower() == "close":
            outcome.end = "closed"
            return  # the server said so; the rest of the sequence is not sent
    outcome.end = "kept"
