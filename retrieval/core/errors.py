"""The one base of every mistake a user can make in what they give the package.

A UserError is a flag, a file, a source or a snapshot the user named that cannot be used as
given: the command line prints its message as one line and exits 2 (`cli/main.py`). Anything
else raised is a bug, and keeps its traceback.
"""


class UserError(ValueError):
    """A mistake in what the user gave (a flag, a file, a source): said in one line, exit 2."""
