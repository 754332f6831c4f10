"""The snapshot API for code outside core: one import for what the modules below define.

model (values and constants), identity (corpus_id and passage digests), policy_format (the
policy document), snapshot_json (the JSON file), loading (either format from a path). Modules
inside core import those directly, never this one, so it can name all of them without a cycle.
"""

from .checks import SnapshotError
from .identity import collection_corpus_ids, collection_of, compute_corpus_id, derive_passage
from .loading import default_snapshot_path, load_snapshot
from .model import (
    COLLECTION_PATTERN,
    DEFAULT_COLLECTION,
    VERSION_PATTERN,
    VERSION_SHAPE,
    Snapshot,
)
from .policy_format import Policy, parse_policy, policy_ranking
from .rules import MAX_SEARCH_K, READ_BEST
from .snapshot_json import parse_snapshot, seal_snapshot

__all__ = [
    "COLLECTION_PATTERN", "DEFAULT_COLLECTION", "MAX_SEARCH_K", "READ_BEST", "VERSION_PATTERN",
    "VERSION_SHAPE", "Policy", "Snapshot", "SnapshotError",
    "collection_corpus_ids", "collection_of", "compute_corpus_id", "default_snapshot_path",
    "derive_passage", "load_snapshot", "parse_policy", "parse_snapshot", "policy_ranking",
    "seal_snapshot",
]
