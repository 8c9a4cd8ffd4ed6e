"""Watching a live round at the table (issue 51): read only, every player's table as that player sees it, so a
watcher never sees a card no player could: positions that differ only in the face-down and undrawn cards give the
same bytes. A player of the round still playing may not watch (the others' tables show cards of the same deal); a
player who finished, or anyone else signed in, may."""

from __future__ import annotations

import datetime as dt
import json
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import update

from bot.adapters.web.auth import Signer, sign_init_data
from bot.adapters.web.screens import round_event, watch_json
from bot.adapters.web.server import TableServer
from bot.app.assembly import App
from bot.app.commands import Actor, StartRound, Surface
from bot.app.effects import PostRound, RedrawRound, RoundAt
from bot.app.model import BoardRef, PlayerKey, RoundEntry, RoundSnapshot
from bot.store.schema import rounds
from core.deal import Deal, GameCode
from core.game import Game
from tests.test_picture import hidden_shuffled, positions
from tests.test_web_api import Clock
from tests.web_harness import TOKEN, init_data_header

AT = dt.datetime(2026, 12, 7, 22, tzinfo=dt.UTC)


def watched(games: list[Game], *, ended: bool = False) -> bytes:
    """The bytes a watcher gets for a round whose players stand at ``games`` (the JSON, and the stream's events)."""
    entries = tuple(RoundEntry(PlayerKey("telegram", str(n)), f"P{n}", n, 28 - game.cards_left,
                               game.peaks_cleared(), game.score, game.moves, 0, False, game.is_over, None, game)
                    for n, game in enumerate(games))
    round = RoundSnapshot(1, "telegram", "-1", None, GameCode.parse("TP1-E-AAAAAAB"), False, "Host", "en", 5,
                          AT + dt.timedelta(minutes=5), ended, AT, entries)
    # what the page receives through the round's event stream too (GET /api/round/events), watching or beside
    return b"".join((json.dumps(watch_json(round, "en"), sort_keys=True).encode(), round_event(round, "en"),
                     round_event(round, "en", tables=False, viewer=PlayerKey("telegram", "0"))))


def test_a_watchers_view_reveals_no_hidden_card() -> None:
    """Every position of many games, watched with two other players: the hidden cards dealt differently give the
    same bytes."""
    rng = random.Random(51)
    others = [Game.from_code("TP1-E-AAAAAAB"), Game.from_code("TP1-C-AAAAAAD")]
    checked = 0
    for game, _ in positions(4):
        custom = Game.replay(Deal.from_cards([*game.deal.tableau, game.deal.waste, *game.deal.stock]), game.rules,
                             game.actions())
        shown = watched([custom, *others])
        assert watched([hidden_shuffled(custom, rng), *others]) == shown
        checked += 1
    assert checked > 100


@pytest.fixture
async def client(service: App) -> AsyncIterator[TestClient[Any, Any]]:
    server = TableServer(service.flow, Signer(b"s" * 32, Clock()), telegram_token=TOKEN)
    async with TestClient(TestServer(server.application())) as test_client:
        yield test_client


async def test_a_round_is_watched_by_a_finished_player_or_a_member_not_by_one_still_playing(
        client: TestClient[Any, Any], service: App) -> None:
    host = Actor(PlayerKey("telegram", "9"), "Host", "-100", "-100")
    (posted,) = await service.flow.handle(host, StartRound(code="TP1-E-AAAAAAB"), Surface(platform="telegram"))
    assert isinstance(posted, PostRound)
    round_id = posted.round.round_id
    ann = init_data_header(7)
    await client.get("/api/table", headers=ann)
    joined = await client.post("/api/act", json={"payload": f"tp:b:o:{round_id}"}, headers=ann)
    assert joined.status == 200 and (await joined.json())["board"]["header"].count("live round: no undo") == 1

    refused = await client.get(f"/api/round?id={round_id}", headers=ann)
    assert refused.status == 403  # still playing: no look at the others' tables
    member = await client.get(f"/api/round?id={round_id}", headers=init_data_header(8))
    assert member.status == 200
    seen = await member.json()
    assert [player["name"] for player in seen["players"]] == ["Ann"]
    assert seen["players"][0]["table"]["stock"] == 23 and "payload" not in json.dumps(seen)  # read only
    assert (await client.get("/api/round?id=999999", headers=init_data_header(8))).status == 404


async def test_the_groups_direct_link_opens_the_round_at_the_table_and_its_moves_reach_the_message(
        client: TestClient[Any, Any], service: App) -> None:
    """A Mini App opened by the round message's direct link (``startapp=round-<id>``) deals the player's game of the
    round; a move there, which no chat's executor sees, is found by the platform's loop (the round moved since its
    message was drawn), so the standings follow moves at the table too. Once the round is over the link opens the
    player's own table, the results said."""
    host = Actor(PlayerKey("telegram", "9"), "Host", "-100", "-100")
    (posted,) = await service.flow.handle(host, StartRound(code="TP1-E-AAAAAAB"), Surface(platform="telegram"))
    assert isinstance(posted, PostRound)
    round_id = posted.round.round_id
    await service.flow.record([RoundAt(round_id, BoardRef("-100", "5"))])
    await service.flow.rounds.now(round_id)  # its message drawn as it stands
    user = json.dumps({"id": 7, "first_name": "Ann", "language_code": "en"})
    linked = {"Authorization": "tma " + sign_init_data(
        {"auth_date": str(int(time.time())), "user": user, "start_param": f"round-{round_id}"}, TOKEN)}
    opened = await client.get("/api/table", headers=linked)
    board = (await opened.json())["board"]
    assert "live round: no undo" in board["header"]
    assert await service.flow.rounds.due("telegram") == [RedrawRound(round_id)]  # Ann joined
    await service.flow.rounds.now(round_id)
    assert await service.flow.rounds.due("telegram") == []
    move = next(slot["payload"] for slot in board["slots"] if slot.get("mark") == "fits")
    assert (await client.post("/api/act", json={"payload": move}, headers=linked)).status == 200
    assert await service.flow.rounds.due("telegram") == [RedrawRound(round_id)]  # the move at the table

    async with service.db.transaction() as tx:
        await tx.execute(update(rounds).values(ends_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)))
    await service.flow.rounds.due("telegram")
    again = await (await client.get("/api/table", headers=linked)).json()
    assert again["board"] is not None and "The round is over" in again["notice"]


async def test_the_round_messages_watch_link_opens_the_table_watching_the_round(
        client: TestClient[Any, Any], service: App) -> None:
    """Where the Mini App is set up, the round message has a Watch button on a row of its own: the Mini App's direct
    link with ``startapp=watch-<id>``, signed by Telegram into the launch data; the table, opened by it, says which
    round to watch (and deals nothing for it)."""
    from bot.adapters.telegram.rounds import RoundMessages
    from bot.app.codec import watch_parameter

    host = Actor(PlayerKey("telegram", "9"), "Host", "-100", "-100")
    (posted,) = await service.flow.handle(host, StartRound(code="TP1-E-AAAAAAB"), Surface(platform="telegram"))
    assert isinstance(posted, PostRound)
    round_id = posted.round.round_id
    messages = RoundMessages(service.flow, None, None, None)  # type: ignore[arg-type]  # only its view is drawn
    messages.mini_app = "table"

    class Bot:
        username = "tripeaks_bot"

    view = messages.view(Bot(), posted.round, "en")  # type: ignore[arg-type]
    (watch,) = view.buttons[-1]
    assert watch.label == "👀 Watch" and watch.url == f"https://t.me/tripeaks_bot/table?startapp=watch-{round_id}"

    user = json.dumps({"id": 8, "first_name": "Bea", "language_code": "en"})
    opened = {"Authorization": "tma " + sign_init_data(
        {"auth_date": str(int(time.time())), "user": user, "start_param": watch_parameter(round_id)}, TOKEN)}
    answer = await (await client.get("/api/table", headers=opened)).json()
    assert answer["watch"] == round_id and "live round" not in answer["board"]["header"]
    assert (await service.flow.rounds.read(round_id)).entries == ()
