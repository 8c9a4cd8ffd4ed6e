"""The load bench's own correctness checker (bench/load.py): a tiny run finds nothing lost or doubled, and the
check really catches a stored game that differs from what its player was told. No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.flood import run_flood  # noqa: E402
from bench.load import compare, run_once, run_telegram  # noqa: E402
from core.deal import GameCode, Rules  # noqa: E402
from core.game import DRAW, Game, Tap  # noqa: E402


async def test_a_tiny_run_loses_and_doubles_nothing() -> None:
    result = await run_once("sqlite", 20, 40.0, 2.0, 1, 1, "")
    assert result["taps"] > 0
    assert result["errors"] == 0
    assert result["lost"] == result["doubled"] == result["mismatched"] == 0
    assert result["consistent"]


async def test_the_check_catches_a_game_changed_behind_the_service() -> None:
    result = await run_once("sqlite", 20, 40.0, 2.0, 1, 1, "", tamper=True)
    assert result["doubled"] == 1
    assert not result["consistent"]


def _played(actions: int) -> tuple[Game, list[str]]:
    game = Game.from_code(GameCode(Rules.EASY, 12345))
    done: list[str] = []
    for _ in range(actions):
        action = next((a for a in game.legal_actions() if isinstance(a, Tap)), DRAW)
        game.push(action)
        done.append(str(action))
    return game, done


def test_compare_counts_lost_doubled_and_mismatched_actions() -> None:
    game, acked = _played(6)
    assert compare(game.to_text(), 6, "playing", True, acked).consistent
    # the stored game lacks the last acknowledged action
    shorter, _ = _played(5)
    assert compare(shorter.to_text(), 5, "playing", True, acked).lost == 1
    # one more action stored than acknowledged
    assert compare(game.to_text(), 6, "playing", True, acked[:-1]).doubled == 1
    # the version disagrees with the actions applied
    assert compare(game.to_text(), 7, "playing", True, acked).mismatched == 1
    # a failed tap that did commit is neither lost nor doubled
    assert compare(game.to_text(), 6, "playing", True, acked[:-1], uncertain=acked[-1]).consistent


async def test_a_tiny_telegram_run_answers_every_tap_and_loses_nothing() -> None:
    # end to end: the bot's own process polling the fake Bot API, players pressing the game message's buttons
    result = await run_telegram("sqlite", 4, 8.0, 2.0, 1, "")
    assert result["mode"] == "telegram"
    assert result["taps"] > 0
    assert result["unanswered"] == 0
    assert result["errors"] == 0, result["error_kinds"]
    assert result["lost"] == result["doubled"] == result["mismatched"] == 0
    assert result["consistent"]


async def test_a_tiny_flood_run_measures_every_tap_and_meets_no_429() -> None:
    """bench/load.py --telegram --flood in small: every tap found shown by an edit of its board (at most one edit a
    tap), and the bot within Telegram's limits."""
    (row,) = await run_flood(4, 1, scenarios=(("group", 1, 1.0),))
    assert row["chat"] == "group" and row["taps"] == 4
    assert 1 <= row["edits"] <= 4 and row["flood_429"] == 0
    assert 0 <= row["p50_s"] <= row["p99_s"] <= row["max_s"]
