"""The table's door to the network: at most so many connections open at once, so that no crowd of connections (one
account's or anyone's) takes the process's last file descriptors from its database, its chats and its solver
workers; past the cap a new connection is answered ``503`` at once and closed, logged once until connections are
taken again, not once per attempt. It also tells the server the moment a client goes away (aiohttp no longer
cancels a handler then): an event stream ends with its connection (:meth:`Gate.when_lost`)."""

from __future__ import annotations

import asyncio
import logging
import math
import resource
import time
from collections.abc import Callable
from typing import Any

from bot.metrics import CONNECTIONS_OPEN, CONNECTIONS_REFUSED

log = logging.getLogger("tripeaks.web")

#: What a connection past the cap is told before it is closed.
_REFUSAL_TEXT = b"The table has too many visitors: try again in a moment.\n"
REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 10\r\n"
           b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_REFUSAL_TEXT), _REFUSAL_TEXT))
#: Descriptors left for everything but the table's connections (database pool, chats, solver workers, files).
RESERVED_FILES = 256
#: The most connections the table takes by default, however many files the process may open.
MOST_CONNECTIONS = 10_000


def raise_open_files_limit() -> int:
    """Let the process open as many files as the system allows it (the soft limit, often 1,024, is a shell's
    default, not a server's budget; systemd's unit sets LimitNOFILE); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max(soft, MOST_CONNECTIONS * 2) if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as refused:
            log.info("could not raise the open files limit from %d: %s", soft, refused)
    return open_files_limit()


def open_files_limit() -> int:
    """How many files this process may open (its soft limit)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return MOST_CONNECTIONS * 2 if soft == resource.RLIM_INFINITY else soft


def connections_cap(files: int) -> int:
    """The table's connections for a process that may open ``files`` files: what is left once the rest of the bot
    has its share, at least a few.

    >>> connections_cap(1024), connections_cap(65536), connections_cap(300)
    (512, 10000, 44)
    """
    return max(32, min(MOST_CONNECTIONS, files - RESERVED_FILES, files // 2))


class Seldom:
    """A kind of line logged at most once every ``every`` seconds, saying how many were left out meanwhile: a flood
    of refused requests is a line a minute, not a line a request."""

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._next = -math.inf
        self._left_out = 0

    def info(self, message: str, *args: object) -> None:
        now = self.clock()
        if now < self._next:
            self._left_out += 1
            return
        more = f" (and {self._left_out} more like it since)" if self._left_out else ""
        log.info(message + more, *args)
        self._next, self._left_out = now + self.every, 0


class Gate:
    """Connections made by ``factory`` (aiohttp's server), at most ``cap`` open at once."""

    def __init__(self, factory: Callable[[], asyncio.Protocol], cap: int) -> None:
        self.factory = factory
        self.cap = cap
        #: connections open now, and those refused since the cap was last reached
        self.open = 0
        self.refused = 0
        self._lost: dict[asyncio.BaseTransport, list[Callable[[], None]]] = {}

    def __call__(self) -> asyncio.BaseProtocol:
        if self.open >= self.cap:
            if self.refused == 0:
                log.warning("the table has %d connections open, its most: refusing new ones until some close",
                            self.open)
            self.refused += 1
            CONNECTIONS_REFUSED.inc()
            return _Refused()
        self.open += 1
        CONNECTIONS_OPEN.inc()
        return _Counted(self, self.factory())

    def when_lost(self, transport: asyncio.BaseTransport | None, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the connection of ``transport`` is lost (at once if it already is)."""
        if transport is None or transport.is_closing() or transport not in self._lost:
            callback()
        else:
            self._lost[transport].append(callback)

    def _made(self, transport: asyncio.BaseTransport) -> None:
        self._lost[transport] = []

    def _ended(self, transport: asyncio.BaseTransport | None) -> None:
        self.open -= 1
        CONNECTIONS_OPEN.dec()
        for callback in self._lost.pop(transport, []) if transport is not None else []:
            callback()
        if self.refused and self.open < self.cap:
            log.info("the table takes connections again (%d refused meanwhile)", self.refused)
            self.refused = 0


class _Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, counted while it is open."""

    def __init__(self, gate: Gate, inner: asyncio.Protocol) -> None:
        self.gate = gate
        self.inner = inner
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.gate._made(transport)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            self.inner.connection_lost(exc)
        finally:
            self.gate._ended(self.transport)


class _Refused(asyncio.Protocol):
    """A connection past the cap: told so and closed, nothing read."""

    def connection_made(self, transport: Any) -> None:
        transport.write(REFUSAL)
        transport.close()
