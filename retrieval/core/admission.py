"""The admission runner: every tool action is checked and reserved against the allowances first.

Checks run in a fixed order (steps, then searches or reads, then source bytes and, when the
request sent max_tokens, tokens for a read) and the first exhausted allowance is the denial
reason. A denied action is recorded, not invoked, and ends the run. An admitted action stays
charged even if the tool then fails.

The wall-clock deadline is checked after the allowances (they are deterministic, it is not): an
action that would start after it is denied with reason `deadline`, and a search it interrupts is
traced as failed with reason `deadline_exceeded`. Either way the run ends `limited` / `deadline`
with the evidence already read.
"""

import time
from dataclasses import dataclass

from .outcomes import (
    DEADLINE,
    FAILED,
    LIMITED,
    MAX_READS,
    MAX_SEARCHES,
    MAX_SOURCE_BYTES,
    MAX_STEPS,
    MAX_TOKENS,
    RETRIEVAL_FAILED,
)
from .searches import SearchCall
from .tokens import tokens_of_bytes, tokens_of_text
from .tools import DEADLINE_EXCEEDED, ToolFailure

# A request's allowances, in their documented order; each is also the reason a denied action
# names when that allowance is used up.
ALLOWANCES = (MAX_STEPS, MAX_SEARCHES, MAX_READS, MAX_SOURCE_BYTES)
# The allowance a request may leave out: it then has none, and nothing of a run's request, limits,
# usage or trace mentions tokens, so a request without it keeps the bytes and request_id it had
# before max_tokens existed. Sent, it is checked after max_source_bytes (outcomes.DENIAL_REASONS).
TOKEN_ALLOWANCE = MAX_TOKENS


@dataclass(frozen=True)
class Limits:
    """The allowances of one request."""

    max_steps: int
    max_searches: int
    max_reads: int
    max_source_bytes: int
    max_tokens: int | None = None  # None: the request sent none, and tokens are not counted

    def as_dict(self) -> dict:
        """Return the limits in their documented field order (max_tokens only when set)."""
        return {name: getattr(self, name) for name in ALLOWANCES} | (
            {} if self.max_tokens is None else {TOKEN_ALLOWANCE: self.max_tokens})


# What a request gets for an allowance it does not send.
DEFAULT_LIMITS = Limits(max_steps=6, max_searches=2, max_reads=2, max_source_bytes=4096)
# The largest allowance a request may ask for, unless the settings (`<allowance>_limit`) say
# otherwise.
DEFAULT_MAXIMA = Limits(max_steps=64, max_searches=32, max_reads=32, max_source_bytes=1048576,
                        max_tokens=tokens_of_bytes(1048576))


class RunEnded(Exception):
    """The run cannot continue: an action was denied or a tool failed."""

    def __init__(self, status: str, reason: str):
        super().__init__(f"{status}: {reason}")
        self.status = status
        self.reason = reason


class AdmissionRunner:
    """Admit, charge, invoke and trace tool actions for one run."""

    def __init__(self, limits: Limits, tools, deadline: float | None = None,
                 clock=time.monotonic):
        self._limits = limits
        self._tools = tools
        self._deadline = deadline
        self._clock = clock
        self.steps = 0
        self.searches = 0
        self.reads = 0
        self.reserved_source_bytes = 0
        self.delivered_source_bytes = 0
        self.reserved_tokens = 0
        self.delivered_tokens = 0
        self.trace: list[dict] = []

    @property
    def _counts_tokens(self) -> bool:
        return self._limits.max_tokens is not None

    def usage(self) -> dict:
        """Return the counters as they stand (tokens only when the request sent max_tokens)."""
        return {
            "steps": self.steps,
            "searches": self.searches,
            "reads": self.reads,
            "reserved_source_bytes": self.reserved_source_bytes,
            "delivered_source_bytes": self.delivered_source_bytes,
            **({"reserved_tokens": self.reserved_tokens,
                "delivered_tokens": self.delivered_tokens} if self._counts_tokens else {}),
        }

    def _tokens_exceeded(self, tokens: int) -> bool:
        maximum = self._limits.max_tokens
        return maximum is not None and tokens > maximum - self.reserved_tokens

    def search(self, search: SearchCall) -> dict:
        """Run one admitted search, or record its denial and end the run."""
        action = {"tool": "search", "arguments": search.traced()}
        limits = self._limits
        if self.steps >= limits.max_steps:
            self._deny(action, MAX_STEPS)
        if self.searches >= limits.max_searches:
            self._deny(action, MAX_SEARCHES)
        if self._deadline is not None and self._clock() >= self._deadline:
            self._deny(action, DEADLINE)
        self.steps += 1
        self.searches += 1
        return self._invoke(action, 0, self._tools.search, search)

    @property
    def reads_left(self) -> int:
        """Return how many more units the allowances let the run read (max_reads less reads)."""
        return self._limits.max_reads - self.reads

    def can_read(self, handle: dict, piece: bool = False, keep_steps: int = 0) -> bool:
        """Tell whether the allowances left would admit a read of this handle now (piece: as
        read) and still leave keep_steps steps for later actions."""
        limits = self._limits
        return (self.steps + keep_steps < limits.max_steps
                and (piece or self.reads < limits.max_reads)
                and handle["byte_count"] <= limits.max_source_bytes - self.reserved_source_bytes
                and not self._tokens_exceeded(tokens_of_bytes(handle["byte_count"])))

    def piece(self, result: dict, side: str) -> dict:
        """Return the handle of the piece of a cut unit beside a read result (tools.piece).

        A lookup of what the read already named, not an action: reading the piece is one.
        """
        try:
            return self._tools.piece(result, side)
        except ToolFailure:
            raise RunEnded(FAILED, RETRIEVAL_FAILED) from None

    def read(self, handle: dict, piece: bool = False) -> dict:
        """Run one admitted read, reserving the handle's byte_count (and its tokens, when counted)
        first, or record its denial.

        piece: the handle is a further piece of a unit the build cut, one of which was just read
        (policy._read_unit). max_reads counts the units read, so a piece is charged a step, its
        bytes and its tokens, but no read: reading a unit whole costs no other unit its place.
        """
        action = {"tool": "read", "arguments": {"handle": handle}}
        limits = self._limits
        preflight = handle["byte_count"]
        if self.steps >= limits.max_steps:
            self._deny(action, MAX_STEPS, preflight)
        if not piece and self.reads >= limits.max_reads:
            self._deny(action, MAX_READS, preflight)
        if preflight > limits.max_source_bytes - self.reserved_source_bytes:
            self._deny(action, MAX_SOURCE_BYTES, preflight)
        if self._tokens_exceeded(tokens_of_bytes(preflight)):
            self._deny(action, MAX_TOKENS, preflight)
        if self._deadline is not None and self._clock() >= self._deadline:
            self._deny(action, DEADLINE, preflight)
        self.steps += 1
        self.reads += 0 if piece else 1
        self.reserved_source_bytes += preflight
        if self._counts_tokens:
            self.reserved_tokens += tokens_of_bytes(preflight)
        return self._invoke(action, preflight, self._tools.read, handle)

    def _deny(self, action, reason, preflight=None):
        entry = {"action": action, "decision": "denied", "reason": reason, "invoked": False}
        if preflight is not None:
            entry["preflight_source_bytes"] = preflight
            if self._counts_tokens:
                entry["preflight_tokens"] = tokens_of_bytes(preflight)
        self.trace.append(entry)
        raise RunEnded(LIMITED, reason)

    def _invoke(self, action, reserved, call, *args):
        entry = {"action": action, "decision": "executed", "invoked": True,
                 "reserved_source_bytes": reserved}
        if self._counts_tokens:
            entry["reserved_tokens"] = tokens_of_bytes(reserved)
        self.trace.append(entry)
        try:
            result = call(*args)
        except ToolFailure as failure:
            entry["status"] = "failed"
            entry["reason"] = failure.reason
            entry["usage_after"] = self.usage()
            if failure.reason == DEADLINE_EXCEEDED:
                raise RunEnded(LIMITED, DEADLINE) from None
            raise RunEnded(FAILED, RETRIEVAL_FAILED) from None
        if action["tool"] == "read":
            # What was delivered is the text itself, measured, not the size its handle claimed.
            self.delivered_source_bytes += len(result["text"].encode("utf-8"))
            if self._counts_tokens:
                self.delivered_tokens += tokens_of_text(result["text"])
        entry["status"] = "succeeded"
        entry["result"] = result
        entry["usage_after"] = self.usage()
        return result
