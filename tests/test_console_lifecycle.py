"""The console's side of a game never lost by a tap: starting another game asks first (y / k), a finished game
offers Replay, Review and Share, a card played by name is acknowledged, and the new errors are worded.

Each test drives :class:`bot.adapters.console.ConsoleChat` line by line with a real service on a temporary SQLite
database (the stand-in solver of ``conftest`` for hints and verdicts; the real one for the review).
"""

from __future__ import annotations

import io

import pytest

from bot.adapters.console import ConsoleChat
from bot.app.assembly import App
from core.deal import GameCode, Rules
from core.game import Draw, Game, Status
from core.solver import solve


@pytest.fixture
def backend() -> str:
    """The console runs on SQLite: these tests need no other database."""
    return "sqlite"


class Session:
    def __init__(self, service: App) -> None:
        self.out = io.StringIO()
        self.chat = ConsoleChat(service.flow, user_id="ann", name="ann", platform_locale="en", out=self.out)
        self.service = service

    async def open(self) -> str:
        """What the console prints at the start: the player's game, or a new deal."""
        self.chat.settings = await self.service.players.get_settings(self.chat.player)
        current = await self.service.games.current_game(self.chat.player)
        await self.chat._show_game(current or await self.service.starts.new_game(self.chat.player, "ann"))
        return self.take()

    async def say(self, *lines: str) -> str:
        """Type ``lines``; what the console printed in answer."""
        for line in lines:
            assert await self.chat.handle(line)
        return self.take()

    def take(self) -> str:
        text = self.out.getvalue()
        self.out.seek(0)
        self.out.truncate()
        return text


def card_names(code: str, line: list[object]) -> list[str]:
    game = Game.from_code(code)
    names = []
    for action in line:
        names.append("d" if isinstance(action, Draw) else str(game.card_at(action.slot)).lower())  # type: ignore[attr-defined]
        game.apply(action)  # type: ignore[arg-type]
    return names


async def test_new_game_asks_before_abandoning_a_game_with_moves(service: App) -> None:
    s = Session(service)
    await s.open()
    await s.say("new TP1-E-AAAAAAB")
    out = await s.say("kh")  # K♥ on the A♣: a move, so the game now counts
    assert out.startswith("You played K♥\n") and "Score: 499 · Moves: 1" in out
    asked = await s.say("new")
    assert "Start a new game?" in asked
    assert "Your game in progress (TP1\u2011E\u2011AAAAAAB, score 499, 1 move) will be abandoned" in asked
    assert "[y] Yes, start!" in asked and "[c] Keep playing>" in asked
    kept = await s.say("c")
    assert kept.startswith("Your game goes on") and "TP1-E-AAAAAAB" in kept and "Moves: 1" in kept
    # y now answers nothing: the question was answered
    assert "Type a card" in await s.say("y")
    asked = await s.say("new TP1-C-AAAAAAI")
    assert "Start TP1\u2011C\u2011AAAAAAI?" in asked
    started = await s.say("y")
    assert "TP1-C-AAAAAAI · Classic" in started and "Moves: 0" in started
    current = await service.games.current_game(s.chat.player)
    assert current is not None and str(current.game.code) == "TP1-C-AAAAAAI"
    # a deal with no move is left without a question
    assert "TP1-E-AAAAAAD · Easy" in await s.say("new TP1-E-AAAAAAD")


async def test_the_new_game_key_asks_too(service: App) -> None:
    s = Session(service)
    await s.open()
    await s.say("new TP1-C-AAAAAAI", "d")
    asked = await s.say("n")
    assert "Your game in progress (TP1\u2011C\u2011AAAAAAI, score 499, 1 move) will be abandoned" in asked
    started = await s.say("y")
    assert "· Classic" in started and "Moves: 0" in started  # a new deal under the same rules
    current = await service.games.current_game(s.chat.player)
    assert current is not None and str(current.game.code) != "TP1-C-AAAAAAI"


async def test_any_other_line_drops_the_question(service: App) -> None:
    s = Session(service)
    await s.open()
    await s.say("new TP1-E-AAAAAAB", "kh")
    assert "Start a new game?" in await s.say("new")
    await s.say("d")  # another line: the question is dropped, the game goes on
    assert "Type a card" in await s.say("y")
    current = await service.games.current_game(s.chat.player)
    assert current is not None and current.game.moves == 2


async def test_a_won_game_offers_replay_review_and_share(service: App) -> None:
    code = "TP1-E-AAAAAAC"
    solution = solve(Game.from_code(code), best=True)
    assert solution.line is not None
    s = Session(service)
    await s.open()
    await s.say(f"new {code}")
    out = await s.say(*card_names(code, list(solution.line)))
    board = out.split("You played")[-1]
    assert "You won! Final score" in board
    assert "[s] Share  [r] Replay  [v] Review  [n] New game>" in board
    review = await s.say("v")
    assert review.startswith(f"Review: {code}")
    assert "The best possible score!" in review and "Longest chain:" in review
    shared = await s.say("s")
    assert f"TriPeaks {code}: score {solution.best_score}, peaks 3/3" in shared
    assert f"Play this deal: tripeaks console → new {code}" in shared
    replay = await s.say("r")  # the finished game is no game in progress: no question
    assert f"{code} · Easy" in replay and "Moves: 0" in replay


async def test_a_blocked_game_offers_undo_share_review_replay_and_new_game(service: App) -> None:
    for number in range(1000):
        game = Game.from_code(GameCode(Rules.CLASSIC, number))
        for _ in range(23):
            game.apply(Draw())
        if game.status is Status.BLOCKED:
            break
    code = str(game.code)
    s = Session(service)
    await s.open()
    await s.say(f"new {code}")
    out = await s.say(*["d"] * 23)
    assert out.rstrip().endswith("[u] Undo  [s] Share  [v] Review  [r] Replay  [n] New game>")
    review = await s.say("v")
    assert review.startswith(f"Review: {code}") and "Final score: 477" in review
    asked = await s.say("r")  # replaying a finished game asks nothing
    assert f"{code} · Classic" in asked and "Moves: 0" in asked


async def test_replay_review_and_share_keys_need_a_finished_game(service: App) -> None:
    s = Session(service)
    await s.open()
    await s.say("new TP1-E-AAAAAAB")
    for key in ("r", "v", "s"):
        assert "Type a card" in await s.say(key)


async def test_cards_by_name_and_the_new_errors(service: App) -> None:
    s = Session(service)
    await s.open()
    await s.say("new TP1-E-AAAAAAB")
    hidden = Game.from_code("TP1-E-AAAAAAB").card_at(0)  # a top card, face down
    out = await s.say(str(hidden))
    assert out.strip() == "That card is not in play yet"
    assert str(hidden.symbol()) not in out  # nothing hidden is revealed
    assert (await s.say("zz")).strip() == "That is not a card: write one like 7h = 7♥ or QS = Q♠ (h ♥, d ♦, c ♣, s ♠)"
    refused = await s.say("8s")
    assert refused.startswith("8♠ was not played. Must be one rank higher or lower\n")


async def test_q_and_k_alone_are_ranks_and_quit_is_a_word(service: App) -> None:
    """Issue 43: no key of the console is a rank. A rank alone plays the one free card of that rank, q and k as a
    and j do (q used to quit, k to print the help); quit and exit end the game."""
    s = Session(service)
    await s.open()
    await s.say("new TP1-E-AAAAAAB")
    game = Game.from_code("TP1-E-AAAAAAB")
    free = [game.card_at(slot) for slot in game.playable_slots()]
    for rank in ("q", "k"):
        out = await s.say(rank)
        named = [card for card in free if card.rank.label.lower() == rank]
        if len(named) > 1:
            assert out.startswith("More than one free card has that rank"), out
        elif named:
            assert str(named[0].symbol())[:2] in out and "Type a card such as" not in out, out
        else:
            assert out.strip() == "That card is not in play yet", out
    assert await s.chat.handle("c") and "Type a card such as" in s.take()  # c answers only a question
    assert not await s.chat.handle("quit") and not await s.chat.handle("exit")


async def test_the_settings_toggle_winnable_only(service: App) -> None:
    s = Session(service)
    await s.open()
    out = await s.say("settings")
    assert "[winnable] Only winnable: off" in out and "winnable deals: off" not in out  # said once, on its button
    out = await s.say("winnable")
    assert "[winnable] ✓ Only winnable: on*" in out
    settings = await service.players.get_settings(s.chat.player)
    assert settings.winnable_only is True


async def test_the_console_follows_the_table(service: App) -> None:
    """Issue 54: moves made at the table in the browser (the same game, through the same door) showed nowhere on
    Enter, and ``d`` after a New game there answered only "That board is from an older game"."""
    from bot.app.codec import game_command
    from bot.app.commands import Actor, ConfirmStart, NewGame
    from bot.app.effects import Answer, Question

    session = Session(service)
    await session.service.starts.new_game(session.chat.player, "ann", code="TP1-E-AAAAAAB")
    first = await session.open()
    assert "23" in first  # the stock's count before any draw
    assert await session.say("") == ""  # the game on screen as it stands: nothing printed again
    table = Actor(session.chat.player, "ann")
    current = await service.games.current_game(session.chat.player)
    assert current is not None
    await service.flow.handle(table, game_command(current.game_id, current.version, "d"))  # a draw at the table
    again = await session.say("")
    assert "22" in again and "Moves: 1" in again, again
    moved = await service.games.current_game(session.chat.player)
    assert moved is not None
    answer = await service.flow.handle(table, NewGame(moved.game_id, moved.version))  # New game at the table
    (question,) = answer
    assert isinstance(question, Answer) and isinstance(question.content, Question)
    await service.flow.handle(table, ConfirmStart(moved.game_id, question.content.request))
    newer = await service.games.current_game(session.chat.player)
    assert newer is not None and newer.game_id != moved.game_id
    said = await session.say("d")
    assert "That board is from an older game" in said and "Moves: 0" in said, said
    assert session.chat.snapshot is not None and session.chat.snapshot.game_id == newer.game_id
    drew = await session.say("d")  # and d now draws in the new game
    assert "Moves: 1" in drew and session.chat.snapshot.game_id == newer.game_id, drew
