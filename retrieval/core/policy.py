"""The scripted query policy: deterministic rounds of search-then-read driven by a snapshot rule."""

from dataclasses import dataclass

from .admission import AdmissionRunner
from .snapshot import Rule

SEARCH_K = 2


@dataclass(frozen=True)
class Outcome:
    """How a run ended: one of completed, incomplete, limited, failed, and why."""

    status: str
    reason: str


def run_rule(rule: Rule, version: str, runner: AdmissionRunner, evidence: list) -> Outcome:
    """Run the rule's rounds through the runner, appending every read result to evidence.

    Denials and tool failures surface as RunEnded from the runner; this function only decides
    what the next action is and when the run has its answer.
    """
    read_passages = set()
    for round_number in range(1, rule.max_rounds + 1):
        if round_number == 1:
            query, match = rule.initial_query, rule.initial_match
        elif rule.refinement_query is None:
            return Outcome("incomplete", "no_refinement_rule")
        else:
            query, match = rule.refinement_query, "all"
        found = runner.search(query, version, SEARCH_K, match)
        handle = next(
            (hit for hit in found["results"] if hit["passage_id"] not in read_passages), None)
        if handle is None:
            continue
        result = runner.read(handle)
        read_passages.add(handle["passage_id"])
        evidence.append(result)
        # A literal, case-sensitive containment test: completion reports that the configured
        # marker is present in the evidence, it grades nothing.
        if rule.required_marker is not None and rule.required_marker in result["text"]:
            return Outcome("completed", "configured_context_marker_found")
    return Outcome("incomplete", "round_limit")
