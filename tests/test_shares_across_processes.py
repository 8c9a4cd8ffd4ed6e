"""A player's share of new solver questions holds across processes (issue 53): two App instances on one database
(as two processes of a deployment: Discord shards, a Telegram webhook behind a load balancer) give a player one
share, not two, one question at a time, one share of table requests, and one set of answers kept: in the database,
or in Redis (TEST_REDIS_URL, by default the local one) when the deployment has REDIS_URL."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis.asyncio as redis
from prometheus_client import REGISTRY
from sqlalchemy.engine import URL

from bot.app.assembly import App
from bot.app.codec import decode
from bot.app.commands import Actor, AskHint, Surface
from bot.app.effects import Answer, EditBoard, Problem
from bot.app.errors import OneAtATime, TryAgainIn
from bot.app.model import Hint, PlayerKey
from bot.app.questions import BURST, REQUESTS_BURST, DatabaseShares, Questions, RedisShares
from bot.config import ConfigError, load_config, redact
from bot.store.database import open_database
from bot.store.redis_shares import RedisDown, RedisStore
from tests.conftest import fake_hint, fake_verdict
from tests.test_service import block_game

ANN = PlayerKey("telegram", "7")
BOB = PlayerKey("telegram", "8")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
#: The hints the solver was asked for, by position (the fake solver runs in this process's threads).
ASKED: list[str] = []


def counted(metric: str) -> float:
    """What this process's /metrics says of ``metric`` now."""
    return REGISTRY.get_sample_value(metric) or 0.0


def counted_hint(state: str, budget: float) -> Hint:
    ASKED.append(state)
    return fake_hint(state, budget)


@pytest.fixture(params=["database", "redis"])
async def redis_stores(request: pytest.FixtureRequest) -> AsyncIterator[tuple[RedisStore | None, RedisStore | None]]:
    """Where the two processes keep the shares: the database (None), or one Redis (a connection each, under keys
    of this test's own, dropped after it)."""
    if request.param == "database":
        yield None, None
        return
    prefix = f"tripeaks-test-{uuid.uuid4().hex}:"
    try:
        one, other = await RedisStore.connect(REDIS_URL, prefix), await RedisStore.connect(REDIS_URL, prefix)
    except RedisDown as down:  # not skipped: the Redis path is what a deployment with REDIS_URL runs
        pytest.fail(f"Redis at {REDIS_URL} cannot be reached ({down}): start one, or set TEST_REDIS_URL",
                    pytrace=False)
    try:
        yield one, other
    finally:
        async for key in one.client.scan_iter(f"{prefix}*"):
            await one.client.delete(key)
        await other.close()  # the first is closed by its App


@pytest.fixture
async def two_processes(db_url: URL, redis_stores: tuple[RedisStore | None, RedisStore | None]
                        ) -> AsyncIterator[tuple[App, App]]:
    first, second = await open_database(db_url), await open_database(db_url)
    ASKED.clear()
    with ThreadPoolExecutor(2) as executor:
        async with App(first, executor=executor, hint_function=counted_hint, verdict_function=fake_verdict,
                       hint_budget=30, owns_database=True, redis=redis_stores[0]) as one, \
                App(second, executor=executor, hint_function=counted_hint, verdict_function=fake_verdict,
                    hint_budget=30, owns_database=True) as other:
            if redis_stores[1] is not None:  # the second process's own connection to the same Redis
                other.questions.shared = RedisShares(redis_stores[1], DatabaseShares(second))
            yield one, other


async def hint_then_draw(app: App, player: PlayerKey) -> list[object]:
    """Ask a hint on the player's game as it stands, then draw (the next hint is a new question)."""
    game = await app.games.current_game(player)
    assert game is not None
    actor, surface = Actor(player, "Ann"), Surface(platform=player.platform)
    answered = await app.flow.handle(actor, AskHint(game.game_id, game.version), surface)
    await app.flow.handle(actor, decode(f"tp:g:{game.game_id}:{game.version}:d"), surface)
    return list(answered)


async def test_two_processes_give_a_player_one_share_of_new_questions(two_processes: tuple[App, App]) -> None:
    one, other = two_processes
    await one.starts.new_game(ANN, "Ann")
    answers = [await hint_then_draw((one, other)[turn % 2], ANN) for turn in range(BURST + 1)]
    assert all(isinstance(answer[0], EditBoard) for answer in answers[:BURST])  # 3 in each process
    (refused,) = answers[BURST]  # each process's own share has 3 left: the deployment's has none
    assert isinstance(refused, Answer) and isinstance(refused.content, Problem)
    assert isinstance(refused.content.error, TryAgainIn)
    await other.starts.new_game(BOB, "Bob")  # another player's share is his own
    assert isinstance((await hint_then_draw(other, BOB))[0], EditBoard)


async def test_a_question_answered_in_one_process_holds_the_players_turn_in_the_other(
        two_processes: tuple[App, App]) -> None:
    """Ann's review is being worked out through one process; her hint asked through the other meanwhile is one
    question too many (as it would be in one process), and is answered once the review is done."""
    one, other = two_processes
    answering, done = asyncio.Event(), threading.Event()
    loop = asyncio.get_running_loop()

    async def slow_answer() -> str:
        answering.set()
        await loop.run_in_executor(None, done.wait)
        return "reviewed"

    asking = asyncio.create_task(one.questions.ask(ANN, ("review", 1), slow_answer))
    try:
        await answering.wait()
        with pytest.raises(OneAtATime):
            await other.questions.ask(ANN, ("hint", 2, 0), _answered)
        assert await other.questions.ask(BOB, ("hint", 3, 0), _answered) == "answered"  # Bob is not held by Ann
    finally:
        done.set()
    assert await asking == "reviewed"
    assert await other.questions.ask(ANN, ("hint", 2, 0), _answered) == "answered"


async def _answered() -> str:
    return "answered"


async def test_a_hint_worked_out_through_one_process_is_answered_from_the_kept_ones_through_the_other(
        two_processes: tuple[App, App]) -> None:
    one, other = two_processes
    game = await one.starts.new_game(ANN, "Ann")
    first = await one.advice.hint(ANN, game.game_id, game.version)
    shared_before = counted('tripeaks_answers_shared_total')
    again = await other.advice.hint(ANN, game.game_id, game.version)  # another process, nothing in its memory
    assert counted('tripeaks_answers_shared_total') == shared_before + 1  # counted for /metrics
    assert again.hint == first.hint and first.hint is not None and first.hint.action is not None
    assert len(ASKED) == 1  # the solver was asked once in the deployment
    await one.flow.handle(Actor(ANN, "Ann"), decode(f"tp:g:{game.game_id}:{game.version}:d"),
                          Surface(platform="telegram"))
    moved = await other.games.current_game(ANN)
    assert moved is not None and (await other.advice.hint(ANN, moved.game_id, moved.version)).hint is not None
    assert len(ASKED) == 2  # a new position is a new question


async def test_a_review_worked_out_through_one_process_is_answered_through_the_other(
        two_processes: tuple[App, App]) -> None:
    one, other = two_processes
    game_id = await block_game(one, ANN)  # a finished game
    reviewed = await one.advice.review(ANN, game_id)
    assert reviewed is not None and not reviewed.won
    reviews: list[str] = []
    other.advice.review_function = reviews.append  # type: ignore[assignment]
    assert await other.advice.review(ANN, game_id) == reviewed
    assert reviews == []  # answered from what the first process kept, the solver not asked


async def test_two_processes_give_a_player_one_share_of_table_requests(two_processes: tuple[App, App]) -> None:
    """Ann's table requests reach both processes in turn (a load balancer): the deployment takes the share's
    burst from her, not twice the burst; Bob's share is his own. The clocks stand still (no refill meanwhile)."""
    one, other = two_processes
    for app in (one, other):
        app.questions.clock = lambda: 100.0
        shared = app.questions.shared
        assert isinstance(shared, DatabaseShares | RedisShares)
        (shared if isinstance(shared, DatabaseShares) else shared.fallback).clock = lambda: 1_000_000.0
    waits = [await (one, other)[turn % 2].questions.request_wait(ANN) for turn in range(REQUESTS_BURST + 1)]
    assert waits[:REQUESTS_BURST] == [0.0] * REQUESTS_BURST  # half through each: each process's own share allows
    assert waits[REQUESTS_BURST] > 0
    assert await other.questions.request_wait(BOB) == 0.0


async def test_a_flood_of_table_requests_stops_in_the_process_before_the_shared_share() -> None:
    """Past the process's own share a request is refused at no cost to the database or Redis: it is not asked."""

    class Counting(DatabaseShares):
        def __init__(self) -> None:
            self.taken = 0

        async def take(self, player: PlayerKey, kind: str, burst: int, refill_seconds: float) -> float:
            self.taken += 1
            return 0.0

    shared = Counting()
    questions = Questions(clock=lambda: 5.0, shared=shared)
    waits = [await questions.request_wait(ANN) for _ in range(REQUESTS_BURST + 100)]
    assert waits.count(0.0) == REQUESTS_BURST and shared.taken == REQUESTS_BURST


async def test_a_redis_that_fails_leaves_the_shares_and_answers_to_the_database(
        db_url: URL, caplog: pytest.LogCaptureFixture) -> None:
    """REDIS_URL's server gone (here: nothing listens at its port): the shares are taken and the answers kept in
    the database meanwhile, said in one warning."""
    db = await open_database(db_url)
    try:
        down = RedisStore(redis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=1))
        shared = RedisShares(down, DatabaseShares(db))
        failures_before = counted('tripeaks_redis_failures_total')
        with caplog.at_level(logging.WARNING, logger="bot.app.questions"):
            assert await shared.take(ANN, "questions", 1, 60) == 0.0
            assert await shared.take(ANN, "questions", 1, 60) > 0  # the database's bucket, taken before
            await shared.keep("('hint', 1, 0)", "kept")
            assert await shared.answer("('hint', 1, 0)") == "kept"
        assert sum("Redis failed" in r.getMessage() for r in caplog.records) == 1  # once, not once a call
        assert counted('tripeaks_redis_failures_total') == failures_before + 4  # every call counted
        await down.close()
    finally:
        await db.close()


async def test_the_answers_kept_in_the_database_expire(db_url: URL) -> None:
    db = await open_database(db_url)
    try:
        now = [1000.0]
        shared = DatabaseShares(db, clock=lambda: now[0])
        await shared.keep("('review', 1)", "reviewed")
        assert await shared.answer("('review', 1)") == "reviewed"
        now[0] += 3601
        assert await shared.answer("('review', 1)") is None
    finally:
        await db.close()


def test_hints_and_reviews_read_back_as_they_were_written() -> None:
    from bot.app.answer_texts import HINT_TEXT, REVIEW_TEXT
    from core.cards import Card
    from core.game import DRAW, Tap
    from core.review import Review

    for hint in (Hint(Tap(12), True, 740), Hint(DRAW, None, None, 0.625), Hint(None, False, None)):
        assert HINT_TEXT.read(HINT_TEXT.write(hint)) == hint
    review = Review(won=False, score=310, best_score=820, winnable_at_start=True, lost_at=7, longest_chain=5,
                    losing_action=Tap(3), losing_card=Card.parse("QH"), losing_peak=1,
                    best_line=(Tap(20), DRAW, Tap(21)), best_line_score=820)
    assert REVIEW_TEXT.read(REVIEW_TEXT.write(review)) == review


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://:pw@cache.example.org:6380/2",
                                 "unix:///run/redis/redis.sock"])
def test_a_redis_url_is_taken_as_written(url: str) -> None:
    assert load_config({"REDIS_URL": url}).redis_url == url


@pytest.mark.parametrize("url", ["127.0.0.1:6379", "redis://127.0.0.1:port/0", "redis:///0", "redis://h:1/db",
                                 "http://127.0.0.1:6379"])
def test_a_malformed_redis_url_is_one_line_naming_the_setting(url: str) -> None:
    with pytest.raises(ConfigError, match=r"^REDIS_URL is malformed: .*use redis://host:6379/0"):
        load_config({"REDIS_URL": url})


def test_the_password_of_a_redis_url_is_a_secret() -> None:
    load_config({"REDIS_URL": "redis://:Sh4redPass@cache:6379/0"})
    assert redact("connecting with Sh4redPass") == "connecting with ***"


async def test_a_redis_out_of_reach_at_start_leaves_the_shares_to_the_database(
        db_url: URL, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.app.assembly"):
        app = await App.open(db_url.render_as_string(hide_password=False), redis_url="redis://127.0.0.1:1/0",
                             executor=ThreadPoolExecutor(1), hint_function=fake_hint, verdict_function=fake_verdict)
    try:
        assert app.redis is None and isinstance(app.questions.shared, DatabaseShares)
        assert any("REDIS_URL cannot be reached" in record.getMessage() for record in caplog.records)
    finally:
        await app.close()


async def test_a_take_that_comes_late_neither_refills_twice_nor_moves_the_share_back(
        two_processes: tuple[App, App]) -> None:
    """A bucket of 2 refilled every 10 s, taken by two processes whose statements may arrive out of their clocks'
    order: the one read at 5 s arriving after the one read at 10 s finds nothing, and credits nothing again."""
    one, other = two_processes
    shared = [app.questions.shared for app in (one, other)]
    clocks = [0.0, 0.0]
    for turn, share in enumerate(shared):
        assert isinstance(share, DatabaseShares | RedisShares)
        (share if isinstance(share, DatabaseShares) else share.fallback).clock = (
            lambda turn=turn: clocks[turn])  # type: ignore[misc]
    taken = []
    for turn, when in [(0, 0.0), (1, 0.0), (0, 10.0), (1, 5.0), (0, 20.0), (1, 25.0)]:
        clocks[turn] = when
        share = shared[turn]
        assert share is not None
        taken.append(await share.take(ANN, "requests", 2, 10.0) == 0.0)
    assert taken == [True, True, True, False, True, False]


async def test_a_flood_of_table_requests_takes_from_the_shared_share_one_at_a_time() -> None:
    """However many requests of one player a process holds at once, one of them at a time asks the shared share:
    a flood holds one database connection of the process, not its pool."""
    gate = asyncio.Event()

    class Slow(DatabaseShares):
        def __init__(self) -> None:
            self.at_once = self.most = 0

        async def take(self, player: PlayerKey, kind: str, burst: int, refill_seconds: float) -> float:
            self.at_once += 1
            self.most = max(self.most, self.at_once)
            await gate.wait()
            self.at_once -= 1
            return 0.0

    shared = Slow()
    questions = Questions(clock=lambda: 5.0, shared=shared)
    asking = [asyncio.create_task(questions.request_wait(ANN)) for _ in range(20)]
    bob = asyncio.create_task(questions.request_wait(BOB))
    while shared.at_once < 2:  # Ann's first and Bob's: each player's turn is their own
        await asyncio.sleep(0)
    gate.set()
    assert await asyncio.gather(*asking, bob) == [0.0] * 21
    assert shared.most == 2 and not questions._taking


async def test_a_redis_that_answers_at_start_holds_the_shares(db_url: URL) -> None:
    app = await App.open(db_url.render_as_string(hide_password=False), redis_url=REDIS_URL,
                         executor=ThreadPoolExecutor(1), hint_function=fake_hint, verdict_function=fake_verdict)
    try:
        assert app.redis is not None and isinstance(app.questions.shared, RedisShares)
    finally:
        await app.close()
