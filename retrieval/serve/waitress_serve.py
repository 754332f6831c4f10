"""What `waitress-serve retrieval.wsgi:app` gets beyond the app: a busy address said in one line.

waitress-serve resolves the app first and binds afterwards, so a port in use ends in Waitress's
traceback after the snapshot has loaded. The app, resolved first, reads the same arguments the
same way (Waitress's own parser) and tries each address before anything else is done.
"""

import os
import socket
import sys

from ..settings import SettingsError

RUNNER = "waitress-serve"


def check_addresses(argv=None):
    """Under waitress-serve, raise SettingsError if an address it will listen on is taken."""
    argv = sys.argv if argv is None else argv
    if not argv or os.path.basename(argv[0]) != RUNNER:
        return
    from waitress.adjustments import Adjustments

    try:
        options, _ = Adjustments.parse_args(argv[1:])
        options = {k: v for k, v in options.items() if k not in ("call", "help")}
        addresses = Adjustments(**options).listen
    except Exception:  # Waitress itself will say what is wrong with its own arguments
        return
    for family, kind, protocol, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            # As Waitress binds: with SO_REUSEADDR, so only a socket listening there refuses.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                shown = f"[{address[0]}]" if family == socket.AF_INET6 else address[0]
                raise SettingsError(f"{RUNNER} cannot listen on {shown}:{address[1]}: "
                                    f"{exc.strerror or exc}") from None
