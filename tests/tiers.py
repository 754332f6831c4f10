"""Run tiers of the test suite: `python -m tests.tiers fast` runs the unit and in-process tiers.

`python -m unittest discover` (CI and README) still runs every test; this only selects modules.
Tier names may be combined and followed by unittest's own options:
`python -m tests.tiers unit server -v`, `python -m tests.tiers fast -k wsgi`.

Each `tests/test_*.py` declares its own tier at the top, beside its tests, as `TIER = "unit"`:
the tier of the heaviest thing any of its tests does. The runner reads that line with `ast`, so
selecting tiers imports no test module, and it refuses to run while a module declares no tier or
one not in TIERS.
"""

import ast
import os
import sys
import unittest

# The tiers a test module may declare, lightest first, each with what its tests need.
TIERS = {
    "unit": "Functions and objects alone: no app, no socket, no child process",
    "inprocess": "The WSGI app called in this process (through wsgiref.validate), "
                 "or Waitress on a thread",
    "server": "A real server or the command line in a child process, over real sockets",
    "browser": "Chromium driving the Inspector; replicas behind haproxy",
}
GROUPS = {"fast": ("unit", "inprocess"), "all": tuple(TIERS)}
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def module_names(tests_dir: str) -> list:
    """Return the names of the test modules in tests_dir (those unittest discover finds), sorted."""
    return sorted(name[:-3] for name in os.listdir(tests_dir)
                  if name.startswith("test") and name.endswith(".py"))


def declared_tier(path: str) -> tuple:
    """Return (tier, None) from the file's top-level `TIER = "<tier>"`, or (None, why not)."""
    try:
        with open(path, encoding="utf-8") as source:
            tree = ast.parse(source.read(), filename=path)
    except (OSError, SyntaxError, ValueError) as error:
        return None, f"cannot be read ({error.__class__.__name__}: {error})"
    values = [node.value for node in tree.body if isinstance(node, ast.Assign)
              and any(isinstance(target, ast.Name) and target.id == "TIER"
                      for target in node.targets)]
    if not values:
        return None, 'declares no tier (a top-level TIER = "<tier>")'
    if len(values) > 1:
        return None, "assigns TIER more than once"
    value = values[0]
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return None, "assigns TIER something other than a string literal"
    if value.value not in TIERS:
        return None, f"declares TIER {value.value!r}, not one of {', '.join(TIERS)}"
    return value.value, None


def read_tiers(tests_dir: str = TESTS_DIR) -> tuple:
    """Return ({tier: [module, ...]}, [problem, ...]) for the test modules in tests_dir."""
    modules = {tier: [] for tier in TIERS}
    problems = []
    for module in module_names(tests_dir):
        tier, problem = declared_tier(os.path.join(tests_dir, f"{module}.py"))
        if problem:
            problems.append(f"tests/{module}.py {problem}")
        else:
            modules[tier].append(module)
    return modules, problems


def undeclared(tests_dir: str = TESTS_DIR) -> list:
    """Return, one line each, the test modules in tests_dir without a valid TIER declaration."""
    return read_tiers(tests_dir)[1]


def main(argv) -> None:
    """Run the tiers named first in argv, passing the rest of argv to unittest."""
    chosen = []
    while argv and argv[0] in {*TIERS, *GROUPS}:
        chosen.extend(GROUPS.get(argv[0], (argv[0],)))
        argv = argv[1:]
    if not chosen:
        sys.exit(f"usage: python -m tests.tiers TIER... [unittest options]; "
                 f"tiers: {', '.join([*TIERS, *GROUPS])}")
    by_tier, problems = read_tiers(TESTS_DIR)
    if problems:
        sys.exit("tests: " + "; ".join(problems))
    modules = [f"tests.{module}" for tier in dict.fromkeys(chosen) for module in by_tier[tier]]
    unittest.main(module=None, argv=["python -m tests.tiers", *argv, *modules])


if __name__ == "__main__":
    main(sys.argv[1:])
