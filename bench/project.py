"""`retrieval project` on a 20-dependency requirements file: a cold build, and a one-pin bump.

The 21 releases (20 pins and the bumped one) are first fetched from the index pip is configured
for (retrieval's own fetch, nothing run) into a local find-links folder: that is the warm
download cache. Every timed run then reads releases only from there (PIP_NO_INDEX,
PIP_FIND_LINKS), so the figures are the build's, not the network's:

1. cold: an empty collection cache, every collection read from its release;
2. bump: click 8.1.3 -> 8.1.7 in requirements.txt, the other 19 from the collection cache;
3. the bumped project again with --no-cache: its corpus_id must equal the bump's.

    python bench/project.py [--work DIR] [--semantic MODEL]

Lexical ranking (`--lexical`, whatever the semantic extra) unless --semantic names the re-rank;
the report is Markdown on stdout.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINS = ("flask==2.2.2", "click==8.1.3", "requests==2.28.1", "jinja2==3.1.2", "werkzeug==2.2.2",
        "itsdangerous==2.1.2", "markupsafe==2.1.1", "idna==3.4", "urllib3==1.26.12",
        "charset-normalizer==2.1.1", "attrs==22.1.0", "six==1.16.0", "packaging==21.3",
        "pyparsing==3.0.9", "toml==0.10.2", "tomli==2.0.1", "colorama==0.4.6",
        "pygments==2.13.0", "docutils==0.19", "python-dateutil==2.8.2")
BUMP = ("click==8.1.3", "click==8.1.7")


def download(archives: Path) -> float:
    """Fetch every release (and the bump's) into archives; return the seconds it took."""
    sys.path.insert(0, str(ROOT))
    from retrieval.ingest.sources.index_fetch import fetch_release

    start = time.monotonic()
    for pin in (*PINS, BUMP[1]):
        dist, _, version = pin.partition("==")
        fetch_release(dist, version, archives)
    return time.monotonic() - start


def project(folder: Path, out: Path, cache: Path, archives: Path, *flags) -> tuple:
    """Run `retrieval project`; return (seconds, stdout)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PIP_")}
    env |= {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(archives),
            "PIP_CONFIG_FILE": os.devnull, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "retrieval", "project", str(folder), "--out",
                           str(out), "--fetch-cache", str(cache), *flags], env=env,
                          capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"retrieval project failed:\n{done.stderr}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="a folder to keep (default: a temporary one)")
    parser.add_argument("--semantic", metavar="MODEL",
                        help="build with this re-rank (default: none, lexical)")
    args = parser.parse_args()
    ranking = ("--semantic", args.semantic) if args.semantic else ("--lexical",)
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-project-"))
    archives, cache, folder = work / "archives", work / "cache", work / "app"
    for path in (archives, folder):
        path.mkdir(parents=True, exist_ok=True)
    fetched = download(archives)
    requirements = folder / "requirements.txt"
    requirements.write_text("\n".join(PINS) + "\n", encoding="utf-8")
    cold, table = project(folder, work / "cold", cache, archives, *ranking)
    requirements.write_text("\n".join(BUMP[1] if pin == BUMP[0] else pin for pin in PINS) + "\n",
                            encoding="utf-8")
    bump, bumped = project(folder, work / "bump", cache, archives, *ranking)
    fresh, again = project(folder, work / "fresh", cache, archives, "--no-cache", *ranking)
    same = bumped.splitlines()[-1] == again.splitlines()[-1]
    print(f"# retrieval project: {len(PINS)} pins, {os.cpu_count()} cores, "
          f"{args.semantic or 'lexical'}\n")
    print(f"- download of {len(PINS) + 1} releases into find-links: {fetched:.1f} s")
    print(f"- cold build (releases on disk, empty collection cache): {cold:.1f} s")
    print(f"- one-pin bump ({BUMP[0]} -> {BUMP[1]}): {bump:.1f} s")
    print(f"- the bumped project with --no-cache: {fresh:.1f} s; same corpus_id as the bump: "
          f"{same}\n")
    print("```\n" + table + "```")
    if not same:
        raise SystemExit("the bump's corpus_id is not a cold build's")


if __name__ == "__main__":
    main()
