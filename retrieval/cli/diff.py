"""`retrieval diff COLLECTION OLD NEW`: what changed in a library's API between two versions.

Over a snapshot holding both versions (`retrieval build` with one --source per version, or
`retrieval project --also NAME==VERSION`), offline: the objects added, removed, renamed, whose
signature changed and newly deprecated (core/diff.py), each with its passage in each version.
`--uses PATH` keeps the changes to what a project's code uses (project/uses.py).
"""

import json
import sys

from ..core.errors import UserError

_LABELS = {"added": "added", "removed": "removed", "renamed": "renamed",
           "signature_changed": "signature changed", "deprecated": "newly deprecated"}


def _served(collection, asked: str) -> str:
    served = collection.serve_version(asked)
    if served is None:
        raise UserError(f"{collection.name} holds no version {asked} (it holds "
                        f"{', '.join(collection.version_names()) or 'none'})")
    return served


def _where(side: dict) -> str:
    return f"{side['url']} (passage {side['passage_id'][:12]})"


def _lines(document: dict) -> list:
    """Return the diff as text: its counts, then each change with where it is documented."""
    counts = document["counts"]
    lines = [f"{document['collection']} {document['old_version']} -> {document['new_version']}: "
             + ", ".join(f"{counts[kind]} {label}" for kind, label in _LABELS.items())]
    for kind, entries in document["changes"].items():
        if not counts[kind]:
            continue
        lines.append(f"{_LABELS[kind]}:")
        for entry in entries:
            head = f"  {entry['name']} ({entry['kind']})"
            if kind == "renamed":
                head += f" -> {entry['new_name']}"
            elif kind == "signature_changed":
                head += f": {entry['old_signature']} -> {entry['new_signature']}"
                changed = entry.get("parameters")
                if changed and not (changed["added"] or changed["removed"]
                                    or changed["changed"]):
                    head += " (annotations only)"
            elif kind == "deprecated":
                head += f": {entry['note']}"
            lines.append(head)
            lines += [f"      {which}: {_where(entry[which])}" for which in ("old", "new")
                      if which in entry]
        if len(entries) < counts[kind]:
            lines.append(f"  ... {counts[kind] - len(entries)} more (--limit)")
    return lines


def _diff(args) -> int:
    from ..core.diff import NoApiFacts, diff_versions
    from ..core.loading import default_snapshot_path
    from ..core.service import RetrievalService
    from ..core.snapshot import load_snapshot
    from ..project.uses import project_uses
    from ..rerank import attach

    if args.limit is not None and args.limit < 0:
        raise UserError("--limit must be 0 or more")
    # Loaded as the service loads it: a snapshot built with --semantic opens with its re-ranker.
    service = RetrievalService(attach(load_snapshot(args.snapshot or default_snapshot_path())))
    try:
        snapshot = service.snapshot
        name = snapshot.resolve_collection(args.collection)
        if name is None:
            raise UserError(f"no collection {args.collection} (the snapshot has "
                            f"{', '.join(snapshot.collections)})")
        collection = snapshot.collections[name]
        old, new = _served(collection, args.old), _served(collection, args.new)
        try:
            found = diff_versions(service.collection(name), old, new)
        except NoApiFacts:
            raise UserError("this snapshot records no API objects (a JSON snapshot): diff "
                            "needs one made by `retrieval build` or `retrieval project`") \
                from None
    finally:
        service.close()
    if args.uses:
        uses = project_uses(args.uses)
        if not uses.files:
            raise UserError(f"--uses {args.uses}: no Python file there")
        for path in uses.unparsed:
            print(f"diff: --uses: {path}: not Python this interpreter parses, skipped",
                  file=sys.stderr)
        found = found.only(uses.names)
    document = {"collection": name, "corpus_id": collection.corpus_id,
                **found.describe(args.limit)}
    if args.json:
        print(json.dumps(document, ensure_ascii=False, indent=1))
    else:
        print("\n".join(_lines(document)))
    return 0


def register_diff_command(commands) -> None:
    """Add `diff` to the command line's subcommands."""
    diff = commands.add_parser(
        "diff", help="what changed in a library's API between two versions a snapshot holds",
        description="List the API objects added, removed, renamed (the same prose under a new "
                    "name), whose signature changed and newly deprecated from OLD to NEW, each "
                    "with its passage (url, passage_id) in each version. Offline: both versions "
                    "must be in the snapshot (build --source twice, or project --also).")
    diff.add_argument("collection", help="the collection, or its distribution or import name")
    diff.add_argument("old", help="the version upgraded from")
    diff.add_argument("new", help="the version upgraded to")
    diff.add_argument("--snapshot", metavar="FILE_OR_DIR",
                      help="the snapshot (default: the embedded fixture, which records no API)")
    diff.add_argument("--uses", metavar="PATH",
                      help="keep only the changes to names a project's Python code imports or "
                           "uses (a file or a folder; read with ast, never run; default: "
                           "every change)")
    diff.add_argument("--limit", type=int, metavar="N",
                      help="list at most N changes of each kind (default: all; the counts are "
                           "always whole)")
    diff.add_argument("--json", action="store_true", help="print the diff as JSON")
    diff.set_defaults(run=_diff)
