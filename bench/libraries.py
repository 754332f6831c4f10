"""Many libraries side by side: Debian's documentation packages built into one snapshot.

Each library is one collection at the version its package documents, built from the HTML the
package installs (`apt-get install python3.11-doc python-click-doc python-flask-doc
python-requests-doc python-django-doc python-pandas-doc`). One run builds each collection alone
(timed with /usr/bin/time: wall seconds and peak RSS) and then all of them with one command
(the one docs/building.md lists), checks every URL of the HTML-built collections against the
rendered pages (`retrieval verify --rendered`), and asks each collection a few questions in
process, printing the evidence it returns: the report is Markdown on stdout.

    python bench/libraries.py [--out DIR] [--skip-alone] [--json-out FILE]
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

if __package__:  # python -m bench.libraries
    from bench import common
else:  # python bench/libraries.py, which puts bench/ itself on sys.path
    import common

log = common.log
DOC = "/usr/share/doc"
TIME = "/usr/bin/time"


@dataclass(frozen=True)
class Library:
    """One documentation package: its collection, where its HTML is, and what to ask it."""

    collection: str
    package: str
    base_url: str
    questions: tuple
    version: str = ""  # from the package's version unless given

    @property
    def root(self) -> str:
        """Return the package's HTML root."""
        return os.path.join(DOC, self.package, "html")


LIBRARIES = (
    Library("python", "python3.11-doc", "https://docs.python.org/3.11/",
            ("How do I remove a directory tree?", "parse command line arguments"), "3.11"),
    Library("click", "python-click-doc", "https://click.palletsprojects.com/en/8.1.x/",
            ("add a command line option with a default value", "prompt the user for a password")),
    Library("flask", "python-flask-doc", "https://flask.palletsprojects.com/en/2.2.x/",
            ("register a blueprint", "return JSON from a view")),
    Library("requests", "python-requests-doc", "https://requests.readthedocs.io/en/v2.28.1/",
            ("set a timeout", "send a POST request with JSON")),
    Library("django", "python-django-doc", "https://docs.djangoproject.com/en/3.2/",
            ("add a unique constraint to a model field", "order a queryset by a field")),
    Library("pandas", "python-pandas-doc", "https://pandas.pydata.org/pandas-docs/version/1.5.3/",
            ("group by a column and sum", "read a CSV file into a DataFrame")),
)


def package_version(package: str) -> str:
    """Return the upstream X.Y.Z of an installed Debian package (epoch and revision dropped)."""
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], check=True,
                             capture_output=True, text=True).stdout
    match = re.match(r"(?:\d+:)?(\d+\.\d+(?:\.\d+)?)", version)
    if not match:
        sys.exit(f"{package}: cannot read an X.Y[.Z] version from {version!r}")
    return match.group(1)


def label(library: Library, version: str) -> str:
    """Return the [COLLECTION/]VERSION label of --source, --base-url and --rendered."""
    return f"{library.collection}/{version}"


def build_command(libraries: list, out: str) -> list:
    """Return the one `retrieval build` command that builds these collections into out."""
    command = [sys.executable, "-m", "retrieval", "build", "--out", out]
    for library, version in libraries:
        command += ["--source", f"{label(library, version)}={library.root}",
                    "--base-url", f"{label(library, version)}={library.base_url}"]
    return command


def timed(command: list) -> tuple:
    """Run a command under /usr/bin/time -v; return (wall seconds, peak RSS in MiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.perf_counter()
        subprocess.run([TIME, "-v", "-o", report.name] + command, check=True,
                       cwd=common.REPO_ROOT, env=common.with_repo_on_path(os.environ),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                               report.read()).group(1))
    return wall, rss_kb / 1024


def collection_sizes(snapshot: str) -> dict:
    """Return {collection: (files, units, bytes)} of a built snapshot directory."""
    conn = sqlite3.connect(f"file:{os.path.join(snapshot, 'passages.sqlite')}?mode=ro", uri=True)
    try:
        return {collection: (files, units, size) for collection, files, units, size in conn.execute(
            "SELECT collection, count(DISTINCT source_id), count(*), sum(byte_count) "
            "FROM passages GROUP BY collection")}
    finally:
        conn.close()


def ask(service, library: Library, version: str, question: str) -> list:
    """Return [(url, first line)] of the evidence /retrieve returns, asked in process."""
    from retrieval.mcp.backends import BackendError  # the app called as a request would be

    try:
        result = service.retrieve({"question": question, "version": version,
                                   "collection": library.collection})
    except BackendError as refused:
        return [(str(refused.code), json.dumps(refused.body)[:80])]
    return [(item["url"], item["text"].split("\n", 1)[0][:90]) for item in result["evidence"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", help="build the combined snapshot here (default: a temp dir)")
    parser.add_argument("--skip-alone", action="store_true",
                        help="skip building each collection alone (no per-collection time/RSS)")
    parser.add_argument("--json-out", help="write every number here")
    args = parser.parse_args()
    missing = [lib.package for lib in LIBRARIES if not os.path.isdir(lib.root)]
    if missing:
        sys.exit(f"missing documentation packages: apt-get install -y {' '.join(missing)}")
    libraries = [(lib, lib.version or package_version(lib.package)) for lib in LIBRARIES]
    work = tempfile.mkdtemp(prefix="bench-libraries-")
    out = args.out or os.path.join(work, "snapshot")
    results = {"collections": {}}

    if not args.skip_alone:
        for library, version in libraries:
            log(f"building {label(library, version)} alone")
            alone = os.path.join(work, library.collection)
            wall, rss = timed(build_command([(library, version)], alone))
            results["collections"][library.collection] = {
                "version": version, "build_s": round(wall, 1), "peak_rss_mib": round(rss, 1)}

    log("building every collection with one command")
    command = build_command(libraries, out)
    wall, rss = timed(command)
    results["combined"] = {"build_s": round(wall, 1), "peak_rss_mib": round(rss, 1),
                           "command": " ".join(command[1:])}
    verify = [sys.executable, "-m", "retrieval", "verify", out] + [
        arg for library, version in libraries
        for arg in ("--rendered", f"{label(library, version)}={library.root}")]
    verified = subprocess.run(verify, cwd=common.REPO_ROOT, capture_output=True, text=True,
                              env=common.with_repo_on_path(os.environ))
    results["combined"]["verify"] = verified.stdout.strip().splitlines()[-1]

    sizes = collection_sizes(out)
    sys.path.insert(0, common.REPO_ROOT)
    from retrieval.mcp.backends import LocalBackend
    from retrieval.settings import load_settings

    service = LocalBackend(load_settings(overrides={"snapshot": out, "access_log": False}))
    try:
        for library, version in libraries:
            entry = results["collections"].setdefault(library.collection, {"version": version})
            entry["files"], entry["units"], entry["bytes"] = sizes[library.collection]
            entry["answers"] = {question: ask(service, library, version, question)
                                for question in library.questions}
    finally:
        service.close()

    print(f"# Libraries side by side ({time.strftime('%Y-%m-%d')})\n")
    print("| collection | version | files | units | bytes | build alone (s) | peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, entry in results["collections"].items():
        print(f"| {name} | {entry['version']} | {entry['files']:,} | {entry['units']:,} | "
              f"{entry['bytes']:,} | {entry.get('build_s', '-')} | "
              f"{entry.get('peak_rss_mib', '-')} |")
    combined = results["combined"]
    print(f"\nAll together, one command: {combined['build_s']} s, peak RSS "
          f"{combined['peak_rss_mib']} MiB; verify --rendered: {combined['verify']}.\n")
    print(f"    python {combined['command']}\n")
    for name, entry in results["collections"].items():
        for question, evidence in entry["answers"].items():
            print(f"- **{name}**: \"{question}\"")
            for url, first_line in evidence:
                print(f"  - {url} — `{first_line}`")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    return 0 if combined["verify"] == "verified" else 1


if __name__ == "__main__":
    common.exit_on_sigterm()
    sys.exit(main())
