"""Reporting: a failing case, with what to run to replay it."""

from .cases import Case
from .responses import excerpt
from .running import Outcome


def format_failure(case: Case, outcome: Outcome, problems: list, limit: int = 600) -> str:
    lines = [
        f"FUZZ VIOLATION seed={case.seed} index={case.index} kind={case.kind} mode={case.mode}",
        f"  replay: python bench/fuzz.py --replay {case.label}   (plus --url URL for a running "
        "server)",
    ]
    lines += [f"  problem: {p}" for p in problems]
    for number, step in enumerate(case.steps, 1):
        lines.append(f"  request step {number} ({len(step)} bytes): {excerpt(step, limit)}")
    lines.append(f"  connection: {outcome.end} after {outcome.elapsed:.3f}s")
    for number, response in enumerate(outcome.responses, 1):
        lines.append(f"  response {number}: {response.describe(limit // 2)}")
    if not outcome.responses and outcome.received:
        lines.append(f"  received: {excerpt(outcome.received, limit)}")
    return "\n".join(lines)
