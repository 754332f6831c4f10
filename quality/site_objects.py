"""A release's `pypi:` build beside its rendered site's, object by object (issue 44).

Each object description of the rendered build (a unit of any kind but section, titled by its
dotted name) is looked up in the `pypi:` build by that name, among its units' names:

- same place: a unit carrying the name is at the description's place (`page#id` below the
  site's root);
- on the site: one is at another place of the site (one passage under several names is linked
  at one of them: an inherited member at its definer's page);
- release only: one is only at the release's files (`pypi:DIST==VERSION/PATH#Ln-Lm`);
- absent: no unit carries the name.

A description without an id of its own (`:noindex:`: the rendered reader places it at its
section, where no build's unit of that name can be) is no object of the site's: counted apart.

No question is asked: it says which of the site's objects the `pypi:` build has, and where it
links them, for a release no question set covers (a Debian doc package's). summary_parity.py
asks them by their summaries.

    python quality/site_objects.py RENDERED_SNAPSHOT PYPI_SNAPSHOT [--examples 12]
"""

import argparse
import os
import sqlite3
import sys
from collections import Counter

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO_ROOT not in sys.path:  # python quality/site_objects.py puts quality/ itself first
    sys.path.insert(0, REPO_ROOT)

from quality.summary_parity import SECTION, place  # noqa: E402

RELEASE_LINK = "pypi:"
_OBJECTS = ("SELECT p.url, p.title, x.names FROM passages p JOIN passage_fields x USING (id) "
            "JOIN passage_facts f USING (id) WHERE f.kind != ? ORDER BY p.id")
_ALL = "SELECT p.url, p.title, x.names FROM passages p JOIN passage_fields x USING (id)"
_SECTIONS = "SELECT p.url FROM passages p JOIN passage_facts f USING (id) WHERE f.kind = ?"
VERDICTS = ("same place", "on the site", "release only", "absent")
NO_ID = "no id of its own"


def _rows(snapshot: str, query: str, *parameters) -> list:
    if not os.path.isfile(os.path.join(snapshot, "passages.sqlite")):
        raise SystemExit(f"site_objects.py: {snapshot} is no built snapshot (no passages.sqlite)")
    with sqlite3.connect(f"file:{snapshot}/passages.sqlite?mode=ro", uri=True) as db:
        return db.execute(query, parameters).fetchall()


def verdicts(rendered: str, pypi: str) -> dict:
    """Return {verdict: [dotted names]} of the rendered build's object descriptions, and
    under NO_ID those without an id of their own (at a section's place)."""
    sections = {place(url) for url, in _rows(rendered, _SECTIONS, SECTION)}
    described, no_id = {}, []
    for url, title, _ in _rows(rendered, _OBJECTS, SECTION):
        if place(url) in sections:
            no_id.append(title)
        else:
            described.setdefault(title, place(url))
    where: dict = {}  # name -> the places of the pypi units carrying it (None: release files)
    for url, title, names in _rows(pypi, _ALL):
        at = None if url.startswith(RELEASE_LINK) else place(url)
        for name in {title, *(names or "").split()}:
            where.setdefault(name, set()).add(at)
    found: dict = {verdict: [] for verdict in VERDICTS}
    for name, at in described.items():
        places = where.get(name, set())
        verdict = ("same place" if at in places else "on the site" if places - {None}
                   else "release only" if places else "absent")
        found[verdict].append(name)
    found[NO_ID] = no_id
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("rendered")
    parser.add_argument("pypi")
    parser.add_argument("--examples", type=int, default=12)
    args = parser.parse_args(argv)
    found = verdicts(args.rendered, args.pypi)
    counts = Counter({verdict: len(found[verdict]) for verdict in VERDICTS})
    total = sum(counts.values()) or 1
    print(f"{sum(counts.values())} object descriptions of the rendered build; in the pypi "
          "build: " + ", ".join(f"{verdict} {100 * counts[verdict] / total:.1f} %"
                                for verdict in VERDICTS))
    if found[NO_ID]:
        print(f"not counted, {NO_ID} (:noindex:, at its section's place): {len(found[NO_ID])}")
    for verdict in VERDICTS[1:]:
        if found[verdict]:
            print(f"{verdict}: {counts[verdict]}; e.g. "
                  + ", ".join(found[verdict][:args.examples]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
