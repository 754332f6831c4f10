"""Responses as they came off the wire: parsed by their framing, never trusted."""

import re
from dataclasses import dataclass

from .service import DIGEST_HEADER


def excerpt(data: bytes, limit: int = 600) -> str:
    """Return the repr of data, its middle elided when it is longer than limit."""
    if len(data) <= limit:
        return repr(data)
    head = limit * 2 // 3
    tail = limit - head
    return f"{data[:head]!r} ...[{len(data) - limit} bytes elided]... {data[-tail:]!r}"


class ProtocolError(Exception):
    """The bytes received are not a well-formed HTTP/1.x response."""


@dataclass
class Response:
    version: str
    status: int
    reason: str
    headers: list  # (lower-cased name, value)
    body: bytes
    head: bytes = b""

    def header(self, name):
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def all(self, name):
        return [value for key, value in self.headers if key == name]

    @property
    def from_app(self) -> bool:
        return self.header(DIGEST_HEADER) is not None

    def describe(self, limit=300) -> str:
        return (f"{self.version} {self.status} {self.reason} headers={self.headers} "
                f"body[{len(self.body)}]={excerpt(self.body, limit)}")


_STATUS_LINE = re.compile(rb"HTTP/(\d\.\d) (\d{3})(?: (.*))?")


def parse_response(buf: bytes, method: bytes | None, eof: bool):
    """Parse one response from the start of buf: (Response, rest), or None if more is needed."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        if eof and buf:
            raise ProtocolError(f"incomplete response head: {excerpt(buf, 200)}")
        return None
    head, rest = buf[:end], buf[end + 4:]
    lines = head.split(b"\r\n")
    match = _STATUS_LINE.fullmatch(lines[0])
    if match is None:
        raise ProtocolError(f"bad status line: {excerpt(lines[0], 200)}")
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise ProtocolError(f"bad header line: {excerpt(line, 200)}")
        headers.append((name.decode("latin-1").lower(), value.strip(b" \t").decode("latin-1")))
    response = Response(match[1].decode(), int(match[2]), (match[3] or b"").decode("latin-1"),
                        headers, b"", head)
    status = response.status
    no_body = (100 <= status < 200 or status in (204, 304) or (
        method == b"HEAD" and (response.from_app or response.header("content-security-policy"))))
    lengths = response.all("content-length")
    if no_body:
        return response, rest
    if "chunked" in (response.header("transfer-encoding") or "").lower():
        body, rest = _dechunk(rest, eof)
        if body is None:
            return None
        response.body = body
        return response, rest
    if lengths:
        if len(set(lengths)) != 1 or not lengths[0].isdigit():
            raise ProtocolError(f"bad Content-Length {lengths!r}")
        size = int(lengths[0])
        if len(rest) < size:
            if eof:
                raise ProtocolError(f"body truncated: {len(rest)} of {size} bytes")
            return None
        response.body = rest[:size]
        return response, rest[size:]
    if not eof:
        return None  # read to close
    response.body = rest
    return response, b""


def _dechunk(data: bytes, eof: bool):
    parts = []
    pos = 0
    while True:
        line_end = data.find(b"\r\n", pos)
        if line_end < 0:
            if eof:
                raise ProtocolError("chunked body truncated")
            return None, data
        size_text = data[pos:line_end].split(b";")[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise ProtocolError(f"bad chunk size {size_text[:40]!r}") from None
        pos = line_end + 2
        if size == 0:
            trailer_end = data.find(b"\r\n", pos)
            if trailer_end < 0:
                if eof:
                    raise ProtocolError("chunked trailer truncated")
                return None, data
            return b"".join(parts), data[trailer_end + 2:]
        if len(data) < pos + size + 2:
            if eof:
                raise ProtocolError("chunk truncated")
            return None, data
        parts.append(data[pos:pos + size])
        pos += size + 2


def parse_all(data: bytes, methods: list):
    """Parse every response in data (read to close). Returns (responses, problem or None)."""
    responses = []
    index = 0
    while data:
        method = methods[index] if index < len(methods) else None
        try:
            parsed = parse_response(data, method, eof=True)
        except ProtocolError as exc:
            return responses, str(exc)
        if parsed is None:
            return responses, "incomplete response"
        response, data = parsed
        responses.append(response)
        if response.status >= 200:
            index += 1
    return responses, None
