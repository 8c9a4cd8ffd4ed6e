"""Coming back by itself: what the bot needs at start (a chat platform, the database server) and cannot reach yet
(the network is not up at boot, the server is down) is tried again with growing pauses, logged once, instead of
ending the process; anything else (a refused token) still ends it at once. See :mod:`bot.runner`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.config import Unreachable

log = logging.getLogger("tripeaks")

#: The pauses (seconds) between tries to reach a platform or the database that cannot be reached at start (the
#: network is not up yet at boot, the server is down): growing, the last one repeated for as long as it takes.
RETRY_PAUSES = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
T = TypeVar("T")


async def when_reachable(name: str, attempt: Callable[[], Awaitable[T]], stop: asyncio.Event) -> T | None:
    """``attempt()``, tried again after each of :data:`RETRY_PAUSES` while what it needs cannot be reached
    (:class:`Unreachable`): one warning when it first fails (each further try is a debug line), one line once it
    answers; None when a stop comes during a pause. Any other error (a refused token) ends it at once."""
    failed = 0
    while True:
        try:
            return_value = await attempt()
        except Unreachable as error:
            if not failed:
                log.warning("%s: trying again, with growing pauses up to %g s, until it answers", error,
                            RETRY_PAUSES[-1])
            pause = RETRY_PAUSES[min(failed, len(RETRY_PAUSES) - 1)]
            failed += 1
            log.debug("%s: try %d failed, the next in %g s", name, failed, pause)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
                return None
            continue
        if failed:
            log.info("%s reached at try %d", name, failed + 1)
        return return_value
