"""The start-up check every server of this package makes: no open port without a keys file.

Read by `retrieval serve` and by the MCP server alike, so it imports no server of its own.
"""

import os
import socket

from ..hosts import is_loopback
from ..settings import SettingsError


def refuse_open_exposure(settings, inherited_fd=None):
    """Refuse to listen beyond loopback without a keys file, unless explicitly allowed."""
    if settings.keys_file or settings.allow_unauthenticated:
        return
    if inherited_fd is not None:
        with socket.socket(fileno=os.dup(inherited_fd)) as listening:
            address = listening.getsockname()
        host = address[0] if isinstance(address, tuple) else "localhost"  # AF_UNIX: local
    else:
        host = settings.host
    if not is_loopback(host):
        raise SettingsError(
            f"refusing to serve on {host} without a keys file: anyone who reaches the port "
            "could read every collection; set keys_file, or pass --allow-unauthenticated")
