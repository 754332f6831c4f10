"""Run tiers of the test suite: `python -m tests.tiers fast` runs the unit and in-process tiers.

`python -m unittest discover` (CI and README) still runs every test; this only selects modules.
Tier names may be combined and followed by unittest's own options:
`python -m tests.tiers unit server -v`, `python -m tests.tiers fast -k wsgi`.
"""

import os
import sys
import unittest

# Each test module sits in the tier of the heaviest thing any of its tests does.
TIERS = {
    # Functions and objects alone: no app, no socket, no child process.
    "unit": ("test_build_parse", "test_core", "test_docstrings", "test_formats", "test_layout",
             "test_metrics", "test_packaging", "test_quality_bench", "test_settings",
             "test_snapshot", "test_strict_json"),
    # The WSGI app called in this process (through wsgiref.validate), or Waitress on a thread.
    "inprocess": ("test_collections", "test_contract", "test_deadline", "test_fields",
                  "test_golden", "test_html_ingest", "test_io_loop", "test_memo", "test_openapi",
                  "test_operations", "test_passages", "test_query_bounds", "test_search",
                  "test_service_hardening", "test_sphinx_build", "test_wsgi"),
    # A real server or the command line in a child process, over real sockets.
    "server": ("test_boundary", "test_cli", "test_client", "test_client_bounds", "test_corpus",
               "test_cors", "test_crawl", "test_docs", "test_docs_integrations", "test_driver",
               "test_faults", "test_fuzz", "test_git_source", "test_hostile_clients",
               "test_hostile_trees", "test_index_fetch", "test_integrations", "test_keys",
               "test_markdown_sections",
               "test_mcp", "test_mcp_hardening", "test_minilm", "test_package_sources",
               "test_semantic", "test_served_snapshot", "test_server", "test_slow_readers",
               "test_startup_errors", "test_tampered_text", "test_versions"),
    # Chromium driving the Inspector; replicas behind haproxy.
    "browser": ("test_cluster", "test_inspector"),
}
GROUPS = {"fast": ("unit", "inprocess"), "all": tuple(TIERS)}
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def undeclared() -> list:
    """Return what the table and the test files disagree on, one line each."""
    on_disk = {name[:-3] for name in os.listdir(TESTS_DIR)
               if name.startswith("test") and name.endswith(".py")}
    declared = [module for modules in TIERS.values() for module in modules]
    problems = [f"tests/{module}.py is in no tier" for module in sorted(on_disk - set(declared))]
    problems += [f"{module} is in TIERS but has no file"
                 for module in sorted(set(declared) - on_disk)]
    problems += [f"{module} is in two tiers" for module in sorted(set(declared))
                 if declared.count(module) > 1]
    return problems


def main(argv) -> None:
    """Run the tiers named first in argv, passing the rest of argv to unittest."""
    chosen = []
    while argv and argv[0] in {*TIERS, *GROUPS}:
        chosen.extend(GROUPS.get(argv[0], (argv[0],)))
        argv = argv[1:]
    if not chosen:
        sys.exit(f"usage: python -m tests.tiers TIER... [unittest options]; "
                 f"tiers: {', '.join([*TIERS, *GROUPS])}")
    problems = undeclared()
    if problems:
        sys.exit("tests/tiers.py: " + "; ".join(problems))
    modules = [f"tests.{module}" for tier in dict.fromkeys(chosen) for module in TIERS[tier]]
    unittest.main(module=None, argv=["python -m tests.tiers", *argv, *modules])


if __name__ == "__main__":
    main(sys.argv[1:])
