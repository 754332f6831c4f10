"""GitChameleon across versions: issue 48's measures (a), (b) and (c) on two-release builds.

The dev problems whose `type_of_change` is a name change, a new
function/method/class, an argument change or a deprecation each pin one release of one library.
Each is paired with the next release of that library the set names (the last release named:
with the one before it), and the pair is built once into one two-version snapshot, as a user
would (`retrieval build --source LIB/OLD=pypi:DIST==OLD --source LIB/NEW=pypi:DIST==NEW`), with
quality/gitchameleon.py's Builder and cache. Then the diff from the older to the newer release
(core.diff, as the CLI, the route and the MCP tool run it) is asked whether it lists the
problem's target, the last part of its `name_of_class_or_func`, under the right change kind:

    new func/method/class -> added; name change -> renamed; argument change -> signature_changed;
    deprecation -> deprecated

and, leniently, under any kind the change can show as (a name change as an added or removed
object whose prose changed too; a deprecation as a removal). A name is listed when the last part
of one of an entry's names (old or new) is the target: measure (b).

(a) Precision across versions: the problem is asked of its pinned release in the pair's snapshot
as quality/gitchameleon.py asks it (a /retrieve run through the service's own request
validation, at the default allowances and at 8 reads), and its evidence holds the target API
(gitchameleon's evidence hit: a target named by a read passage's title or URL, or defined in its
text, by the set's score.py) and none of the other release's API-only names (the bare names of
the objects only the other release documents, by the same test).

(c) Absence said: where the target (its bare name) is an object of one release of the pair
only, it is looked up (core lookup, through the service as POST /lookup runs it) in the release
without it; right when the answer is `not_in_version` naming exactly the release that has it.

A second (b) figure, not the issue's, pairs a problem on the side the set itself puts its
change: where another problem of the library names the same API or asks the same question at
older releases only, with the release before it (change_sides; the set's data, never a diff's).

A pair that does not build, or a library the set names one release of, counts its problems as
misses. Printed: per type of change and per library, strict and lenient, (a) and (c), and each
pair's build and change counts.

    python -m quality.version_diff [--problems PATH] [--jobs 1] [--cache DIR]
        [--libraries falcon,sympy] [--json OUT.json]
"""

import argparse
import concurrent.futures
import dataclasses
import json
import os
import sys
from collections import Counter

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)

from quality import gitchameleon as gc  # noqa: E402
from quality import measure as lab  # noqa: E402
from retrieval.core.admission import DEFAULT_MAXIMA  # noqa: E402
from retrieval.core.diff import CHANGES, api_objects, compare  # noqa: E402
from retrieval.core.lookup import NOT_IN_VERSION  # noqa: E402
from retrieval.core.names import version_order  # noqa: E402
from retrieval.core.service import RetrievalService, served_version  # noqa: E402
from retrieval.core.snapshot import load_snapshot  # noqa: E402
from retrieval.http.operations.lookup import parse_lookup_request, run_lookup  # noqa: E402
from retrieval.rerank import attach  # noqa: E402

# type_of_change -> (the kind it is listed under, the kinds it may also show as).
EXPECTED = {
    "new func/method/class": ("added", ()),
    "name change": ("renamed", ("added", "removed")),
    "Function Name change": ("renamed", ("added", "removed")),
    "argument change": ("signature_changed", ()),
    "Argument or Attribute change": ("signature_changed", ()),
    "deprecation": ("deprecated", ("removed",)),
}


@dataclasses.dataclass(frozen=True)
class Pair(gc.Release):
    """Two releases of one library built into one snapshot: `version` and the newer one."""

    newer: str = ""

    @property
    def key(self) -> str:
        return f"{self.dist}=={self.version}+{self.newer}"

    @property
    def newer_release(self) -> gc.Release:
        return gc.Release(self.library, self.newer)


class PairForm(gc.SourceForm):
    """`retrieval build` with one pypi --source per release of the pair."""

    name = "pypi-pair"

    def command(self, release, home, out, semantic):
        sources = []
        for one in (gc.Release(release.library, release.version), release.newer_release):
            sources += ["--source",
                        f"{one.collection}/{one.label}=pypi:{one.dist}=={one.version}"]
        return ["build", *sources, "--out", out, *(["--semantic", semantic] if semantic else [])]


def pairs_of(rows: list) -> dict:
    """Return {problem id: (its pair, the other adjacent pair or None)}, or (None, None) for a
    library the set names one release of.

    Its pair: the problem's release and the next the set names (the last one: with the one
    before it). The other: the release before it and it, where there is one (a change made in
    the pinned release itself shows there)."""
    releases: dict = {}
    for row in rows:
        releases.setdefault(row["library"], set()).add(row["version"])
    ordered = {library: sorted(versions, key=lambda v: version_order(gc.Release(library, v).label))
               for library, versions in releases.items()}
    found = {}
    for row in rows:
        library, versions = row["library"], ordered[row["library"]]
        at = versions.index(row["version"])
        before = Pair(library, versions[at - 1], row["version"]) if at > 0 else None
        if len(versions) < 2:
            found[row["example_id"]] = (None, None)
        elif at + 1 < len(versions):
            found[row["example_id"]] = (Pair(library, row["version"], versions[at + 1]), before)
        else:
            found[row["example_id"]] = (before, None)
    return found


def change_sides(rows: list) -> dict:
    """Return {problem id: "older"} for the problems whose change the set itself puts before
    their release: another problem of the same library naming the same API
    (`name_of_class_or_func`) or asking the same question pins an older release of it, and none
    a newer one (the set's data, never a diff's)."""
    def order(row):
        return version_order(gc.Release(row["library"], row["version"]).label)

    sides = {}
    for row in rows:
        siblings = [other for other in rows
                    if other["library"] == row["library"] and other["version"] != row["version"]
                    and (other["problem"].strip() == row["problem"].strip()
                         or (other["name_of_class_or_func"] or "").strip()
                         == (row["name_of_class_or_func"] or "").strip() not in ("", "-"))]
        if siblings and all(order(other) < order(row) for other in siblings):
            sides[row["example_id"]] = "older"
    return sides


def target_of(score_module, row: dict) -> str | None:
    """Return the last part of the problem's changed API name (else the first of the set's own
    targets: gradio's problems name none), or None."""
    name = (row.get("name_of_class_or_func") or "").split("(", 1)[0].strip()
    name = (name.split() or [""])[0].strip(".")
    last = name.rsplit(".", 1)[-1]
    if last.isidentifier():
        return last
    targets = score_module.targets(row)
    return targets[0] if targets else None


def listed(changes: dict, target: str) -> list:
    """Return the change kinds whose entries name the target (last part of a name)."""
    kinds = []
    for kind in CHANGES:
        for entry in changes[kind]:
            names = {entry["name"], entry.get("new_name") or entry["name"]}
            if target in {name.rsplit(".", 1)[-1] for name in names}:
                kinds.append(kind)
                break
    return kinds


def diff_pair(record: dict, pair: Pair) -> dict | None:
    """Return the pair's diff (describe()'s document, every entry) with the bare names each
    version documents (`documented`: old, new), or None if unbuilt."""
    if not record["ok"]:
        return None
    service = RetrievalService.from_path(record["snapshot"])
    try:
        collection = service.collection(pair.collection)
        old, new = (api_objects(collection.api_units(release.label))
                    for release in (pair, pair.newer_release))
    finally:
        service.close()
    found = compare(pair.collection, pair.label, pair.newer_release.label, old, new).describe()
    return dict(found, documented=[{obj.bare for obj in objects} for objects in (old, new)])


def pinned_and_other(row: dict, pair: Pair) -> tuple:
    """Return the problem's pinned release and the other release of its pair."""
    older, newer = gc.Release(pair.library, pair.version), pair.newer_release
    return (older, newer) if row["version"] == pair.version else (newer, older)


def holds(score_module, item: dict, names) -> list:
    """Return the names a read passage holds (names by its title or URL, or defines), as
    gitchameleon's evidence hit tests a target."""
    title, url, text = item.get("title") or "", item.get("url") or "", item.get("text", "")
    seen = [name for name in names if name in title or name in url or name in text]
    return sorted(set(score_module.names_target(title, url, seen))
                  | {name for name in seen if score_module.defines(text, name)})


def look_up(service, release: gc.Release, name: str) -> dict:
    """Return POST /lookup's answer to a name in one release (its default limits)."""
    request = parse_lookup_request(
        {"name": name, "version": release.label, "collection": release.collection},
        DEFAULT_MAXIMA.max_source_bytes)
    served = served_version(service.snapshot.collections[release.collection], release.label)
    if served is not None:
        request = dataclasses.replace(request, served_version=served)
    return run_lookup(service, request)


def ask_pair(score_module, record: dict, pair: Pair, diff: dict, rows: list,
             target_of_row) -> dict:
    """Return {problem id: its (a) and (c) results} for the problems the pair is theirs of."""
    found: dict = {}
    if not record["ok"] or diff is None:
        return found
    service = RetrievalService(attach(load_snapshot(record["snapshot"])))
    try:
        for row in rows:
            pinned, other = pinned_and_other(row, pair)
            documented = dict(zip((pair.version, pair.newer), diff["documented"], strict=True))
            other_only = documented[other.version] - documented[pinned.version]
            targets = score_module.targets(row)
            precision = {}
            for budget, allowances in lab.BUDGETS:
                response = gc.ask(service, pinned, row["problem"], allowances)
                evidence = response.get("evidence", ())
                hit = any(holds(score_module, item, targets) for item in evidence)
                foreign = sorted({name for item in evidence
                                  for name in holds(score_module, item, other_only)})
                precision[budget] = {"evidence_hit": hit, "foreign": foreign,
                                     "precise": hit and not foreign}
            target = target_of_row(row)
            has = [release for release in (pinned, other)
                   if target and target in documented[release.version]]
            absence = None
            if len(has) == 1:
                without = other if has[0] is pinned else pinned
                answer = look_up(service, without, target)
                versions = answer.get(NOT_IN_VERSION, {}).get("versions")
                absence = {"name": target, "asked": without.label, "status": answer["status"],
                           "versions": versions,
                           "right": answer["status"] == NOT_IN_VERSION
                           and versions == [has[0].label]}
            found[row["example_id"]] = {"pinned": pinned.label, "other": other.label,
                                        "other_only_names": len(other_only),
                                        "precision": precision, "absence": absence}
    finally:
        service.close()
    return found


def score(row: dict, target: str | None, pairs: tuple, diffs: dict,
          side: str | None = None) -> dict:
    """Return one problem's result: its target, the kinds it is listed under in its pair's diff
    and in the other adjacent pair's, strict and lenient, and in the pair on the side the set
    puts its change (side "older": the release before and it; else its pair)."""
    expected, also = EXPECTED[row["type_of_change"]]
    pair, other = pairs
    kinds, other_kinds = ([] if p is None or diffs.get(p) is None or not target
                          else listed(diffs[p]["changes"], target) for p in (pair, other))
    either = kinds + other_kinds
    sided = other_kinds if side == "older" and other is not None else kinds
    diff = diffs.get(pair) if pair is not None else None
    documented = "unbuilt" if diff is None else {
        (True, True): "both", (True, False): "old only", (False, True): "new only",
        (False, False): "neither"}[tuple(target in names for names in diff["documented"])]
    return {"id": row["example_id"], "library": row["library"], "version": row["version"],
            "type_of_change": row["type_of_change"], "target": target,
            "pair": None if pair is None else [pair.version, pair.newer],
            "other_pair": None if other is None else [other.version, other.newer],
            "built": pair is not None and diffs.get(pair) is not None, "listed_as": kinds,
            "other_listed_as": other_kinds, "expected": expected, "documented": documented,
            "strict": expected in kinds, "lenient": bool(set(kinds) & {expected, *also}),
            "adjacent_strict": expected in either,
            "adjacent_lenient": bool(set(either) & {expected, *also}),
            "set_side": side, "set_side_strict": expected in sided,
            "set_side_lenient": bool(set(sided) & {expected, *also})}


def precision_lines(results: list) -> list:
    """Return measure (a)'s lines: per budget, the evidence hits and those without the other
    release's API-only names, of every problem (unbuilt: a miss)."""
    lines = []
    n = len(results)
    for budget, _ in lab.BUDGETS:
        runs = [r["across"]["precision"][budget] for r in results if r["across"]]
        hit = sum(run["evidence_hit"] for run in runs)
        precise = sum(run["precise"] for run in runs)
        foreign = sum(bool(run["foreign"]) for run in runs)
        lines.append(f"(a) {budget}: evidence holds the target and none of the other release's "
                     f"API-only names: {precise} ({100 * precise / n:.1f} %); evidence hit "
                     f"{hit} ({100 * hit / n:.1f} %); evidence holding another release's "
                     f"API-only name {foreign}")
    return lines


def absence_lines(results: list) -> list:
    """Return measure (c)'s line: of the lookups of targets one release of the pair lacks,
    those answered not_in_version with the release that has it."""
    looked = [r["across"]["absence"] for r in results if r["across"] and r["across"]["absence"]]
    right = sum(one["right"] for one in looked)
    statuses = Counter(one["status"] for one in looked)
    return [f"(c) lookups of a target one release of the pair lacks, answered not_in_version "
            f"with the right versions: {right} of {len(looked)}"
            + (f" ({100 * right / len(looked):.1f} %)" if looked else "")
            + f"; statuses {dict(statuses)}"]


def table(title: str, results: list, field: str) -> list:
    groups: dict = {}
    for result in results:
        groups.setdefault(result[field], []).append(result)
    lines = [f"| {title} | problems | strict | lenient | adjacent strict | adjacent lenient |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, group in sorted(groups.items(), key=lambda item: -len(item[1])):
        lines.append(f"| {name} | {len(group)} | " + " | ".join(
            str(sum(r[field] for r in group)) for field in (
                "strict", "lenient", "adjacent_strict", "adjacent_lenient")) + " |")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--problems", default=gc.DEFAULT_PROBLEMS)
    p.add_argument("--cache", help="where the built pairs are kept (default: gitchameleon's, "
                                   "$XDG_CACHE_HOME or ~/.cache, /retrieval/gitchameleon/"
                                   "<builder digest>)")
    p.add_argument("--build-timeout", type=float, default=900)
    p.add_argument("--jobs", type=int, default=1, help="builds at once (default: %(default)s)")
    p.add_argument("--libraries", help="only these libraries' problems (comma-separated)")
    p.add_argument("--json", dest="json_out", help="write every problem's result here")
    args = p.parse_args(argv)
    gc.common.exit_on_sigterm()
    every = gc.read_problems(args.problems, None, None)
    pairs = pairs_of(every)  # over the whole set: the next release the set names
    rows = [row for row in gc.read_problems(args.problems, args.libraries, None)
            if row["type_of_change"] in EXPECTED]
    cache = os.path.abspath(args.cache or gc.default_cache(gc.builder_digest()))
    wanted = sorted({p for row in rows for p in pairs[row["example_id"]]} - {None},
                    key=lambda p: p.key)
    gc.log(f"{len(rows)} problems, {len(wanted)} pairs; cache {cache}")
    builder = gc.Builder(cache, PairForm(), None, args.build_timeout)
    score_module = gc.load_score(args.problems)
    diffs: dict = {}
    asked: dict = {}  # problem id -> its (a) and (c) results
    builds: list = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
    try:
        futures = {pool.submit(builder.build, pair): pair for pair in wanted}
        for future in concurrent.futures.as_completed(futures):
            pair = futures[future]
            record = future.result()
            diffs[pair] = diff_pair(record, pair)
            asked.update(ask_pair(score_module, record, pair, diffs[pair],
                                  [row for row in rows if pairs[row["example_id"]][0] == pair],
                                  lambda row: target_of(score_module, row)))
            counts = diffs[pair]["counts"] if diffs[pair] is not None else None
            builds.append({"pair": pair.key, "ok": record["ok"], "seconds": record["seconds"],
                           "units": record["units"], "counts": counts})
            gc.log(f"diffed {pair.key}: {counts}")
    except BaseException:
        builder.stop_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    sides = change_sides(every)
    results = [score(row, target_of(score_module, row), pairs[row["example_id"]], diffs,
                     sides.get(row["example_id"]))
               | {"across": asked.get(row["example_id"])} for row in rows]

    def share(field):
        count = sum(bool(r[field]) for r in results)
        return f"{count} ({100 * count / len(results):.1f} %)"

    lines = [f"{len(results)} problems, {len(wanted)} pairs "
             f"({sum(b['ok'] for b in builds)} built)",
             f"(b) its pair's diff lists the target under the right kind: {share('strict')}; "
             f"leniently {share('lenient')}; under any kind {share('listed_as')}",
             f"    either adjacent pair's diff (the release before too): "
             f"{share('adjacent_strict')}; leniently {share('adjacent_lenient')}",
             f"    a second figure, not the issue's: the pair on the side the set puts the change "
             f"(the release before, for the {sum(r['set_side'] == 'older' for r in results)} "
             f"problems the set names the same API or question of at older releases only): "
             f"{share('set_side_strict')}; leniently {share('set_side_lenient')}",
             *precision_lines(results), *absence_lines(results), "",
             *table("type_of_change", results, "type_of_change"), "",
             *table("library", results, "library"), "",
             "Where the pair's two releases document the target (an object of that bare name):",
             "", *table("documented", results, "documented"), "",
             "| pair | built | units | " + " | ".join(CHANGES) + " |",
             "|---|---|---:|" + "---:|" * len(CHANGES)]
    for build in sorted(builds, key=lambda b: b["pair"]):
        counts = build["counts"] or {}
        lines.append(f"| {build['pair']} | {'yes' if build['ok'] else 'no'} | {build['units']} | "
                     + " | ".join(str(counts.get(kind, "-")) for kind in CHANGES) + " |")
    print("\n".join(lines))
    print(f"kinds listed: {Counter(k for r in results for k in r['listed_as'])}")
    misses = Counter((r["documented"], r["type_of_change"]) for r in results if not r["strict"])
    print(f"strict misses by where the target is documented: {dict(misses)}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump({"cache": cache, "builds": builds, "problems": results}, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
