"""An installed environment's API objects beside each pinned release's, built from the index.

Issue 44's target: "An `env:` build of an environment holding flask, requests, click,
sqlalchemy, pydantic and their dependencies completes, and each of its collections holds the API
objects its `pypi:` build holds." Given a virtual environment and NAME==VERSION pins installed in
it, this builds `--source env:VENV` once (every distribution, as a user would) and
`--source pypi:NAME==VERSION` per pin (lexical), each in a child `python -m retrieval build`, and
compares per pin the API objects of the pin's collection in both: core.diff.api_objects, what a
version diff compares (the non-section units the index holds, not `noindex`, grouped under their
primary qualified name). Per pin:

- raw: the objects' primary names, compared as strings;
- by any name: a `pypi:` object the env build holds under any of its names (flask.Flask is
  flask.app.Flask: the docs say `.. autoclass:: flask.Flask`, the env build titles the class by
  its shortest public name and indexes both), and the same the other way;
- by its pypi name: a `pypi:` object whose primary name (the name its docs give it, which a
  user looks up) the env build holds under any name. Stricter than "any": the `pypi:` build
  knows `flask.Flask.route` by its defining name `flask.scaffold.Scaffold.route` too, so "any"
  counts it held by an env build that has no name `flask.Flask.route`;
- of the `pypi:` objects the env build lacks by any name, how many it holds as a `noindex` unit
  (its internals, kept out of the API objects), and where the `pypi:` build read each (a docs
  page: an object only the docs describe, which an installed package has no docs for; a module:
  a docstring the env build should have read too).

The report is Markdown on stdout; --json writes the figures and every name the env build lacks.

    python -m quality.env_vs_pypi --env VENV flask==2.2.2 requests==2.28.1 \\
        [--out DIR] [--json FILE] [--jobs 1] [--build-timeout 1800]

--out keeps the snapshots (and each build's record) there, and a rerun reuses a snapshot whose
record is there: delete the directory to rebuild. Nothing is fitted or tuned here.
"""

import argparse
import concurrent.futures
import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)

from bench import common, corpus_scale  # noqa: E402
from retrieval.core.diff import ApiObject, api_objects  # noqa: E402
from retrieval.core.names import normalized_name  # noqa: E402
from retrieval.core.service import RetrievalService  # noqa: E402
from retrieval.ingest.readers.docstrings import is_private  # noqa: E402

log = common.log
# The suffixes of the pages a docs folder is read from (Sphinx's source_suffix, MyST, plain text).
DOCS_PAGES = (".rst", ".txt", ".md")
SAMPLE = 10  # `other` names shown per pin in the table
# Why the env build lacks an object the pypi build holds (why_lacking), in the order tested.
WHY = ("docs page", "not installed", "env noindex", "private name", "no docstring", "other")
# The names of a version's units the index keeps out of its API objects (core/database.API_UNITS'
# `noindex = 0`): a package's internals.
NOINDEX_NAMES = (
    "SELECT f.names FROM passages AS p JOIN passage_facts AS i ON i.id = p.id "
    "JOIN passage_fields AS f ON f.id = p.id "
    "WHERE p.collection = ? AND p.version = ? AND i.kind != 'section' AND i.noindex = 1")


@dataclasses.dataclass(frozen=True)
class Pin:
    """One NAME==VERSION pin: its collection (the normalized name) in both builds."""

    name: str
    version: str

    @property
    def collection(self) -> str:
        return normalized_name(self.name)

    @classmethod
    def parse(cls, text: str) -> "Pin":
        name, sep, version = text.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise ValueError(f"{text!r}: not NAME==VERSION")
        return cls(name.strip(), version.strip())


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One pin's API objects in the pypi and env builds, raw and by any name."""

    pypi: int
    env: int
    env_lacks: tuple  # pypi primary names not an env primary name (raw), sorted
    pypi_lacks: tuple  # env primary names not a pypi primary name (raw), sorted
    env_lacks_any: tuple  # pypi objects none of whose names any env object has, primary names
    pypi_lacks_any: tuple  # the same the other way
    env_lacks_name: tuple = ()  # pypi primary names no env object has under any name, sorted

    def figures(self) -> dict:
        return {"pypi_objects": self.pypi, "env_objects": self.env,
                "env_lacks": len(self.env_lacks), "pypi_lacks": len(self.pypi_lacks),
                "env_lacks_any_name": len(self.env_lacks_any),
                "pypi_lacks_any_name": len(self.pypi_lacks_any),
                "env_lacks_pypi_name": len(self.env_lacks_name)}


def compare_objects(pypi_objects, env_objects) -> Comparison:
    """Compare two builds' ApiObjects of one release: by primary name, by any of their names
    (an object one build titles flask.app.Flask and the other flask.Flask is one), and by the
    pypi object's primary name among any env object's names."""
    def primaries(objects):
        return {obj.name for obj in objects}

    def every_name(objects):
        return {name for obj in objects for name in (obj.name, *obj.names)}

    def lacking(objects, others):
        held = every_name(others)
        return tuple(sorted(obj.name for obj in objects
                            if not held.intersection((obj.name, *obj.names))))

    pypi_names, env_names = primaries(pypi_objects), primaries(env_objects)
    return Comparison(len(pypi_names), len(env_names), tuple(sorted(pypi_names - env_names)),
                      tuple(sorted(env_names - pypi_names)),
                      lacking(pypi_objects, env_objects), lacking(env_objects, pypi_objects),
                      tuple(sorted(pypi_names - every_name(env_objects))))


def build(name: str, source: str, out: str, args) -> dict:
    """Build one snapshot of one --source in a child process (reusing one --out kept with its
    record); return its record: command, exit status, seconds, last output lines."""
    record_path = out + ".build.json"
    if os.path.exists(os.path.join(out, "manifest.json")) and os.path.exists(record_path):
        with open(record_path, encoding="utf-8") as handle:
            return dict(json.load(handle), reused=True)
    command = [sys.executable, "-m", "retrieval", "build", "--source", source, "--out", out]
    log(f"build {name}: {' '.join(command[1:])}")
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=REPO_ROOT, env=corpus_scale.child_env(),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=args.build_timeout)
        status, output = done.returncode, (done.stdout + done.stderr).strip().splitlines()
    except subprocess.TimeoutExpired:
        status, output = "timeout", [f"no end within {args.build_timeout:.0f} s"]
    seconds = time.perf_counter() - started
    record = {"source": source, "command": command[1:], "exit": status,
              "seconds": round(seconds, 1), "last_line": output[-1] if output else "",
              "skipped": [line for line in output if line.startswith("build: skipped")],
              "tail": output[-5:]}
    log(f"build {name}: exit {status} in {seconds:.0f} s; {record['last_line'][:200]}")
    if status == 0:
        with open(record_path, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)
    return dict(record, reused=False)


def objects_of(snapshot: str, pin: Pin) -> tuple:
    """Return (the pin's ApiObjects, {every name of its noindex units}) in a built snapshot;
    (None, set()) when the snapshot has no such collection version."""
    service = RetrievalService.from_path(snapshot)
    try:
        collection = service.index.collection(pin.collection)
        units = collection.api_units(pin.version) if collection is not None else None
    finally:
        service.close()
    if not units:
        return None, set()
    conn = sqlite3.connect(f"file:{os.path.join(snapshot, 'passages.sqlite')}?mode=ro", uri=True)
    try:
        noindex = {name for (names,) in conn.execute(NOINDEX_NAMES, (pin.collection, pin.version))
                   for name in names.split()}
    finally:
        conn.close()
    return api_objects(units), noindex


def why_lacking(obj: ApiObject, env_noindex: set, installed: set | None = None) -> str:
    """Return why the env build may lack a pypi object, the first of WHY that holds.

    Each but the last is the env reader's rule at work: an installed package has no docs pages;
    nor the modules of the sdist beside its packages that the docs describe (installed: the
    top-level names the env build's objects have; SQLAlchemy's `examples.*`, read from where
    conf.py's sys.path puts them); its internals are noindex; public is no part with a leading
    "_"; autodoc lists members without a docstring (`:undoc-members:`, an explicit directive)
    that a docstring reader has nothing to read of. What is left is public and documented in
    its module: a candidate miss."""
    if obj.passage.source_id.endswith(DOCS_PAGES):
        return "docs page"
    if installed is not None and not any(name.partition(".")[0] in installed
                                         for name in obj.names):
        return "not installed"
    if env_noindex.intersection(obj.names):
        return "env noindex"
    if all(is_private(name) for name in obj.names):
        return "private name"
    if not obj.prose:
        return "no docstring"
    return "other"


def pin_record(pin: Pin, env_snapshot: str | None, pypi_build: dict, pypi_snapshot: str) -> dict:
    """Return one pin's comparison record (figures, the names the env build lacks)."""
    record: dict = {"pin": f"{pin.name}=={pin.version}", "collection": pin.collection,
                    "pypi_build": pypi_build}
    pypi, _ = objects_of(pypi_snapshot, pin) if pypi_build["exit"] == 0 else (None, set())
    env, env_noindex = objects_of(env_snapshot, pin) if env_snapshot else (None, set())
    record["pypi_held"], record["env_held"] = pypi is not None, env is not None
    if pypi is None or env is None:
        return record
    found = compare_objects(pypi, env)
    by_name = {obj.name: obj for obj in pypi}
    lacks = [by_name[name] for name in found.env_lacks_any]
    record.update(found.figures())
    installed = {name.partition(".")[0] for obj in env for name in obj.names}
    whys = [why_lacking(obj, env_noindex, installed) for obj in lacks]
    record["why"] = {why: whys.count(why) for why in WHY}
    record["env_lacks_names"] = [
        {"name": obj.name, "names": list(obj.names), "kind": obj.kind,
         "read_from": obj.passage.source_id, "why": why}
        for obj, why in zip(lacks, whys, strict=True)]
    record["pypi_lacks_names"] = list(found.pypi_lacks_any)
    record["env_lacks_raw_names"] = list(found.env_lacks)
    record["env_lacks_pypi_name_names"] = list(found.env_lacks_name)
    return record


def report(env_build: dict, records: list, args) -> None:
    """Print the Markdown: the env build's status and last line, then one row per pin."""
    print(f"env: `{args.env}`; pins {' '.join(r['pin'] for r in records)}; lexical; "
          f"code: {REPO_ROOT}\n")
    print(f"env build: exit {env_build['exit']} in {env_build['seconds']:.0f} s"
          + (" (reused)" if env_build.get("reused") else "")
          + f"; last line: `{env_build['last_line']}`\n")
    for line in env_build.get("skipped", ()):
        print(f"- {line}")
    print("\nObjects: core.diff.api_objects (non-section, indexed units under one primary name). "
          "Raw: primary names compared; any: an object either build holds under any of its "
          "names; by pypi name: the pypi object's primary name is any env object's name. Why "
          "env lacks one (by any name), the first that holds: read by pypi from a "
          "docs page; of no package installed (the sdist's `examples/` the docs describe); "
          "held by env as a noindex unit; every name private; no docstring (autodoc "
          "lists it); other (public, documented in its module). Sample: the `other` ones.\n")
    print("| pin | pypi build | pypi objects | env objects | env lacks raw / any / by pypi name | "
          + " | ".join(WHY) + " | pypi lacks raw / any | sample env lacks |")
    print("|---|---|---:|---:|---|" + "---:|" * len(WHY) + "---|---|")
    for r in records:
        build_cell = f"exit {r['pypi_build']['exit']}"
        if "pypi_objects" not in r:
            why = "pypi build holds no such version" if not r["pypi_held"] else \
                "env build holds no such version"
            print(f"| {r['pin']} | {build_cell} | - | - | - | " + "- | " * len(WHY)
                  + f"- | {why} |")
            continue
        sample = ", ".join([f"`{n['name']}`" for n in r["env_lacks_names"]
                           if n["why"] == "other"][:SAMPLE])
        print(f"| {r['pin']} | {build_cell} | {r['pypi_objects']} | {r['env_objects']} "
              f"| {r['env_lacks']} / {r['env_lacks_any_name']} / {r['env_lacks_pypi_name']} | "
              + " | ".join(str(r["why"][why]) for why in WHY)
              + f" | {r['pypi_lacks']} / {r['pypi_lacks_any_name']} | {sample} |")


def parse_args(argv=None):
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="the virtual environment (or site-packages)")
    parser.add_argument("pins", nargs="+", help="NAME==VERSION, each installed in --env")
    parser.add_argument("--out", help="build here and keep the snapshots; a rerun reuses them "
                                      "(default: a temporary directory, removed)")
    parser.add_argument("--json", dest="json_out", help="write the figures and names here")
    parser.add_argument("--jobs", type=int, default=1, help="builds at once (default: %(default)s)")
    parser.add_argument("--build-timeout", type=float, default=1800)
    args = parser.parse_args(argv)
    try:
        args.pins = [Pin.parse(text) for text in args.pins]
    except ValueError as error:
        parser.error(str(error))
    if args.jobs < 1:
        parser.error("--jobs must be positive")
    args.env = os.path.abspath(args.env)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    common.exit_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="env-vs-pypi-") as scratch:
        out = os.path.abspath(args.out) if args.out else scratch
        os.makedirs(out, exist_ok=True)
        env_out = os.path.join(out, "env")
        jobs = {"env": (f"env:{args.env}", env_out)} | {
            pin.collection: (f"pypi:{pin.name}=={pin.version}",
                             os.path.join(out, f"pypi-{pin.collection}")) for pin in args.pins}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {name: pool.submit(build, name, source, snapshot, args)
                       for name, (source, snapshot) in jobs.items()}
            builds = {name: future.result() for name, future in futures.items()}
        env_snapshot = env_out if builds["env"]["exit"] == 0 else None
        records = [pin_record(pin, env_snapshot, builds[pin.collection], jobs[pin.collection][1])
                   for pin in args.pins]
    report(builds["env"], records, args)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump({"meta": {"env": args.env, "retrieval_root": REPO_ROOT,
                                "finished_unix": time.time()},
                       "env_build": builds["env"], "pins": records}, handle, indent=1)
        log(f"wrote {args.json_out}")
    return 0 if builds["env"]["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
