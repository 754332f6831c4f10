"""Fuzz cases: the requests a case sends, how it sends them, and the raw request builders."""

import random
from dataclasses import dataclass, field


@dataclass
class Req:
    """One request of a case, as the fuzzer meant it (the server may parse junk differently)."""

    method: bytes
    target: bytes
    conditional: bool = False  # carried If-None-Match

    @property
    def head(self) -> bool:
        return self.method == b"HEAD"


@dataclass
class Case:
    """One reproducible fuzz case: the bytes to send and how to send them."""

    seed: int
    index: int
    kind: str
    steps: list  # bytes per send; `close` and `abort` have one step
    requests: list  # Req per well-formed request, in order
    mode: str = "close"  # close | sequential | abort
    expect_response: bool = True  # the first request is complete and well framed
    rst: bool = False  # abort with an RST instead of a FIN
    known: str = ""  # a known defect outside the service this case runs into (not a failure)

    @property
    def data(self) -> bytes:
        return b"".join(self.steps)

    @property
    def label(self) -> str:
        return f"{self.seed}:{self.index}"


@dataclass
class Context:
    """What the fuzzer learned from the server before the run (same for every run of a build)."""

    etags: dict = field(default_factory=dict)  # path -> ETag value
    passage_ids: list = field(default_factory=list)


def eol_join(lines, eol=b"\r\n") -> bytes:
    return b"".join(line + eol for line in lines) + eol


def http_request(method=b"POST", target=b"/retrieve", version=b"HTTP/1.1", headers=None,
                 body=b"", eol=b"\r\n", content_length="auto", content_type=b"application/json",
                 host=b"localhost") -> bytes:
    """Assemble one request. headers are extra raw lines (bytes, without line ends)."""
    line = method + b" " + target + (b" " + version if version else b"")
    lines = [line]
    if host is not None:
        lines.append(b"Host: " + host)
    if content_type is not None:
        lines.append(b"Content-Type: " + content_type)
    if content_length == "auto":
        if body or method == b"POST":
            lines.append(b"Content-Length: %d" % len(body))
    elif content_length is not None:
        lines.append(b"Content-Length: " + content_length)
    lines.extend(headers or ())
    return eol_join(lines, eol) + body


def chunk_body(body: bytes, rng: random.Random) -> bytes:
    """Chunked transfer coding of body, in random chunk sizes."""
    out = []
    start = 0
    while start < len(body):
        size = rng.choice((1, 2, 7, 64, 500, 4096))
        piece = body[start:start + size]
        out.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
        start += size
    out.append(b"0\r\n\r\n")
    return b"".join(out)
