"""The test suite: it needs the test extra, and says so in one line if it is missing."""

import os
import sys

try:
    import requests  # noqa: F401  (the client tests and the real-server tests talk through it)
    import waitress  # noqa: F401  (every real-server test serves with it)
except ImportError as missing:
    # One line, then out: unittest would turn an exception here into a traceback (or, once per
    # module, dozens of failures), and it catches SystemExit.
    print(f"the tests need {missing.name}: run pip install '.[test]' from the checkout, "
          "then run them again", file=sys.stderr, flush=True)
    os._exit(2)
