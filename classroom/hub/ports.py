"""A port for each student's server that no other server of this hub holds.

JupyterHub's LocalProcessSpawner asks the system for a free port (``random_port``: bind to port 0, read
the number, close) and starts the server on it moments later. At the start of class twenty servers start
at once, and two of them can be handed the same number before either has bound it (jupyterhub#3005).
The second server cannot bind and stops, but the hub still finds "a server" answering on that port, the
first student's, and sends the second student's requests there: seen in CI, where a student's
``/user/grd-m07/`` answered with ``grd-right3``'s "404: Not Found" page.

:class:`PortBook` hands out ports from a range below the system's ephemeral ports (where the system
picks the local port of every outgoing connection and ``random_port``'s numbers), each one free when it
is handed out and kept from every other server until its own has stopped. All spawns happen in the
hub's one process and event loop, so the book needs no lock.
"""

from __future__ import annotations

import random
import socket

# Below Linux's ephemeral range (32768–60999 by default) and above the well-known ports and this hub's own
# (8000–8002, 8081 by default): 22,000 numbers for at most a few hundred servers.
LOW, HIGH = 10_000, 32_000


def bindable(port: int, ip: str = "127.0.0.1") -> bool:
    """Whether a server could bind ``port`` on ``ip`` now (nothing listening on it or holding it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((ip, port))
        except OSError:
            return False
    return True


class PortBook:
    """Ports handed to the hub's servers, by owner (a server's name), until the owner gives its back."""

    def __init__(self, low: int = LOW, high: int = HIGH, ip: str = "127.0.0.1", chooser: random.Random | None = None):
        if not 0 < low < high <= 65_535:
            raise ValueError(f"a port range is low < high within 1–65535: got {low}–{high}")
        self.low, self.high, self.ip = low, high, ip
        self._chooser = chooser or random.Random()
        self.held: dict[str, int] = {}

    def take(self, owner: str) -> int:
        """A port for ``owner``'s server: free now and held by no other owner (its own old one is given back
        first). Raises RuntimeError if a few hundred tries find none."""
        self.give_back(owner)
        taken = set(self.held.values())
        for _ in range(400):
            port = self._chooser.randrange(self.low, self.high)
            if port not in taken and bindable(port, self.ip):
                self.held[owner] = port
                return port
        raise RuntimeError(f"no free port for a student's server between {self.low} and {self.high}")

    def give_back(self, owner: str) -> None:
        """``owner``'s server has stopped: its port may be handed out again."""
        self.held.pop(owner, None)
