"""A seeded, stdlib-only HTTP fuzzer for a real server, over raw sockets.

Shared by the CI-sized test (`tests/test_fuzz.py`) and the long-run command (`bench/fuzz.py`).

Each case is a pure function of (seed, index, context): `generate_case` seeds its own
`random.Random(f"fuzz:{seed}:{index}")`, so any case can be rebuilt and replayed alone, in any
order, on any thread. The context is what the fuzzer learned from the server before starting
(ETags and real passage ids, used for conditional requests); it is the same for every run against
the same build.

A case is sent on its own connection in one of three modes:

* `close`: send every byte, half-close (SHUT_WR), read until the server closes. A server that
  neither answers nor closes within the timeout is a hang.
* `sequential`: keep-alive; send one request, read its response by its framing, send the next.
* `abort`: send headers and part of the body, then close (FIN or RST) without reading.

`check_case` then applies the invariants to every response that arrived (see `check_response`).
"""

from .cases import Case, Context, Req, http_request
from .generators import generate_case
from .invariants import check_case, check_response
from .reporting import format_failure
from .responses import Response, excerpt, parse_all
from .run import Fuzzer, health_problem, probe_context
from .running import run_case
from .service import DEFAULT_TIMEOUT, DIGEST_HEADER

__all__ = ["DEFAULT_TIMEOUT", "DIGEST_HEADER", "Case", "Context", "Fuzzer", "Req", "Response",
           "check_case", "check_response", "excerpt", "format_failure", "generate_case",
           "health_problem", "http_request", "parse_all", "probe_context", "run_case"]
