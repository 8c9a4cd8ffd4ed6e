"""Issue 43, point 9: a daily attempt never played ranks after every played one, and a name keeps no invisible
characters (a name of nothing visible is no name: the leaderboard shows its neutral placeholder)."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.app.assembly import App
from bot.app.codec import game_command
from bot.app.daily import DailyResult, rank
from bot.app.model import PlayerKey, clean_name
from bot.render.replies import render_leaderboard
from core.deal import GameCode
from core.game import DRAW
from tests.app_helpers import act
from tests.core_helpers import winning_line

WIN_CODE = "TP1-E-AAAAAAC"  # won by the solver's winning line
DAY = dt.date(2026, 12, 3)
GROUP = "-100"


@pytest.mark.parametrize(("given", "kept"), [
    ("Ali\u200bce", "Alice"),  # zero-width space
    ("Ali\u200dce", "Alice"),  # a joiner between letters joins nothing
    ("\ufeffBob\u00ad", "Bob"),  # byte-order mark, soft hyphen
    ("\u2066Eve\u2069 \u202eX", "Eve X"),  # bidi isolates and override
    ("\u200b", ""),  # nothing visible: no name
    (" \u200b \u3164 \u2800 \ufe0f", ""),  # blank fillers and a lone variation selector
    ("\U0001f468\u200d\U0001f469\u200d\U0001f467 Kim", "\U0001f468\u200d\U0001f469\u200d\U0001f467 Kim"),
    ("\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f3f3\ufe0f\u200d\U0001f308"),  # the rainbow flag stays one emoji
])
def test_a_name_loses_its_invisible_characters(given: str, kept: str) -> None:
    assert clean_name(given) == kept


def test_an_attempt_never_played_ranks_after_every_played_one() -> None:
    t = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)

    def result(name: str, score: int, moves: int, *, won: bool = False, finished: bool = True) -> DailyResult:
        return DailyResult(name, name, score, moves, won, hints=0, undos=0, seconds=60, finished_at=t,
                           finished=finished)

    results = [result("untouched", 500, 0, finished=False), result("abandoned-untouched", 500, 0),
               result("lost", 480, 20), result("won", 610, 40, won=True), result("barely", 499, 1)]
    assert [r.name for r in rank(results)] == ["won", "barely", "lost", "untouched", "abandoned-untouched"]


async def test_the_leaderboard_ranks_untouched_attempts_last_and_shows_clean_names(service: App) -> None:
    service.daily_codes.clock = lambda: dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
    service.daily_codes.function = lambda day, secret: GameCode.parse(WIN_CODE)
    players = {name: PlayerKey("telegram", str(n)) for n, name in enumerate(
        ["Ali\u200bce", "\u200b", "Bob", "Carol"], start=1)}
    attempts = {name: await service.starts.new_daily_game(player, name, DAY, chat_id=GROUP, community=GROUP)
                for name, player in players.items()}
    snapshot = attempts["Ali\u200bce"]
    for action in winning_line(WIN_CODE):
        snapshot = await act(service, players["Ali\u200bce"], "Ali\u200bce",
                                     game_command(snapshot.game_id, snapshot.version, str(action)))
    drawn = attempts["Bob"]
    await act(service, players["Bob"], "Bob", game_command(drawn.game_id, drawn.version, str(DRAW)))
    await service.starts.new_game(players["Bob"], "Bob")  # bob's attempt ends abandoned, played and not won: 499
    await service.starts.new_game(players["Carol"], "Carol")  # carol's ends abandoned without a move: 500

    board = await service.leaderboards.of("telegram", GROUP, DAY)
    assert [(r.name, r.score, r.moves) for r in board] == [
        ("Alice", snapshot.game.score, snapshot.game.moves), ("Bob", 499, 1), ("", 500, 0), ("Carol", 500, 0)]
    shown = render_leaderboard(DAY, board, "en").status
    assert shown is not None
    assert "1. Alice\n" in shown and "3. ?" in shown
    assert not any(ch in shown for ch in "\u200b\u200d\ufeff")
