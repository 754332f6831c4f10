"""The scripted query policy: deterministic rounds of search-then-read driven by a snapshot rule."""

from dataclasses import dataclass

from .admission import AdmissionRunner
from .fields import NEXT_PIECE, PREVIOUS_PIECE

# This module ends a run completed or incomplete; the admission runner ends it limited or failed.
from .outcomes import (
    BEST_MATCHES_READ,
    COMPLETED,
    INCOMPLETE,
    MARKER_FOUND,
    NO_MATCHES,
    NO_REFINEMENT,
    ROUND_LIMIT,
)
from .rules import READ_BEST, Rule


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
    if rule.reads == READ_BEST:
        return _read_best(rule, version, runner, evidence)
    read_passages = set()
    for round_number in range(1, rule.max_rounds + 1):
        search = rule.first_search(version) if round_number == 1 else \
            rule.refinement_search(version)
        if search is None:
            return Outcome(INCOMPLETE, NO_REFINEMENT)
        found = runner.search(search)
        handle = next(
            (hit for hit in found["results"] if hit["passage_id"] not in read_passages), None)
        if handle is None:
            continue
        result = runner.read(handle)
        read_passages.add(handle["passage_id"])
        evidence.append(result)
        if _marked(result, rule):
            return Outcome(COMPLETED, MARKER_FOUND)
    return Outcome(INCOMPLETE, ROUND_LIMIT)


def _marked(result: dict, rule: Rule) -> bool:
    # A literal, case-sensitive containment test: completion reports that the configured marker
    # is present in the evidence, it grades nothing.
    return rule.required_marker is not None and rule.required_marker in result["text"]


def _read_unit(result: dict, rule: Rule, runner: AdmissionRunner, evidence: list,
               later: int = 0) -> bool:
    """Add a read result to evidence with the pieces of its unit the allowances pay for, the
    earlier ones first, in line order; tell whether the rule's marker was read.

    later: how many distinct hits below this one the run may still read. A piece is read only
    while the steps left after it pay for a read of each of them (at most the reads left): a
    piece costs a step, and without this a long unit's pieces took the steps of the hits below
    it, so that reading one unit whole cost others their place (max_reads does not count
    pieces so that it would not).
    """
    at = len(evidence)
    evidence.append(result)
    if _marked(result, rule):
        return True
    keep_steps = min(later, runner.reads_left)
    for side in (PREVIOUS_PIECE, NEXT_PIECE):
        piece = result
        while side in piece:
            handle = runner.piece(piece, side)
            if not runner.can_read(handle, piece=True, keep_steps=keep_steps):
                break
            piece = runner.read(handle, piece=True)
            # The unit's pieces stay in line order: an earlier one goes before those read.
            evidence.insert(at if side == PREVIOUS_PIECE else len(evidence), piece)
            if _marked(piece, rule):
                return True
    return False


def _read_best(rule: Rule, version: str, runner: AdmissionRunner, evidence: list) -> Outcome:
    """Search once, then read the distinct hits in rank order while the allowances permit.

    Hits that share a URL are one piece of documentation: only the best ranked is read. A hit
    the remaining allowances cannot pay for is passed over for a smaller one below it; the first
    read is always attempted, so a run that can afford none ends with the runner's denial. A hit
    that is a piece of a unit the build cut is read whole while the allowances pay for each next
    piece (_read_unit); where they do not, its last piece read says where the unit goes on.
    """
    hits = runner.search(rule.first_search(version))["results"]
    urls = [hit.get("url", hit["passage_id"]) for hit in hits]
    seen_urls: set = set()
    for place, (hit, url) in enumerate(zip(hits, urls, strict=True)):
        if url in seen_urls:
            continue
        if evidence and not runner.can_read(hit):
            continue
        seen_urls.add(url)
        later = len(set(urls[place + 1:]) - seen_urls)
        if _read_unit(runner.read(hit), rule, runner, evidence, later):
            return Outcome(COMPLETED, MARKER_FOUND)
    if not evidence:
        return Outcome(INCOMPLETE, NO_MATCHES)
    return Outcome(COMPLETED, BEST_MATCHES_READ)
