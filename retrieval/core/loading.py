"""Loading a snapshot, whichever its format: a JSON file or a built directory.

The embedded fixture is a JSON file; `retrieval build` makes directories. Either way the result is
a validated, identified Snapshot, refused unless it has the corpus_id a caller pinned.
"""

from pathlib import Path

from .checks import SnapshotError
from .model import BUILD_HINT, Snapshot
from .snapshot_directory import load_snapshot_directory
from .snapshot_json import parse_snapshot
from .strict_json import StrictJSONError, loads_strict


def load_snapshot(path, expect_corpus_id: str | None = None) -> Snapshot:
    """Read, validate and identify a snapshot (JSON file or built directory); check the pin."""
    path = Path(path)
    if path.is_dir():
        snapshot = load_snapshot_directory(path)
        _check_pin(path, snapshot, expect_corpus_id)
        return snapshot
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read snapshot: {exc.strerror or exc} "
                            f"({BUILD_HINT})") from None
    try:
        document = loads_strict(data)
    except StrictJSONError as exc:
        raise SnapshotError(f"{path}: not strict JSON: {exc}") from None
    try:
        snapshot = parse_snapshot(document)
    except SnapshotError as exc:
        raise SnapshotError(f"{path}: {exc}") from None
    _check_pin(path, snapshot, expect_corpus_id)
    return snapshot


def _check_pin(path, snapshot, expect_corpus_id):
    if expect_corpus_id is not None and snapshot.corpus_id != expect_corpus_id:
        raise SnapshotError(
            f"{path}: corpus_id {snapshot.corpus_id} is not the expected {expect_corpus_id}")


def default_snapshot_path() -> Path:
    """Locate the embedded fixture: package data, the same file in a checkout and installed."""
    return Path(__file__).resolve().parent.parent / "snapshot.json"
