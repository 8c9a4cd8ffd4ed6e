"""A player's commands in the order they came (bot/app/turns.py): the flow handles each tap as a task of its own, so
without turns a second quick tap could overtake the first at its first wait (A♦ refused because K♣, tapped just
before it, was not played yet); other players, and the player's commands that are no moves, never wait."""

from __future__ import annotations

import asyncio

from bot.app.commands import AskHint, Move
from bot.app.model import PlayerKey
from bot.app.turns import Turns
from core.game import DRAW, Tap

ANN, BOB = PlayerKey("telegram", "1"), PlayerKey("telegram", "2")
TAP, HINT = Move(1, 0, Tap(21)), AskHint(1, 0)


async def test_a_players_second_tap_waits_for_the_first_and_no_one_else_does() -> None:
    turns, done, first_waits = Turns(), [], asyncio.Event()
    go_on = asyncio.Event()

    async def handle(player: PlayerKey, command: object, name: str, wait: bool = False) -> None:
        async with turns.of(player, command):  # type: ignore[arg-type]
            if wait:  # the first tap waits (the database), long enough for the others to try to overtake it
                first_waits.set()
                await go_on.wait()
            done.append(name)

    first = asyncio.create_task(handle(ANN, TAP, "ann's first", wait=True))
    await first_waits.wait()
    second = asyncio.create_task(handle(ANN, Move(1, 0, DRAW), "ann's second"))
    others = [asyncio.create_task(handle(BOB, TAP, "bob's")), asyncio.create_task(handle(ANN, HINT, "ann's hint"))]
    await asyncio.gather(*others)
    assert done == ["bob's", "ann's hint"] and not second.done()  # Ann's second tap waits for her first
    go_on.set()
    await asyncio.gather(first, second)
    assert done == ["bob's", "ann's hint", "ann's first", "ann's second"]
    assert len(turns) == 0  # nothing kept once nobody waits


async def test_taps_come_out_in_the_order_they_went_in() -> None:
    turns, done = Turns(), []

    async def handle(index: int) -> None:
        async with turns.of(ANN, TAP):
            for _ in range(20 - index):  # the earlier the tap, the longer it waits inside: without turns, the
                await asyncio.sleep(0)  # later ones would overtake it
            done.append(index)

    await asyncio.gather(*(handle(index) for index in range(20)))
    assert done == list(range(20))
