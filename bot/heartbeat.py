"""The bot's heartbeat, for a health check (Docker's, a service manager's, a monitoring script's).

While the bot runs with ``HEARTBEAT_FILE`` set, it rewrites that file every :data:`HEARTBEAT_INTERVAL` seconds with
the time and whether each part is up: the database answers a statement, Telegram's updater runs (polling or the
webhook), Discord's gateway is connected, the table takes requests. The table's ``GET /readyz`` answers the same. ``tripeaks health`` reads it: healthy when the last beat is recent and
every part was up. A stuck event loop writes no beat, so the file goes stale; a bot that stops removes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

#: Seconds between two beats.
HEARTBEAT_INTERVAL = 10.0
#: A beat older than this (seconds) means the bot is not up: three beats missed and then some.
HEARTBEAT_STALE = 45.0
#: What the bot reports of itself: each part's name and whether it is up.
Parts = Callable[[], Awaitable[dict[str, bool]]]
#: Each platform's name and whether it is connected now.
PlatformUp = Callable[[], tuple[str, bool]]


class Served(Protocol):
    """The table in the browser, as the heartbeat asks it."""

    @property
    def serving(self) -> bool: ...

log = logging.getLogger(__name__)


def write_beat(path: Path, parts: dict[str, bool], now: float | None = None) -> None:
    """Write one beat, atomically (a reader never sees half a file)."""
    partial = path.with_name(f"{path.name}.partial")
    partial.write_text(json.dumps({"time": time.time() if now is None else now, "pid": os.getpid(), "up": parts}))
    os.replace(partial, path)


async def beat_until_cancelled(path: Path, parts: Parts, interval: float = HEARTBEAT_INTERVAL,
                               again: asyncio.Event | None = None) -> None:
    """Beat every ``interval`` seconds, and at once when ``again`` is set (a part came up), until cancelled; then
    remove the file (the bot is no longer up)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    again = again or asyncio.Event()
    try:
        while True:
            again.clear()
            try:
                write_beat(path, await parts())
            except OSError as error:  # a full disk must not stop the bot: the check will say it is not up
                log.warning("cannot write the heartbeat %s: %s", path, error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(again.wait(), interval)
    finally:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def readiness(ping: Callable[[], Awaitable[None]], platforms: Sequence[PlatformUp],
              table: Callable[[], Served | None] = lambda: None) -> Parts:
    """What the bot says of each part: whether the database answers ``ping``, each of ``platforms`` is connected,
    and the table (when it is served) takes requests: the heartbeat's and ``GET /readyz``'s answer."""
    from bot.store.engine import DatabaseError

    async def parts() -> dict[str, bool]:
        try:
            await asyncio.wait_for(ping(), timeout=5)
            found = {"database": True}
        except (DatabaseError, OSError, TimeoutError):
            found = {"database": False}
        found |= dict(up() for up in platforms)
        if (served := table()) is not None:
            found["table"] = served.serving
        return found

    return parts


def start_heartbeat(path: Path, parts: Parts, again: asyncio.Event | None = None) -> asyncio.Task[None]:
    """Beat while the bot runs, with what ``parts`` says (:func:`readiness`), and at once when ``again`` is set."""
    return asyncio.create_task(beat_until_cancelled(path, parts, again=again), name="heartbeat")


@dataclass(frozen=True)
class Health:
    healthy: bool
    #: One line for the operator: what is up, or what is not.
    message: str


def check_health(path: Path, now: float | None = None, stale: float = HEARTBEAT_STALE) -> Health:
    """Whether the bot writing ``path`` is up: its last beat at most ``stale`` seconds old, every part up."""
    try:
        beat = json.loads(path.read_text())
        age = (time.time() if now is None else now) - float(beat["time"])
        parts = {str(name): bool(up) for name, up in beat["up"].items()}
    except FileNotFoundError:
        return Health(False, f"no heartbeat at {path}: the bot is not running")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        return Health(False, f"unreadable heartbeat at {path}: {error}")
    if age > stale:
        return Health(False, f"the last heartbeat is {age:.0f} s old: the bot is stuck or stopped")
    down = [name for name, up in parts.items() if not up]
    if down:
        return Health(False, f"not up: {', '.join(down)}")
    return Health(True, f"up: {', '.join(parts)} (last heartbeat {max(age, 0):.0f} s ago)")


def check_ready(url: str, timeout: float = 5.0) -> Health:
    """Whether the bot serving ``url`` (its ``/readyz``) is up: it answers, and every part is."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 (the operator's own address)
            parts = json.loads(answer.read())
    except urllib.error.HTTPError as error:  # 503: a part is down, and the body says which
        try:
            parts = json.loads(error.read())
        except ValueError:
            return Health(False, f"{url} answered {error.code}")
    except (OSError, ValueError) as error:
        return Health(False, f"{url} does not answer ({error}): the bot is not running")
    down = [name for name, up in parts.items() if not up]
    if down:
        return Health(False, f"not up: {', '.join(down)}")
    return Health(True, f"up: {', '.join(parts)}")
