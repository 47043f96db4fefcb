"""Free loopback ports, for the servers citeline (or its tests) start.

Its own module, below both the client and the resident server, so that neither has to import the
other for it (they used to, both ways: an import circle).
"""

from __future__ import annotations

import socket


def free_port() -> int:
    """A free TCP port on the loopback interface (for servers citeline or its tests start)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
