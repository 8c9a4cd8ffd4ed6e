"""The outbox (bot/app/outbox.py) on a real database, SQLite and PostgreSQL: what must reach a chat is written with the
change that causes it (a move at the table, the end of a challenge's game), delivered once by a process that runs
the platform, with the game as it stands then; asks for one board coalesce; a claim whose process died is taken
again once it runs out, never before; a board nobody delivered in time is dropped, a challenger never."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.engine import URL

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import Actor, Begin, Surface
from bot.app.effects import Effect, Executor, RedrawBoard, Report, Tell
from bot.app.model import BoardRef, GameSnapshot, PlayerKey
from bot.app.outbox import BOARD_STALE, LEASE, Outbox
from bot.render.endings import challenge_of
from bot.store.database import open_database
from core.game import DRAW, UNDO
from tests.test_service import BLOCK_CODE, play

ANN = PlayerKey("telegram", "7")
BOB = PlayerKey("telegram", "8")
AT_TABLE = Surface(platform="telegram", platform_locale="fr", at_table=True)


class Recorded:
    """A platform's executor as the outbox uses it: what it was handed (the effect and its language)."""

    def __init__(self, fail: bool = False) -> None:
        self.done: list[tuple[Effect, str | None]] = []
        self.came = asyncio.Event()
        self.fail = fail

    def __call__(self, locale: str | None) -> Executor:
        recorded = self

        class Run:
            async def run(self, effects: list[Effect]) -> list[Report]:
                if recorded.fail:
                    raise RuntimeError("the chat platform is away")
                recorded.done += [(effect, locale) for effect in effects]
                recorded.came.set()
                return []

        return Run()

    @property
    def redrawn(self) -> list[tuple[int, int, str | None]]:
        return [(effect.snapshot.game_id, effect.snapshot.version, locale) for effect, locale in self.done
                if isinstance(effect, RedrawBoard)]

    @property
    def told(self) -> list[Tell]:
        return [effect for effect, _ in self.done if isinstance(effect, Tell)]


async def on_a_board(service: App, player: PlayerKey = ANN, code: str = "TP1-E-AAAAAAA") -> GameSnapshot:
    """A new game of ``player``'s whose live board is in their chat."""
    started = await service.starts.new_game(player, "Ann", code=code, chat_id="ann-chat")
    await service.games.show_board(started.game_id, BoardRef("ann-chat", "1"))
    return await service.games.game(started.game_id)


@pytest.fixture
async def elsewhere(service: App, db_url: URL) -> AsyncIterator[Outbox]:
    """The outbox of a second process on the same database."""
    db = await open_database(db_url, migrate=False)
    try:
        yield Outbox(db, service.daily_codes.today)
    finally:
        await db.close()


def later(seconds: float) -> Any:
    return lambda: dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


async def at_table(service: App, player: PlayerKey, snapshot: GameSnapshot, action: str = "d") -> GameSnapshot:
    """``player`` taps ``action`` on ``snapshot``'s board at the table; the game as it then stands."""
    await service.flow.handle(Actor(player, "Ann"), game_command(snapshot.game_id, snapshot.version, action),
                              AT_TABLE)
    return await service.games.game(snapshot.game_id)


async def test_a_move_at_the_table_is_committed_with_its_chat_redraw(service: App) -> None:
    snapshot = await on_a_board(service)
    assert await service.outbox.undelivered() == []
    moved = await at_table(service, ANN, snapshot)
    (row,) = await service.outbox.undelivered()
    assert (row.game_id, row.kind, row.platform, row.locale) == (snapshot.game_id, "board", "telegram", "fr")
    chat = Recorded()
    assert await service.outbox.deliver({"telegram": chat}) == 1
    assert chat.redrawn == [(snapshot.game_id, moved.version, "fr")]
    assert await service.outbox.undelivered() == [] and await service.outbox.deliver({"telegram": chat}) == 0


async def test_a_move_in_the_chat_writes_nothing_to_the_outbox(service: App) -> None:
    snapshot = await on_a_board(service)
    await service.flow.handle(Actor(ANN, "Ann"), game_command(snapshot.game_id, snapshot.version, "d"))
    assert await service.outbox.undelivered() == []


async def test_two_processes_taking_at_once_deliver_each_row_once(service: App, elsewhere: Outbox) -> None:
    here, there = Recorded(), Recorded()
    snapshot = await on_a_board(service)
    for round_ in range(1, 11):
        snapshot = await at_table(service, ANN, snapshot)
        done = await asyncio.gather(service.outbox.deliver({"telegram": here}),
                                    elsewhere.deliver({"telegram": there}))
        assert sorted(done) == [0, 1], round_
        assert len(here.redrawn) + len(there.redrawn) == round_


async def test_moves_at_the_table_coalesce_into_one_redraw_of_the_game_as_it_stands(service: App) -> None:
    chat = Recorded()
    snapshot = await on_a_board(service)
    for _ in range(3):
        snapshot = await at_table(service, ANN, snapshot)
    version = await play(service, ANN, snapshot.game_id, snapshot.version, [DRAW])  # in the chat, after them
    assert await service.outbox.deliver({"telegram": chat}) == 1
    assert chat.redrawn == [(snapshot.game_id, version, "fr")]  # one redraw, of the game as it stands


async def test_a_board_asked_for_again_while_delivered_is_delivered_again(service: App) -> None:
    chat = Recorded()
    snapshot = await on_a_board(service)
    snapshot = await at_table(service, ANN, snapshot)
    (taken,) = await service.outbox.take({"telegram"})
    snapshot = await at_table(service, ANN, snapshot)  # meanwhile
    await service.outbox.done(taken.row)
    assert await service.outbox.deliver({"telegram": chat}) == 1
    assert chat.redrawn == [(snapshot.game_id, snapshot.version, "fr")]


async def test_a_claim_whose_process_died_is_taken_again_once_it_runs_out(service: App) -> None:
    snapshot = await on_a_board(service)
    await at_table(service, ANN, snapshot)
    assert len(await service.outbox.take({"telegram"})) == 1  # claimed, then the process dies: never marked
    chat = Recorded()
    assert await service.outbox.deliver({"telegram": chat}) == 0  # the claim holds
    assert await Outbox(service.db, service.daily_codes.today, clock=later(LEASE + 1)).deliver({"telegram": chat}) == 1


async def test_a_delivery_that_fails_is_tried_again_once_its_claim_runs_out(service: App) -> None:
    snapshot = await on_a_board(service)
    await at_table(service, ANN, snapshot)
    assert await service.outbox.deliver({"telegram": Recorded(fail=True)}) == 0
    chat = Recorded()
    assert await service.outbox.deliver({"telegram": chat}) == 0
    assert await Outbox(service.db, service.daily_codes.today, clock=later(LEASE + 1)).deliver({"telegram": chat}) == 1


async def test_a_row_waits_for_a_process_that_runs_its_platform(service: App, elsewhere: Outbox) -> None:
    telegram, discord = Recorded(), Recorded()
    dan = PlayerKey("discord", "70")
    snapshot = await at_table(service, dan, await on_a_board(service, dan))
    assert await elsewhere.deliver({"telegram": telegram}) == 0
    assert await elsewhere.deliver({"discord": discord, "telegram": telegram}) == 1
    assert discord.redrawn == [(snapshot.game_id, snapshot.version, "fr")] and telegram.redrawn == []


async def test_a_board_nobody_delivered_in_time_is_dropped(service: App) -> None:
    telegram = Recorded()
    for platform in ("telegram", "discord"):
        player = PlayerKey(platform, "7")
        await at_table(service, player, await on_a_board(service, player))
    stale = Outbox(service.db, service.daily_codes.today, clock=later(BOARD_STALE + 1))
    assert await stale.deliver({"telegram": telegram}) == 0  # dropped, the other platform's with it
    assert telegram.redrawn == [] and await service.outbox.undelivered() == []
    fresh = await on_a_board(service)
    await at_table(service, ANN, fresh)
    assert await Outbox(service.db, service.daily_codes.today, clock=later(BOARD_STALE - 5)).deliver({"telegram": telegram}) == 1


async def a_challenge_taken(service: App) -> tuple[GameSnapshot, GameSnapshot]:
    """Ann's blocked game, and Bob's game started from her challenge."""
    shared = await on_a_board(service, code=BLOCK_CODE)
    await play(service, ANN, shared.game_id, shared.version, [DRAW] * 23)
    challenge = challenge_of(await service.challenges.signed(await service.games.game(shared.game_id)))
    assert challenge is not None
    await service.flow.handle(Actor(BOB, "Bob", chat_id="bob-chat"), Begin(challenge))
    answer = await service.games.current_game(BOB)
    assert answer is not None
    return await service.games.game(shared.game_id), answer


async def test_a_challenger_is_told_once_with_both_games_as_they_stand(service: App) -> None:
    shared, answer = await a_challenge_taken(service)
    await service.players.seen(ANN, "ru")  # Ann's app was last seen in Russian
    await service.players.seen(BOB, "uk")
    version = await play(service, BOB, answer.game_id, answer.version, [DRAW] * 23)  # blocked: told
    version = await play(service, BOB, answer.game_id, version, [UNDO])
    await play(service, BOB, answer.game_id, version, [DRAW])  # blocked again: told nothing more
    chat = Recorded()
    assert await service.outbox.deliver({"telegram": chat}) == 1
    (tell,) = chat.told
    assert tell.chat_id == "ann-chat" and tell.content.shared.game_id == shared.game_id
    assert tell.content.answer.game_id == answer.game_id and tell.content.answer.game.is_over
    assert tell.content.seen_locale == "ru" and chat.done[0][1] == "uk"  # her language, else Bob's
    assert await service.outbox.deliver({"telegram": chat}) == 0


async def test_a_challenger_waits_to_be_told_however_long(service: App) -> None:
    _, answer = await a_challenge_taken(service)
    await play(service, BOB, answer.game_id, answer.version, [DRAW] * 23)
    chat = Recorded()
    assert await Outbox(service.db, service.daily_codes.today, clock=later(BOARD_STALE * 10)).deliver({"telegram": chat}) == 1
    assert len(chat.told) == 1


class TakenThenStopped:
    """A platform that takes each message, whose process then stops before the outbox marks it delivered."""

    def __init__(self) -> None:
        self.told: list[Tell] = []

    def __call__(self, locale: str | None) -> Executor:
        taken = self

        class Run:
            async def run(self, effects: list[Effect]) -> list[Report]:
                taken.told += [effect for effect in effects if isinstance(effect, Tell)]
                raise RuntimeError("stopped after the platform took the message")

        return Run()


async def test_a_message_sent_again_after_a_stop_carries_the_same_key(
        service: App, caplog: pytest.LogCaptureFixture) -> None:
    _, answer = await a_challenge_taken(service)
    await play(service, BOB, answer.game_id, answer.version, [DRAW] * 23)
    (row,) = await service.outbox.undelivered()
    assert not row.attempted
    first = TakenThenStopped()
    assert await service.outbox.deliver({"telegram": first}) == 0
    (row,) = await service.outbox.undelivered()
    assert row.attempted  # committed before the send: the next try knows it may be a second
    again = Recorded()
    with caplog.at_level("WARNING", logger="bot.app.outbox"):
        assert await Outbox(service.db, service.daily_codes.today, clock=later(LEASE + 1)).deliver(
            {"telegram": again}) == 1
    ((told, _),) = [(effect, locale) for effect, locale in again.done]
    assert isinstance(told, Tell) and told.key is not None and told.key == first.told[0].key
    assert any("again: a process stopped while sending it" in record.getMessage() for record in caplog.records)
    assert await service.outbox.undelivered() == []


async def test_a_result_shared_again_later_is_a_new_message_with_a_new_key(service: App) -> None:
    shared, _ = await a_challenge_taken(service)
    keys = []
    for _ in range(2):
        assert await service.outbox.ask_share(shared, "en", within=0)
        (row,) = await service.outbox.undelivered()
        assert not row.attempted  # a new request, whatever became of the last
        chat = Recorded()
        assert await service.outbox.deliver({"telegram": chat}) == 1
        keys += [tell.key for tell in chat.told]
    assert len(set(keys)) == 2 and None not in keys


async def test_a_database_out_of_reach_is_logged_once_until_it_answers_again(
        service: App, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    stop = asyncio.Event()
    rounds = [OSError("refused")] * 3 + [None] + [OSError("refused")] * 2  # None: a round that takes its requests

    async def deliver(executors: Any) -> int:
        failure = rounds.pop(0)
        if not rounds:
            stop.set()
        if failure is not None:
            raise failure
        return 0

    monkeypatch.setattr(service.outbox, "deliver", deliver)
    with caplog.at_level("INFO", logger="bot.app.outbox"):
        await service.outbox.run({}, stop, every=0)
    # (the bot's log set-up, left by another test, may add "as before: traceback not repeated" to a repeated error)
    said = [(record.levelname, record.getMessage().partition(" (")[0]) for record in caplog.records
            if record.name == "bot.app.outbox"]
    assert said == [("ERROR", "could not take the outbox's rows"),
                    ("INFO", "taking the outbox's rows again"),
                    ("ERROR", "could not take the outbox's rows")]


async def a_move_delivered(service: App, snapshot: GameSnapshot, chat: Recorded) -> int:
    """Ann draws at the table in ``snapshot``'s game; the game's version once ``chat`` has redrawn it."""
    chat.came.clear()
    moved = await at_table(service, ANN, snapshot)
    await asyncio.wait_for(chat.came.wait(), 60)
    return moved.version


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_on_postgresql_a_row_written_wakes_the_process_at_once(service: App, elsewhere: Outbox) -> None:
    """LISTEN/NOTIFY: the delivering process looks only once an hour here, so only the announcement can wake it."""
    chat = Recorded()
    snapshot = await on_a_board(service)
    stop = asyncio.Event()
    first = await at_table(service, ANN, snapshot)  # delivered at the loop's first look
    running = asyncio.create_task(elsewhere.run({"telegram": chat}, stop, every=3600))
    try:
        await asyncio.wait_for(chat.came.wait(), 60)
        # the loop listens from its start (and looks once it does): the next row wakes it
        version = await a_move_delivered(service, first, chat)
    finally:
        stop.set()
        await running
    assert chat.redrawn == [(snapshot.game_id, first.version, "fr"), (snapshot.game_id, version, "fr")]


class Heard(logging.Handler):
    """Sets ``event`` when a log record's message is ``message`` (what the outbox's listener says is its only sign
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
        service: App, elsewhere: Outbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server ends the listening connection (a restart, a failover, an idle timeout): the process listens
    again on another, and a row written after that still wakes it, though it looks only once an hour."""
    from bot.store import changes as stored_relay  # the outbox listens as the table's watcher does

    monkeypatch.setattr(stored_relay, "LISTEN_RETRY", 0.01)
    first = Heard("listening on outbox")
    lost = Heard("the connection listening on outbox was lost")
    again = Heard("listening on outbox again")
    for handler in (first, lost, again):
        stored_relay.log.addHandler(handler)
    stored_relay.log.setLevel(logging.DEBUG)  # (setLevel: the logger caches what each level says)
    monkeypatch.setattr(stored_relay.log, "disabled", False)  # as a logging set-up by another test may have left it
    chat = Recorded()
    snapshot = await on_a_board(service)
    stop = asyncio.Event()
    running = asyncio.create_task(elsewhere.run({"telegram": chat}, stop, every=3600))
    try:
        await asyncio.wait_for(first.event.wait(), 60)  # listening: its LISTEN is the last statement it ran
        async with service.db.engine.connect() as admin:
            ended = (await admin.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN %outbox%' "
                "AND pid <> pg_backend_pid()")).all()
        assert ended == [(True,)]
        await asyncio.wait_for(lost.event.wait(), 60)  # the process saw it lost
        await asyncio.wait_for(again.event.wait(), 60)  # and listens on another
        version = await a_move_delivered(service, snapshot, chat)
    finally:
        stop.set()
        await running
        for handler in (first, lost, again):
            stored_relay.log.removeHandler(handler)
        stored_relay.log.setLevel(logging.NOTSET)
    assert chat.redrawn == [(snapshot.game_id, version, "fr")]


async def test_a_chat_board_redrawn_through_the_outbox_carries_the_owners_notice(service: App) -> None:
    """As the boards of commands do: a move at the table must not take the notice off the chat's board."""
    snapshot = await on_a_board(service)
    await service.owners.set_notice("Back at 18:00 UTC")
    await at_table(service, ANN, snapshot)
    (taken,) = await service.outbox.take({"telegram"})
    (redraw,) = taken.effects
    assert isinstance(redraw, RedrawBoard) and redraw.snapshot.owner_notice == "Back at 18:00 UTC"
