"""The relay (bot/app/relay.py) on a real database, SQLite and PostgreSQL: a redraw asked for by a process that does
not run a game's platform is carried out once by one that does, with the game as it stands then; requests for one
game coalesce; a request nobody took in time is dropped; and the table's server relays only what it cannot redraw
itself."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.engine import URL

from bot.adapters.web.auth import Signer
from bot.adapters.web.server import TableServer
from bot.app.assembly import App
from bot.app.effects import ChallengeAnswered
from bot.app.games import Games
from bot.app.model import BoardRef, GameSnapshot, PlayerKey
from bot.app.relay import RELAY_STALE, Relay
from bot.store.database import open_database
from core.game import DRAW
from tests.test_service import play

ANN = PlayerKey("telegram", "7")


class Recorded:
    """A platform's boards in a process that runs it: what it was asked to redraw (game, version, language)."""

    def __init__(self, platform: str = "telegram") -> None:
        self.platform = platform
        self.redrawn: list[tuple[int, int, str | None]] = []
        self.told: list[tuple[str, ChallengeAnswered, str | None]] = []

    async def redraw(self, snapshot: GameSnapshot, platform_locale: str | None) -> None:
        self.redrawn.append((snapshot.game_id, snapshot.version, platform_locale))

    async def tell(self, chat_id: str, content: ChallengeAnswered, platform_locale: str | None) -> None:
        self.told.append((chat_id, content, platform_locale))


async def on_a_board(service: App, player: PlayerKey = ANN) -> GameSnapshot:
    """A new game of ``player``'s whose live board is in their chat."""
    started = await service.starts.new_game(player, "Ann", code="TP1-E-AAAAAAA", chat_id="ann-chat")
    await service.games.show_board(started.game_id, BoardRef("ann-chat", "1"))
    return await service.games.game(started.game_id)


@pytest.fixture
async def elsewhere(service: App, db_url: URL) -> AsyncIterator[Relay]:
    """The relay of a second process on the same database."""
    db = await open_database(db_url, migrate=False)
    try:
        yield Relay(db, Games(db, service.daily_codes.today))
    finally:
        await db.close()


def later(seconds: float) -> Any:
    return lambda: dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


async def test_two_processes_taking_at_once_carry_each_request_out_once(service: App, elsewhere: Relay) -> None:
    here, there = Recorded(), Recorded()
    snapshot = await on_a_board(service)
    for round_ in range(1, 11):
        await service.relay.boards("telegram").redraw(snapshot, "en")
        done = await asyncio.gather(service.relay.carry_out({"telegram": here}),
                                    elsewhere.carry_out({"telegram": there}))
        assert sorted(done) == [0, 1], round_
        assert len(here.redrawn) + len(there.redrawn) == round_


async def test_requests_for_one_game_coalesce_into_one_redraw_of_the_game_as_it_stands(service: App) -> None:
    chat = Recorded()
    snapshot = await on_a_board(service)
    relayed = service.relay.boards("telegram")
    await relayed.redraw(snapshot, "de")
    version = await play(service, ANN, snapshot.game_id, snapshot.version, [DRAW, DRAW])
    await relayed.redraw(await service.games.game(snapshot.game_id), "fr")
    version = await play(service, ANN, snapshot.game_id, version, [DRAW])  # after the last request: drawn too
    assert await service.relay.carry_out({"telegram": chat}) == 1
    assert chat.redrawn == [(snapshot.game_id, version, "fr")]
    assert await service.relay.carry_out({"telegram": chat}) == 0


async def test_a_request_waits_for_a_process_that_runs_its_platform(service: App, elsewhere: Relay) -> None:
    telegram, discord = Recorded("telegram"), Recorded("discord")
    snapshot = await on_a_board(service, PlayerKey("discord", "70"))
    await service.relay.boards("discord").redraw(snapshot, None)
    assert await elsewhere.carry_out({"telegram": telegram}) == 0
    assert await elsewhere.carry_out({"discord": discord, "telegram": telegram}) == 1
    assert discord.redrawn == [(snapshot.game_id, snapshot.version, None)] and telegram.redrawn == []


async def test_a_request_nobody_took_in_time_is_dropped(service: App) -> None:
    telegram = Recorded()
    for platform in ("telegram", "discord"):
        await service.relay.boards(platform).redraw(await on_a_board(service, PlayerKey(platform, "7")), "en")
    stale = Relay(service.db, service.games, clock=later(RELAY_STALE + 1))
    assert await stale.carry_out({"telegram": telegram}) == 0  # dropped, the other platform's with it
    assert telegram.redrawn == []
    assert await service.relay.carry_out({"telegram": telegram, "discord": Recorded("discord")}) == 0
    fresh = await on_a_board(service)
    await service.relay.boards("telegram").redraw(fresh, "en")
    assert await Relay(service.db, service.games, clock=later(RELAY_STALE - 5)).carry_out({"telegram": telegram}) == 1


async def test_a_challenger_is_told_through_the_relay_with_both_games_as_they_stand(service: App) -> None:
    from bot.app.commands import Actor, Begin
    from bot.render.endings import challenge_of

    chat = Recorded()
    shared = await on_a_board(service)
    await play(service, ANN, shared.game_id, shared.version, [DRAW] * 23)
    challenge = challenge_of(await service.challenges.signed(await service.games.game(shared.game_id)))
    assert challenge is not None
    bob = PlayerKey("telegram", "8")
    await service.flow.handle(Actor(bob, "Bob", chat_id="bob-chat"), Begin(challenge))
    answer = await service.games.current_game(bob)
    assert answer is not None
    await play(service, bob, answer.game_id, answer.version, [DRAW] * 23)
    told = ChallengeAnswered(await service.games.game(shared.game_id), await service.games.game(answer.game_id),
                             seen_locale="ru")  # Ann's app was last seen in Russian; Bob's says Ukrainian
    await service.relay.boards("telegram").tell("ann-chat", told, "uk")
    assert await service.relay.carry_out({"telegram": chat}) == 1
    ((chat_id, content, locale),) = chat.told
    assert chat_id == "ann-chat" and (content.shared, content.answer) == (told.shared, told.answer)
    assert (content.seen_locale or locale) == "ru"  # she is told in her language, as without the relay
    assert await service.relay.carry_out({"telegram": chat}) == 0


async def test_the_table_redraws_its_own_platforms_and_relays_the_others(service: App) -> None:
    server = TableServer(service.flow, Signer(b"s" * 32), relay=service.relay.boards)
    telegram = Recorded()
    server.follow_chats(telegram)
    assert server.boards_of("telegram") is telegram
    relayed = server.boards_of("discord")
    assert relayed is not None and relayed.platform == "discord" and relayed is not telegram
    assert TableServer(service.flow, Signer(b"s" * 32)).boards_of("discord") is None  # the console's: no relay




async def test_a_database_out_of_reach_is_logged_once_until_it_answers_again(
        service: App, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    stop = asyncio.Event()
    rounds = [OSError("refused")] * 3 + [None] + [OSError("refused")] * 2  # None: a round that takes its requests

    async def carry_out(boards: Any) -> int:
        failure = rounds.pop(0)
        if not rounds:
            stop.set()
        if failure is not None:
            raise failure
        return 0

    monkeypatch.setattr(service.relay, "carry_out", carry_out)
    with caplog.at_level("INFO", logger="bot.app.relay"):
        await service.relay.run({}, stop, every=0)
    said = [(record.levelname, record.getMessage()) for record in caplog.records if record.name == "bot.app.relay"]
    assert said == [("ERROR", "could not take the requests to redraw chat boards"),
                    ("INFO", "taking the requests to redraw chat boards again"),
                    ("ERROR", "could not take the requests to redraw chat boards")]


class Awaited(Recorded):
    """Recorded boards that say when a redraw has come."""

    def __init__(self) -> None:
        super().__init__()
        self.came = asyncio.Event()

    async def redraw(self, snapshot: GameSnapshot, platform_locale: str | None) -> None:
        await super().redraw(snapshot, platform_locale)
        self.came.set()


async def a_move_relayed(service: App, snapshot: GameSnapshot, chat: Awaited) -> int:
    """Ann draws in ``snapshot``'s game, and its redraw is left for the relay; the game's version once ``chat`` has
    redrawn it."""
    version = await play(service, ANN, snapshot.game_id, snapshot.version, [DRAW])
    await service.relay.boards("telegram").redraw(await service.games.game(snapshot.game_id), "en")
    await asyncio.wait_for(chat.came.wait(), 60)
    return version


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_on_postgresql_a_request_wakes_the_process_at_once(service: App, elsewhere: Relay) -> None:
    """LISTEN/NOTIFY: the taking process looks only once an hour here, so only the announcement can wake it."""
    chat = Awaited()
    snapshot = await on_a_board(service)
    stop = asyncio.Event()
    await service.relay.boards("telegram").redraw(snapshot, "en")  # taken at the loop's first look
    running = asyncio.create_task(elsewhere.run({"telegram": chat}, stop, every=3600))
    try:
        await asyncio.wait_for(chat.came.wait(), 60)
        chat.came.clear()  # the loop listens from its start (and looks once it does): the next request wakes it
        version = await a_move_relayed(service, snapshot, chat)
    finally:
        stop.set()
        await running
    assert chat.redrawn == [(snapshot.game_id, snapshot.version, "en"), (snapshot.game_id, version, "en")]


class Heard(logging.Handler):
    """Sets ``event`` when a log record's message is ``message`` (what the relay's listener says is its only sign
    of where it is)."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message
        self.event = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == self.message:
            self.event.set()


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_on_postgresql_a_lost_listening_connection_is_opened_again(
        service: App, elsewhere: Relay, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server ends the listening connection (a restart, a failover, an idle timeout): the process listens
    again on another, and a request left after that still wakes it, though it looks only once an hour."""
    from bot.store import relay as stored_relay

    monkeypatch.setattr(stored_relay, "LISTEN_RETRY", 0.01)
    first = Heard("listening for relay requests")
    lost = Heard("the connection listening for relay requests was lost")
    again = Heard("listening for relay requests again")
    for handler in (first, lost, again):
        stored_relay.log.addHandler(handler)
    stored_relay.log.setLevel(logging.DEBUG)  # (setLevel: the logger caches what each level says)
    monkeypatch.setattr(stored_relay.log, "disabled", False)  # as a logging set-up by another test may have left it
    chat = Awaited()
    snapshot = await on_a_board(service)
    stop = asyncio.Event()
    running = asyncio.create_task(elsewhere.run({"telegram": chat}, stop, every=3600))
    try:
        await asyncio.wait_for(first.event.wait(), 60)  # listening: its LISTEN is the last statement it ran
        async with service.db.engine.connect() as admin:
            ended = (await admin.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN %board_relay%' "
                "AND pid <> pg_backend_pid()")).all()
        assert ended == [(True,)]
        await asyncio.wait_for(lost.event.wait(), 60)  # the process saw it lost
        await asyncio.wait_for(again.event.wait(), 60)  # and listens on another
        version = await a_move_relayed(service, snapshot, chat)
    finally:
        stop.set()
        await running
        for handler in (first, lost, again):
            stored_relay.log.removeHandler(handler)
        stored_relay.log.setLevel(logging.NOTSET)
    assert chat.redrawn == [(snapshot.game_id, version, "en")]
