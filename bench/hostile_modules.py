"""Crafted Python modules built through `env:`: does a module cost what its size does?

Each size n is one module (tests/test_hostile_packages.py `chained_module`): n `#:` comment lines
over an assignment of n targets, n statements on one line documented by a `#:` after them, and
n `self.` targets under n `#:` lines in an `__init__`. It is installed in a site-packages of its
own and built by `python -m retrieval build --source env:...` in a child; the report is the
module's size and the seconds the build's last line says it took, one row per n. A reader linear
in its input takes about 4x as long for 4x the n; one that reads the comments once per target,
16x (issue 46, item 8).

    python bench/hostile_modules.py                  # n = 1000, 4000, 16000
    python bench/hostile_modules.py --sizes 1000,2000 --timeout 600
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from retrieval.testing import subprocess_env  # noqa: E402 (after the path is set)
from tests.package_fixtures import write_site_packages  # noqa: E402
from tests.test_hostile_packages import chained_module  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_seconds(n: int, work: str, timeout: float) -> tuple:
    """Build the module of size n; return (its bytes, the build's seconds, None past timeout)."""
    text = chained_module(n)
    venv = os.path.join(work, f"n{n}")
    write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"),
                        {"herd": ("1.0", {"herd.py": text})})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "build", "--out", os.path.join(venv, "out"),
             "--source", f"env:{venv}"], capture_output=True, text=True, cwd=ROOT,
            env=subprocess_env(), timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return len(text.encode()), None
    return len(text.encode()), float(re.search(r"build: done: .* in ([0-9.]+)s;",
                                               done.stderr).group(1))


def main(argv=None) -> int:
    """Build each size and print one Markdown row per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,4000,16000")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per build")
    args = parser.parse_args(argv)
    print("| n | module bytes | build seconds |\n| --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        for n in (int(size) for size in args.sizes.split(",")):
            size, seconds = build_seconds(n, work, args.timeout)
            shown = f"{seconds:.1f}" if seconds is not None else f"over {args.timeout:g}"
            print(f"| {n} | {size:,} | {shown} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
