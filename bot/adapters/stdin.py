"""Reading a player's lines in the console without blocking the event loop, so that a stop signal ends the wait at
once (:func:`stdin_lines`)."""

from __future__ import annotations

import asyncio
import codecs
import io
import os
import select
import sys
from collections.abc import AsyncIterator, Callable
from typing import TextIO


async def stdin_lines(stream: TextIO = sys.stdin, prompt: Callable[[], None] | None = None) -> AsyncIterator[str]:
    """Lines of ``stream`` without blocking the event loop; ends at end of input. ``prompt`` is called each time it
    waits for the player (a terminal's ``>``).

    A terminal or a pipe is watched by the event loop itself (no thread), so a stop signal ends the wait at once:
    a thread blocked in ``readline`` would keep the process alive until the next Enter. Other streams (a regular
    file, a test's ``StringIO``) are read in a thread, where a read never waits for a person."""
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    try:
        fd = stream.fileno()
        loop.add_reader(fd, ready.set)
    except (AttributeError, OSError, ValueError, NotImplementedError, io.UnsupportedOperation):
        while True:
            line = await asyncio.to_thread(stream.readline)
            if not line:
                return
            yield line
    decoder = codecs.getincrementaldecoder(getattr(stream, "encoding", None) or "utf-8")(errors="replace")
    pending = ""
    try:
        while True:
            while "\n" in pending:
                line, pending = pending.split("\n", 1)
                yield line + "\n"
            if prompt is not None:
                prompt()
            chunk = await _read_when_ready(fd, ready)
            pending += decoder.decode(chunk, final=not chunk)
            if not chunk:
                if pending:
                    yield pending
                return
    finally:
        loop.remove_reader(fd)


async def _read_when_ready(fd: int, ready: asyncio.Event) -> bytes:
    """The next bytes of ``fd`` (``b""`` at end of input), waiting for them on the event loop, never in ``read``.

    ``ready`` is set by the loop's reader callback, which can run once more after a read already took the data (the
    loop queues the callback and the reading task's wake-up in one batch): a read trusting it would block the whole
    process, stop signals included, until the next Enter. So the descriptor is asked first, without waiting."""
    while True:
        await ready.wait()
        ready.clear()
        if not select.select([fd], [], [], 0)[0]:
            continue  # a stale wake-up: the data it announced was read already
        try:
            return os.read(fd, 65536)
        except (BlockingIOError, InterruptedError):
            continue


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
