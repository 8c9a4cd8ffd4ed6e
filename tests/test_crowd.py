"""A crowd at the table (issue 39): the solver's work shared fairly among players. What each player relies on:
another player's flood changes nothing of their answers; their own question is asked of the solver once (a repeat
joins it, the same question later is answered from memory); "busy" is not "nothing to suggest", and a hint not
thought about is not counted; asking too much gets a polite answer in their language. No timing is asserted: the
figures are bench/crowd.py's."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.commands import Actor, AskHint, Invite, Move, OpenLink
from bot.app.effects import Answer, EditBoard, OffersOf, Problem, ReviewOf
from bot.app.errors import OneAtATime, TryAgainIn
from bot.app.model import GameSnapshot, Hint, PlayerKey, Settings
from bot.app.outcomes import HintOvertaken
from bot.app.questions import ASKS_BURST, Questions
from bot.app.solver_calls import solver_review
from bot.app.solver_pool import SolverPool, Workers
from bot.app.solving import BUSY_HINT
from bot.config import ConfigError, default_solver_workers, load_config, machine_cores
from bot.i18n import SUPPORTED_LOCALES
from bot.render.game import render_game
from bot.render.replies import error_text
from bot.store.engine import Database
from core.game import DRAW, Game
from core.review import Review as GameReview
from tests.app_helpers import act
from tests.conftest import fake_hint, fake_verdict
from tests.test_service import ALICE, BOB, block_game

MALLORY = PlayerKey("test", "mallory")
#: How often each function ran, by the state or code it was given (the threads of the executor share it).
CALLS: Counter[str] = Counter()
#: Closed: the gated calls wait (a solver busy with them); set: they run.
GATE = threading.Event()
#: Set once a gated call has reached the solver.
ENTERED = threading.Event()


def counted_hint(state: str, budget: float) -> Hint:
    CALLS["hint " + state] += 1
    return fake_hint(state, budget)


def gated_hint(state: str, budget: float) -> Hint:
    CALLS["hint " + state] += 1
    ENTERED.set()
    GATE.wait(30)
    return fake_hint(state, budget)


def counted_review(state: str) -> GameReview:
    CALLS["review " + state] += 1
    return solver_review(state)


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    CALLS.clear()
    GATE.set()
    ENTERED.clear()
    yield
    GATE.set()


@pytest.fixture
async def counted(database: Database) -> AsyncIterator[App]:
    with ThreadPoolExecutor(4) as executor:
        async with App(database, executor=executor, hint_function=counted_hint, verdict_function=fake_verdict,
                       review_function=counted_review) as app:
            yield app


@pytest.fixture
async def gated(database: Database) -> AsyncIterator[App]:
    with ThreadPoolExecutor(4) as executor:
        async with App(database, executor=executor, hint_function=gated_hint, verdict_function=fake_verdict,
                       review_function=counted_review, hint_budget=30) as app:
            yield app


def hint_calls() -> int:
    return sum(count for key, count in CALLS.items() if key.startswith("hint "))


async def started(app: App, player: PlayerKey) -> GameSnapshot:
    return await app.starts.new_game(player, player.user_id)


# --- the turn order ------------------------------------------------------------------------------------------------


async def test_waiting_calls_are_served_in_turn_by_owner_not_first_come_first_served() -> None:
    order: list[str] = []
    lock = threading.Lock()

    def job(name: str) -> str:
        GATE.wait(30)
        with lock:
            order.append(name)
        return name

    GATE.clear()
    with ThreadPoolExecutor(1) as executor:
        pool = SolverPool(executor, Workers(interactive=1, background=1))
        flood = [asyncio.ensure_future(pool.run_for("mallory", "interactive", 30, 30, job, f"m{i}")) for i in range(4)]
        await asyncio.sleep(0)
        honest = asyncio.ensure_future(pool.run_for("bob", "interactive", 30, 30, job, "b"))
        await asyncio.sleep(0)
        GATE.set()
        assert await honest == "b"
        assert [await call for call in flood] == ["m0", "m1", "m2", "m3"]
        pool.close()
    # mallory's first call had the worker already; bob's came next, before the rest of mallory's
    assert order == ["m0", "b", "m1", "m2", "m3"]


async def test_a_call_no_worker_takes_in_time_is_dropped_and_never_run() -> None:
    ran: list[str] = []

    def job(name: str) -> str:
        GATE.wait(30)
        ran.append(name)
        return name

    GATE.clear()
    with ThreadPoolExecutor(1) as executor:
        pool = SolverPool(executor, Workers(interactive=1, background=1))
        busy = asyncio.ensure_future(pool.run_for("alice", "interactive", 30, 30, job, "first"))
        await asyncio.sleep(0)
        assert await pool.run_for("bob", "interactive", 0.01, 30, job, "dropped") is None
        GATE.set()
        assert await busy == "first"
        pool.close()
    assert ran == ["first"]


# --- one question at a time, answers kept -------------------------------------------------------------------------


async def test_a_repeated_hint_joins_the_one_being_worked_out_and_another_question_is_one_at_a_time(
        gated: App) -> None:
    finished = await block_game(gated, ALICE)
    game = await started(gated, ALICE)
    GATE.clear()
    asks = [asyncio.ensure_future(gated.advice.hint(ALICE, game.game_id, game.version)) for _ in range(5)]
    assert await asyncio.to_thread(ENTERED.wait, 30)  # the first ask has reached the solver
    with pytest.raises(OneAtATime):  # another question while the hint is being worked out
        await gated.advice.review(ALICE, finished)
    GATE.set()
    answers = await asyncio.gather(*asks)
    assert hint_calls() == 1  # five taps, one solver call
    assert {answer.hint for answer in answers if isinstance(answer, GameSnapshot)} == {
        fake_hint(game.game.to_text(), 1.0)}


async def test_a_hint_overtaken_by_a_move_says_so_and_is_not_counted(gated: App) -> None:
    """Issue 49: 💡, then a Draw before the advice came: the advice is about a position gone, so the board shows the
    game as it stands with words for just that (not the generic "that board was behind the game"); no hint used."""
    game = await started(gated, ALICE)
    alice = Actor(ALICE, "Alice", "alice-chat")
    GATE.clear()
    asked = asyncio.ensure_future(gated.flow.handle(alice, AskHint(game.game_id, game.version)))
    assert await asyncio.to_thread(ENTERED.wait, 30)  # the hint is being worked out
    drawn = await act(gated, ALICE, "Alice", Move(game.game_id, game.version, DRAW))
    assert isinstance(drawn, GameSnapshot) and drawn.version == game.version + 1
    GATE.set()
    (answer,) = await asked
    assert isinstance(answer, EditBoard) and answer.snapshot.version == drawn.version
    assert answer.snapshot.hint is None and answer.snapshot.hints_used == 0
    assert answer.notice is not None and isinstance(answer.notice.error, HintOvertaken)
    assert error_text(answer.notice.error, "en") == "You moved before the hint came: tap 💡 again"
    for locale in SUPPORTED_LOCALES:  # in every language, with the Hint button's icon
        assert "💡" in error_text(answer.notice.error, locale)


async def test_the_same_hint_or_review_asked_again_is_answered_from_memory(counted: App) -> None:
    game = await started(counted, ALICE)
    first = await act(counted, ALICE, "Alice", game_command(game.game_id, game.version, "h"))
    again = await act(counted, ALICE, "Alice", game_command(game.game_id, game.version, "h"))
    assert isinstance(first, GameSnapshot) and isinstance(again, GameSnapshot)
    assert again.hint == first.hint and hint_calls() == 1
    assert again.hints_used == first.hints_used == 1  # one position, one hint counted, as before
    finished = await block_game(counted, BOB)
    reviews = [await counted.advice.review(BOB, finished) for _ in range(3)]
    assert reviews[0] is not None and reviews.count(reviews[0]) == 3
    assert sum(count for key, count in CALLS.items() if key.startswith("review ")) == 1


# --- a flood ------------------------------------------------------------------------------------------------------


async def test_a_flood_from_one_player_does_not_change_another_players_answers(counted: App) -> None:
    flow = counted.flow
    finished = await block_game(counted, MALLORY)
    mallory_game = await started(counted, MALLORY)
    mallory = Actor(MALLORY, "Mallory", "mallory-chat")
    flood = [AskHint(mallory_game.game_id, mallory_game.version), OpenLink(f"review-{finished}"), Invite()] * 30
    bob_game = await started(counted, BOB)
    answers = await asyncio.gather(*(flow.handle(mallory, command) for command in flood),
                                   flow.handle(Actor(BOB, "Bob", "bob-chat"),
                                               AskHint(bob_game.game_id, bob_game.version)))
    (bob_answer,) = answers[-1]
    assert isinstance(bob_answer, EditBoard) and bob_answer.snapshot.hint == fake_hint(
        bob_game.game.to_text(), 1.0)
    # what the solver says of his position, as without the flood: not busy, counted
    assert not bob_answer.snapshot.hint.busy and bob_answer.snapshot.hints_used == 1
    # mallory's flood got answers (her hint, her review, her offers), the polite refusals, or past her share nothing
    assert [] in answers[:-1]
    for effects in answers[:-1]:
        if not effects:
            continue
        answer = effects[0]
        assert isinstance(answer, EditBoard | Answer)
        if isinstance(answer, Answer) and isinstance(answer.content, Problem):
            assert isinstance(answer.content.error, OneAtATime | TryAgainIn), answer.content.error
        else:
            assert isinstance(answer, EditBoard) or isinstance(answer.content, ReviewOf | OffersOf)
    assert CALLS["hint " + mallory_game.game.to_text()] <= 1


# --- busy, not "nothing to suggest"; a player asking too much -----------------------------------------------------


def test_busy_reads_differently_from_nothing_to_suggest_in_every_language() -> None:
    game = GameSnapshot(1, 0, ALICE, "Alice", Game.from_code("TP1-E-AAAAAAB"))
    for locale in SUPPORTED_LOCALES:
        busy = render_game(replace(game, hint=BUSY_HINT), locale, Settings()).status
        nothing = render_game(replace(game, hint=Hint(None, None, None)), locale, Settings()).status
        assert busy and nothing and busy != nothing, locale
        assert "💡" in busy


async def test_asking_too_much_is_answered_politely_when_to_ask_again() -> None:
    now = [0.0]
    questions = Questions(burst=2, refill_seconds=3.0, clock=lambda: now[0])

    async def answer() -> str:
        return "an answer"

    assert await questions.ask(ALICE, "one", answer) == "an answer"
    assert await questions.ask(ALICE, "two", answer) == "an answer"
    assert await questions.ask(ALICE, "one", answer) == "an answer"  # known: free
    with pytest.raises(TryAgainIn) as refused:
        await questions.ask(ALICE, "three", answer)
    assert refused.value.seconds == 3
    assert await questions.ask(BOB, "three", answer) == "an answer"  # another player's share is their own
    now[0] = 3.0
    assert await questions.ask(ALICE, "three", answer) == "an answer"
    assert error_text(TryAgainIn(3), "en") == "Too many requests in a short time; try again in 3 seconds"
    assert error_text(TryAgainIn(1), "en") == "Too many requests in a short time; try again in 1 second"
    assert error_text(TryAgainIn(3), "uk") == ("Забагато запитів за короткий час; спробуйте ще раз через 3 "
                                               "секунди")
    assert error_text(TryAgainIn(5), "pl").endswith("za 5 sekund")
    texts = {error_text(OneAtATime(), locale) for locale in SUPPORTED_LOCALES}
    assert len(texts) == len(SUPPORTED_LOCALES)  # each language its own words


# --- how many workers -----------------------------------------------------------------------------------------------


def test_the_solver_workers_come_from_the_settings_or_the_machines_cores() -> None:
    interactive, background = default_solver_workers(machine_cores())
    assert (load_config({}).solver_workers, load_config({}).solver_background_workers) == (interactive, background)
    assert default_solver_workers(2) == (1, 1)  # this machine: one core for the bot, one for the players
    assert default_solver_workers(16) == (15, 5)
    chosen = load_config({"SOLVER_WORKERS": "6", "SOLVER_BACKGROUND_WORKERS": "2"})
    assert (chosen.solver_workers, chosen.solver_background_workers) == (6, 2)
    for bad in ("0", "many", "-1", "1.5"):
        with pytest.raises(ConfigError) as error:
            load_config({"SOLVER_WORKERS": bad})
        assert str(error.value) == f"SOLVER_WORKERS must be a whole number from 1 to 256, not {bad!r}"


async def test_a_player_sending_solver_commands_too_fast_is_told_once_then_not_answered(counted: App) -> None:
    counted.questions.clock = lambda: 100.0  # no time passes: nothing refills
    game = await started(counted, MALLORY)
    mallory = Actor(MALLORY, "Mallory", "mallory-chat")
    hint = AskHint(game.game_id, game.version)
    answers = [await counted.flow.handle(mallory, hint) for _ in range(ASKS_BURST + 3)]
    assert all(isinstance(effects[0], EditBoard) for effects in answers[:ASKS_BURST])  # within her share
    (told,) = answers[ASKS_BURST]
    assert isinstance(told, Answer) and isinstance(told.content, Problem)
    assert isinstance(told.content.error, TryAgainIn)
    assert answers[ASKS_BURST + 1:] == [[], []]  # then nothing: a flood costs the bot no message
    # another player's commands are his own
    bob_game = await started(counted, BOB)
    (bob_answer,) = await counted.flow.handle(Actor(BOB, "Bob", "bob-chat"), AskHint(bob_game.game_id, 0))
    assert isinstance(bob_answer, EditBoard) and bob_answer.snapshot.hint is not None

