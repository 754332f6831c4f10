"""`python -m retrieval` and the `retrieval` command: the command line lives in retrieval/cli/."""

import sys

from .cli.main import main as main

if __name__ == "__main__":
    sys.exit(main())
