"""The tap batcher: group commit with a bounded queue."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from bot.app.batcher import TapBatcher
from bot.app.errors import Busy


@dataclass(frozen=True)
class Tap:
    game_id: int
    name: str


async def test_past_the_bound_a_tap_is_answered_busy_at_once_and_the_others_all_apply() -> None:
    release = asyncio.Event()
    batches: list[list[str]] = []

    async def apply(batch: Sequence[Tap]) -> list[str | Exception]:
        await release.wait()  # the first batch is slow to commit: taps pile up behind it
        batches.append([tap.name for tap in batch])
        return [f"ok {tap.name}" for tap in batch]

    batcher: TapBatcher[Tap, str] = TapBatcher(apply, max_queued=3)
    first = asyncio.ensure_future(batcher.submit(Tap(1, "a")))
    await asyncio.sleep(0)  # "a" is being committed
    waiting = [asyncio.ensure_future(batcher.submit(Tap(n, name))) for n, name in ((2, "b"), (3, "c"), (2, "d"))]
    await asyncio.sleep(0)
    with pytest.raises(Busy):
        await batcher.submit(Tap(4, "e"))  # a fourth waiting tap: refused at once, nothing done
    release.set()
    assert await first == "ok a"
    assert [await task for task in waiting] == ["ok b", "ok c", "ok d"]
    # one tap a game per batch: "d" (game 2 again) waits for the batch after "b" and "c"
    assert batches == [["a"], ["b", "c"], ["d"]]
    assert "e" not in {name for batch in batches for name in batch}


async def test_a_batch_that_fails_is_retried_one_tap_at_a_time_so_one_bad_tap_fails_alone() -> None:
    async def apply(batch: Sequence[Tap]) -> list[str | Exception]:
        if len(batch) > 1:
            raise RuntimeError("the batch met a row changed under it")
        if batch[0].name == "bad":
            raise ValueError("bad tap")
        return [f"ok {batch[0].name}"]

    batcher: TapBatcher[Tap, str] = TapBatcher(apply)
    results = await asyncio.gather(*(batcher.submit(Tap(n, name)) for n, name in ((1, "a"), (2, "bad"), (3, "c"))),
                                   return_exceptions=True)
    assert results[0] == "ok a" and isinstance(results[1], ValueError) and results[2] == "ok c"
