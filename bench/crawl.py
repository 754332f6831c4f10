"""Built twice: a Debian documentation tree from disk, and the same tree crawled over loopback.

Each library's HTML root (`apt-get install python-flask-doc python-requests-doc`) is served by
http.server on a loopback port; the local build is given that server's URL as its base URL, so
the two builds must agree byte for byte: the same passages (text, lines, URLs, anchors, ranking
facts), the same manifest, the same /retrieve replies to the library's questions. A second crawl
of the same site into the same fetch cache shows what re-fetching costs when nothing changed.
The report is Markdown on stdout.

    python bench/crawl.py [--libraries flask,requests] [--work DIR]
"""

import argparse
import contextlib
import functools
import http.server
import io
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time

if __package__:  # python -m bench.crawl
    from bench import common
    from bench.libraries import LIBRARIES, package_version
else:  # python bench/crawl.py, which puts bench/ itself on sys.path
    import common
    from libraries import LIBRARIES, package_version

sys.path.insert(0, common.REPO_ROOT)

from retrieval.cli.main import main as retrieval_main  # noqa: E402 (after the path is set)
from retrieval.wsgi import create_app  # noqa: E402
from tests.support import post_json, quiet_settings  # noqa: E402

log = common.log


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: str) -> tuple:
    """Serve a directory on a loopback port; return (server, its URL)."""
    server = http.server.ThreadingHTTPServer(
        (common.HOST, 0), functools.partial(_Quiet, directory=root))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{common.HOST}:{server.server_address[1]}/"


def build(args: list) -> tuple:
    """Run `retrieval build ARGS` in process; return (seconds, its fetch summary line or "")."""
    err = io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = retrieval_main(["build", *args])
    if code != 0:
        sys.exit(f"retrieval build {' '.join(args)} failed:\n{err.getvalue()}")
    done = [line for line in err.getvalue().splitlines() if line.startswith("fetch:")
            and ": done:" in line]
    return time.monotonic() - start, done[-1] if done else ""


def passages(out: str) -> list:
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return conn.execute("SELECT * FROM passages p JOIN passage_facts f ON f.id = p.id "
                            "ORDER BY p.id").fetchall()
    finally:
        conn.close()


def answers(out: str, version: str, collection: str, questions) -> list:
    app = create_app(snapshot_path=out, settings=quiet_settings())
    try:
        return [post_json(app, {"question": q, "version": version,
                                "collection": collection}).body for q in questions]
    finally:
        app.close()


def compare(library, work: str) -> dict:
    """Build one library both ways; return what the report prints of it."""
    version = package_version(library.package)
    label = f"{library.collection}/{version}"
    server, origin = serve(os.path.dirname(library.root))
    try:
        prefix = origin + "html/"
        local, crawled, again = (os.path.join(work, library.collection, name)
                                 for name in ("local", "crawled", "again"))
        cache = os.path.join(work, library.collection, "cache")
        local_s, _ = build(["--source", f"{label}={library.root}", "--base-url",
                            f"{label}={prefix}", "--out", local])
        log(f"{label}: local build {local_s:.1f}s")
        crawl_s, summary = build(["--source", f"{label}={prefix}", "--fetch-cache", cache,
                                  "--out", crawled])
        log(f"{label}: crawled build {crawl_s:.1f}s: {summary}")
        again_s, again_summary = build(["--source", f"{label}={prefix}", "--fetch-cache", cache,
                                        "--out", again])
        log(f"{label}: crawled again {again_s:.1f}s: {again_summary}")
    finally:
        server.shutdown()
        server.server_close()
    with open(os.path.join(local, "manifest.json"), "rb") as a, \
            open(os.path.join(crawled, "manifest.json"), "rb") as b:
        same_manifest = a.read() == b.read()
    local_rows, crawled_rows = passages(local), passages(crawled)
    replies = [answers(out, version, library.collection, library.questions)
               for out in (local, crawled)]
    return {"library": label, "units": len(local_rows), "crawled_units": len(crawled_rows),
            "same_units": local_rows == crawled_rows, "same_manifest": same_manifest,
            "same_answers": replies[0] == replies[1], "questions": len(library.questions),
            "local_s": round(local_s, 1), "crawl_s": round(crawl_s, 1),
            "again_s": round(again_s, 1), "crawl": summary, "again": again_summary}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libraries", default="flask,requests",
                        help="collections of bench/libraries.py to build (default: %(default)s)")
    parser.add_argument("--work", help="directory for the builds (default: a temporary one)")
    parser.add_argument("--json-out", help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    chosen = [lib for lib in LIBRARIES if lib.collection in args.libraries.split(",")]
    missing = [lib.package for lib in chosen if not os.path.isdir(lib.root)]
    if missing:
        sys.exit(f"not installed: apt-get install {' '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        rows = [compare(lib, args.work or tmp) for lib in chosen]
    print("| library | units | same units | same manifest | same answers | local build s "
          "| crawl + build s | again s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(f"| {row['library']} | {row['units']} | {row['same_units']} | "
              f"{row['same_manifest']} | {row['same_answers']} ({row['questions']}) | "
              f"{row['local_s']} | {row['crawl_s']} | {row['again_s']} |")
    for row in rows:
        print(f"\n{row['library']}: `{row['crawl']}`; again: `{row['again']}`")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["same_units"] and r["same_answers"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
