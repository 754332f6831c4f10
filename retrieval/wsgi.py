"""The WSGI entry point: `waitress-serve retrieval.wsgi:app`, and `create_app` for any WSGI stack.

The application itself is built in retrieval/http/; this module is the name the design card and
deployments use, and the one place that resolves `app` for a WSGI server's command line.
"""

import sys

from .core.snapshot import SnapshotError
from .http.auth import KeysFileError
from .http.factory import create_app as create_app
from .serve.waitress_serve import check_addresses
from .settings import SettingsError


def __getattr__(name):
    # `app` is created on first access (waitress-serve resolves it before serving), so importing
    # this module for create_app() does not load a snapshot as a side effect.
    if name == "app":
        try:
            check_addresses()
            app = create_app()
        except (SnapshotError, SettingsError, KeysFileError) as exc:
            # A start-up refusal under `waitress-serve retrieval.wsgi:app`: Waitress answers an
            # exception while resolving the app with its whole --help text and a traceback.
            # SystemExit is not one it catches, so one line and exit status 2 are all there is.
            print(f"retrieval: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
