"""`retrieval project [PATH]`: the documentation of what a project pins, at those versions.

Reads the pins (project/pins.py), builds each from its best source into one snapshot
(project/collect.py, through sources.plan and the builder as `retrieval build` does),
writes project.json beside the manifest and prints the coverage table, then the corpus_id.
"""

import os
import sys
import tempfile

from ..core.errors import UserError
from ..ingest.builder import RANKINGS
from ..ingest.tree import DEFAULT_MAX_FILE_BYTES
from ..rerank import MODELS as SEMANTIC_MODELS
from .build import _check_out

# The re-rank a project build uses where the semantic extra is installed (the better of
# SEMANTIC_MODELS: quality/README.md); --lexical or its absence builds without one.
PROJECT_SEMANTIC = "minilm"


def _pairs(values, flag: str) -> dict:
    """Return {normalised NAME: VALUE} of NAME=VALUE flags; refuse a malformed one or twice."""
    from ..ingest.sources.packages import normalized

    pairs: dict = {}
    for value in values or ():
        name, sep, rest = value.partition("=")
        if not sep or not name or not rest:
            raise UserError(f"{flag} takes NAME=VALUE, not {value!r}")
        if normalized(name) in pairs:
            raise UserError(f"{flag} {name} given twice")
        pairs[normalized(name)] = rest
    return pairs


def _also_pins(values, found) -> list:
    """Return the pins of --also NAME==VERSION: a pinned dependency at the version an upgrade
    moves to, built beside the pinned one (served only when asked for by version)."""
    import dataclasses

    from ..ingest.sources.packages import normalized
    from ..project.collect import ALSO

    by_name = {pin.name: pin for pin in found.pins}
    also: list = []
    for value in values or ():
        name, sep, version = value.partition("==")
        pin = by_name.get(normalized(name))
        if not sep or not name or not version:
            raise UserError(f"--also takes NAME==VERSION, not {value!r}")
        if pin is None:
            raise UserError(f"--also {value}: {found.lockfile} pins no {name}")
        if version == pin.version or any(
                p.name == pin.name and p.version == version for p in also):
            raise UserError(f"--also {value}: {name} {version} is already built")
        also.append(dataclasses.replace(pin, version=version, note=ALSO))
    return also


def _base_urls(values, found, also: list) -> dict:
    """Return the --base-url NAME/VERSION=URL values by the label each pin is built under,
    each naming a pin (or an --also version) at that version and ending with '/'."""
    from ..ingest.sources import check_base_urls
    from ..ingest.sources.packages import normalized
    from ..project.pins import same_version

    base_urls = {}
    for label, url in check_base_urls(values or ()).items():
        name, _, version = label.rpartition("/")
        # The version is part of the key, as for build's COLLECTION/VERSION: a URL given for
        # one release is never used for another (the exact-version contract), and a bump
        # refuses the stale flag instead of linking the new pin to the old site.
        pin = next((pin for pin in [*found.pins, *also] if pin.name == normalized(name)
                    and pin.version is not None and same_version(pin.version, version)), None)
        if pin is None:
            raise UserError(f"--base-url {label}: {found.lockfile} pins no {name} {version} "
                            "(give NAME/VERSION=URL of a pin)")
        base_urls[f"{pin.name}/{pin.version}"] = url
    return base_urls


def _lock_upgrades(path: str, found, environment: dict, transitive: bool, given) -> list:
    """Return the --also values (NAME==VERSION) a target lockfile's pins make: each pin of the
    project's that it locks at another version, but one --also gives (`given`) already. It is
    read as the project's pins are (the same readers, markers and --all), with no environment:
    a version it does not pin moves nothing."""
    from ..ingest.sources.packages import normalized
    from ..project import pins

    target = pins.read_pins(path, environment, transitive)
    pinned = {pin.name: pin.version for pin in found.pins if pin.version is not None}
    named = [(normalized(name), version) for name, _, version in
             (value.partition("==") for value in given or ())]
    # The target's pins of what the project pins: each moves, or stays the same.
    locked = [pin for pin in target.pins if pin.version is not None and pin.name in pinned]
    moved = [f"{pin.name}=={pin.version}" for pin in locked
             if not pins.same_version(pin.version, pinned[pin.name])]
    same = len(locked) - len(moved)
    alone = sorted(pin.name for pin in target.pins if pin.name not in pinned)
    print(f"project: --also-lock {target.path}: {len(moved)} "
          f"{'pin moves' if len(moved) == 1 else 'pins move'}"
          + (f" ({', '.join(moved)})" if moved else "") + f", {same} the same"
          + (f"; not pinned by the project, not built: {', '.join(alone)}" if alone else ""),
          file=sys.stderr, flush=True)
    return [value for value in moved if not any(
        value.partition("==")[0] == name and pins.same_version(value.partition("==")[2], version)
        for name, version in named if version)]


def _ranking(args) -> tuple:
    """Return (load_semantic's pair or None, the ranking as project.json records it).

    Asked for, a model must load (its error is the user's); by default the recommended one is
    used where the semantic extra is installed, and its absence builds lexical and says so.
    """
    from ..core.checks import SnapshotError
    from ..rerank import load_semantic

    lexical = args.ranking or RANKINGS[0]
    if args.lexical:
        return None, {"lexical": lexical, "semantic": None, "why": "--lexical"}
    if args.semantic:
        return (load_semantic("--semantic", args.semantic),
                {"lexical": lexical, "semantic": args.semantic, "why": "--semantic"})
    try:
        semantic = load_semantic(f"--semantic {PROJECT_SEMANTIC}, the default,", PROJECT_SEMANTIC)
    except SnapshotError as error:
        return None, {"lexical": lexical, "semantic": None, "why": str(error)}
    return semantic, {"lexical": lexical, "semantic": PROJECT_SEMANTIC,
                      "why": "the default where the semantic extra is installed; --lexical "
                             "for none"}


def _project(args) -> int:
    from ..ingest.builder import Progress, build_snapshot, default_policy
    from ..ingest.sources.form import SourceOptions, default_cache_dir
    from ..project import collect, pins
    from ..project.markers import MarkerError, target_environment

    try:
        environment = target_environment(args.python, args.extra or (), args.group or ())
    except MarkerError as error:
        raise UserError(str(error)) from None
    order = collect.parse_order(args.order) if args.order else collect.ORDER
    sites = _pairs(args.site, "--site")
    site_urls = _pairs(args.site_url, "--site-url")
    for name, url in site_urls.items():
        if name not in sites:
            raise UserError(f"--site-url {name}: no --site {name}=HTML_ROOT")
        if not url.endswith("/"):
            raise UserError(f"--site-url {name}={url} must end with '/'")
    for name, root in sites.items():
        if not os.path.isdir(root):
            raise UserError(f"--site {name}={root}: no such directory")
    if args.env and not os.path.isdir(args.env):
        raise UserError(f"--env {args.env}: no such directory")
    env = args.env or pins.default_env(args.path)
    found = pins.read_pins(args.path, environment, args.all, env)
    upgrades = [] if args.also_lock is None else _lock_upgrades(
        args.also_lock, found, environment, args.all, args.also)
    also = _also_pins([*(args.also or ()), *upgrades], found)
    base_urls = _base_urls(args.base_url, found, also)
    unknown = sorted(set(sites) - {pin.name for pin in found.pins})
    if unknown:
        raise UserError(f"--site {unknown[0]}: {found.lockfile} pins no {unknown[0]}")
    print(f"project: {found.path}: {len(found.pins)} "
          f"{'pins, their dependencies included' if found.closure else 'direct pins'}; order "
          + ", ".join(order)
          + (f"; environment {env}" if env else "") + ("; offline" if args.offline else ""),
          file=sys.stderr, flush=True)
    for line in (*found.notes, *pins.drift(found)):
        print(f"project: {line}", file=sys.stderr, flush=True)
    _check_out(args.out)
    policy = default_policy(args.ranking or RANKINGS[0])
    semantic, ranking = _ranking(args)
    print(f"project: ranking: {ranking['lexical']}"
          + (f" re-ranked by {ranking['semantic']} (" if ranking["semantic"] else ", lexical (")
          + ranking["why"] + ")", file=sys.stderr, flush=True)
    progress = Progress()
    with tempfile.TemporaryDirectory(prefix="retrieval-project-") as workdir:
        # --no-cache: this build's own folder, so that nothing (releases, clones) is read from
        # or left in the fetch cache, and git and crawl read the metadata of the release pypi
        # fetched without fetching it again.
        cache = workdir if args.no_cache else args.fetch_cache or default_cache_dir()
        options = collect.ProjectOptions(
            SourceOptions(cache, workdir, base_urls, max_file_bytes=args.max_file_bytes,
                          stream=sys.stderr, releases=os.path.join(cache, "releases"),
                          offline=args.offline),
            order, sites, site_urls, env, not args.no_cache)
        coverages = collect.collect(found, options, progress)
        # The upgrade's versions: built into the same collections, never pinned (project.json
        # lists the pins alone, so a request naming no version still reads the pinned one).
        also_coverages = [collect.collect_one(pin, options, progress) for pin in also]
        trees = [c.tree for c in coverages + also_coverages if c.tree is not None]
        if not trees:
            print(collect.coverage_table(coverages + also_coverages, found.environment), end="")
            raise UserError(f"no pin of {found.path} got any documentation (the table says why)")
        try:
            manifest = build_snapshot(trees, args.out, policy, progress, semantic=semantic,
                                      read=collect.drafts_reader(coverages + also_coverages),
                                      vector_cache=None if args.no_cache
                                      else os.path.join(cache, "vectors"))
            collect.write_project_json(args.out, collect.project_document(
                os.path.abspath(args.path), found, coverages, environment["python_version"],
                ranking))
        except OSError as exc:
            raise UserError(f"--out {args.out}: cannot write the snapshot: "
                            f"{exc.strerror or exc}") from None
    print(collect.coverage_table(coverages + also_coverages, found.environment), end="")
    print(manifest["corpus_id"])
    return 0


def register_project_command(commands) -> None:
    """Add `project` to the command line's subcommands."""
    project = commands.add_parser(
        "project", help="build a snapshot of the docs of what a project pins, at those versions",
        description="Read what a project pins (pylock.toml, uv.lock, poetry.lock, pdm.lock, "
                    "Pipfile.lock, requirements*.txt, else pyproject.toml with the installed "
                    "versions) and build one collection per dependency at its pinned version, "
                    "each from its best source; print a coverage table and the corpus_id.")
    project.add_argument("path", nargs="?", default=".",
                         help="the project's folder, or its lock or requirements file "
                              "(default: %(default)s)")
    project.add_argument("--out", required=True, help="snapshot directory to write")
    project.add_argument("--also", action="append", metavar="NAME==VERSION",
                         help="also build this version of a pinned dependency (the one a planned "
                              "upgrade moves to; repeat), into its collection beside the pinned "
                              "one, so that `retrieval diff` and searches naming that version work "
                              "offline; the pin is still what a request naming no version reads "
                              "(default: none)")
    project.add_argument("--also-lock", metavar="PATH",
                         help="the lockfile (or requirements file, or project folder) a planned "
                              "upgrade moves to: each pin of the project's it locks at another "
                              "version is built as --also NAME==VERSION would build it; read as "
                              "the project's pins are (default: none)")
    project.add_argument("--all", action="store_true",
                         help="every locked dependency, not only the project's own (direct)")
    project.add_argument("--env", metavar="PATH",
                         help="the environment the project runs in: its versions are compared "
                              "with the pins (drift) and its docstrings are a source "
                              "(default: PATH/.venv, else PATH/venv, if there is one)")
    project.add_argument("--python", metavar="X.Y",
                         help="the interpreter markers are evaluated for (default: this one)")
    project.add_argument("--extra", action="append", metavar="NAME",
                         help="an extra of the project markers may name (repeat; default: none)")
    project.add_argument("--group", action="append", metavar="NAME",
                         help="a dependency group whose dependencies are the project's too: "
                              "PEP 735's [dependency-groups], Poetry's or PDM's groups, "
                              "uv.lock's dev groups, a Pipfile.lock section (dev: develop) "
                              "(repeat; default: none)")
    project.add_argument("--order", metavar="SOURCES",
                         help="the sources tried for each pin, in order, comma-separated "
                              "(default: site,pypi,git,crawl,env); a source that gives "
                              "docstrings only is used when no later site, git or crawl gives "
                              "docs pages")
    project.add_argument("--offline", action="store_true",
                         help="only what is on disk: named sites, the environment, the "
                              "collection cache and the release archives kept there; nothing "
                              "fetched")
    project.add_argument("--site", action="append", metavar="NAME=HTML_ROOT",
                         help="a rendered site of one dependency's docs at its pinned version "
                              "(Debian's /usr/share/doc/python-jinja2-doc/html; repeat; default: "
                              "none)")
    project.add_argument("--site-url", action="append", metavar="NAME=URL",
                         help="where that site is published, ending with / (default: the "
                              "folder's file:// URL)")
    project.add_argument("--base-url", action="append", metavar="NAME/VERSION=URL",
                         help="where a pin's docs folder is published, ending with / (the "
                              "release's own versioned site, as for build; repeat; default: "
                              "found from its conf.py and metadata where the host's versions "
                              "are known, else units link to their files)")
    project.add_argument("--fetch-cache", metavar="DIR",
                         help="where fetched releases and each dependency's collection are "
                              "kept "
                              "(default: $XDG_CACHE_HOME/retrieval/fetch or "
                              "~/.cache/retrieval/fetch)")
    project.add_argument("--no-cache", action="store_true",
                         help="read every collection afresh from its source, fetched again, "
                              "and embed every unit (the cache's collections, releases and "
                              "vectors are not read or written)")
    project.add_argument("--ranking", choices=RANKINGS,
                         help=f"as for build (default: {RANKINGS[0]})")
    rerank = project.add_mutually_exclusive_group()
    rerank.add_argument("--semantic", nargs="?", const=PROJECT_SEMANTIC,
                        choices=SEMANTIC_MODELS, metavar="MODEL",
                        help=f"as for build, an embedding re-rank, here one that must load "
                             f"(MODEL default: {PROJECT_SEMANTIC}); without the flag, "
                             f"{PROJECT_SEMANTIC} where the semantic extra is installed, else "
                             f"lexical, and the build says which")
    rerank.add_argument("--lexical", action="store_true",
                        help="no embedding re-rank, even where the semantic extra is installed")
    project.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_FILE_BYTES,
                         metavar="N", help="as for build (default: %(default)s)")
    project.set_defaults(run=_project)
