"""The tap batcher: group commit of taps.

Each tap joins a queue, and one task takes every tap queued while the previous batch was committing into one
transaction (applied by the function it is given), then answers each tap of the batch. A batch holds at most one
tap a game (a second one waits for the next batch, so it is checked against the first one's committed state) and at
most :data:`MAX_BATCH` taps; a batch that fails is retried one transaction a tap, so one bad tap fails alone. At a
light load a batch is a single tap; under load one commit (one ``fsync`` on SQLite) serves many taps.

The queue is bounded: past :data:`MAX_QUEUED` waiting taps a new one is refused at once with :class:`Busy`, rather
than waiting longer than any player would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, Protocol, TypeVar

from bot.app.errors import BotError, Busy

#: At most this many taps are committed in one transaction.
MAX_BATCH = 64
#: At most this many taps wait for their batch; more are answered "busy".
MAX_QUEUED = 2048


class Keyed(Protocol):
    @property
    def game_id(self) -> int: ...


K = TypeVar("K", bound=Keyed)
R = TypeVar("R")

class TapBatcher(Generic[K, R]):
    """Queues taps and applies them a batch to a transaction with ``apply``, which returns one result (or the
    exception to raise) per tap, in order."""

    def __init__(self, apply: Callable[[Sequence[K]], Awaitable[list[R | Exception]]], *,
                 max_queued: int = MAX_QUEUED) -> None:
        self._apply = apply
        self._max_queued = max_queued
        self._queue: list[tuple[K, asyncio.Future[R]]] = []
        self._committer: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        return len(self._queue)

    async def submit(self, tap: K) -> R:
        """Queue ``tap`` and wait for its result, which comes only after its batch commits."""
        if len(self._queue) >= self._max_queued:
            raise Busy()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        self._queue.append((tap, future))
        if self._committer is None or self._committer.done():
            self._committer = loop.create_task(self._commit())
        return await asyncio.shield(future)

    async def drain(self) -> None:
        """Wait until every queued tap is committed and answered."""
        if self._committer is not None:
            await asyncio.gather(self._committer, return_exceptions=True)

    async def _commit(self) -> None:
        while self._queue:
            batch: list[tuple[K, asyncio.Future[R]]] = []
            later: list[tuple[K, asyncio.Future[R]]] = []
            seen: set[int] = set()
            for entry in self._queue:
                if len(batch) < MAX_BATCH and entry[0].game_id not in seen:
                    seen.add(entry[0].game_id)
                    batch.append(entry)
                else:
                    later.append(entry)
            self._queue = later
            try:
                results = await self._apply_or_one_by_one([tap for tap, _ in batch])
            except BaseException as error:  # cancelled (the service is closing): nothing waits forever
                for _, future in (*batch, *self._queue):
                    if not future.done():
                        future.set_exception(error if isinstance(error, Exception) else BotError("closed"))
                self._queue = []
                raise
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    async def _apply_or_one_by_one(self, batch: list[K]) -> list[R | Exception]:
        try:
            return await self._apply(batch)
        except Exception as error:
            if len(batch) == 1:
                return [error]
        # one transaction each, so that a tap that fails the batch fails alone
        results: list[R | Exception] = []
        for tap in batch:
            try:
                results += await self._apply([tap])
            except Exception as error:
                results.append(error)
        return results
