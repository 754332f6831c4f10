"""How a run ends: its status, and the reason for it.

This module imports nothing from the package, so every other module of core can build on it.
"""

COMPLETED = "completed"
INCOMPLETE = "incomplete"
LIMITED = "limited"
FAILED = "failed"
# Completed: the rule's marker is in a passage read; or a `reads: best` rule read the best
# distinct passages its search found, as many as the allowances permitted (usage says how many).
MARKER_FOUND = "configured_context_marker_found"
BEST_MATCHES_READ = "best_matches_read"
# Incomplete: the rule has no refinement query for a second round; its rounds ran out; or its
# search matched no passage of that version, so there was nothing to read.
NO_REFINEMENT = "no_refinement_rule"
ROUND_LIMIT = "round_limit"
NO_MATCHES = "no_matching_passages"
# Limited: an action was denied. The allowances are checked in this order and the first one
# exhausted is the reason (each is named as the request's field); then the wall-clock deadline.
MAX_STEPS = "max_steps"
MAX_SEARCHES = "max_searches"
MAX_READS = "max_reads"
MAX_SOURCE_BYTES = "max_source_bytes"
# Only a request that sends max_tokens has it (core/tokens.py says what a token is).
MAX_TOKENS = "max_tokens"
DEADLINE = "deadline"
# Failed: an admitted tool call could not produce a result.
RETRIEVAL_FAILED = "retrieval_failed"
# Every run status with the reasons it can have.
RUN_REASONS = {
    COMPLETED: (MARKER_FOUND, BEST_MATCHES_READ),
    INCOMPLETE: (NO_REFINEMENT, ROUND_LIMIT, NO_MATCHES),
    LIMITED: (MAX_STEPS, MAX_SEARCHES, MAX_READS, MAX_SOURCE_BYTES, MAX_TOKENS, DEADLINE),
    FAILED: (RETRIEVAL_FAILED,),
}
RUN_STATUSES = tuple(RUN_REASONS)
# What a denied trace entry can give as its reason.
DENIAL_REASONS = RUN_REASONS[LIMITED]


def repeatable(status: str, reason: str) -> bool:
    """Tell whether a run that ended so gives the same result when the same request runs again.

    Every run is a pure function of (collection, normalized request, snapshot) except one ended by
    the wall-clock deadline or by a tool failure.
    """
    return status != FAILED and not (status == LIMITED and reason == DEADLINE)
