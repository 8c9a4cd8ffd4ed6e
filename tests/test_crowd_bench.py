"""bench/crowd.py runs: a tiny crowd through every phase, with the real bot process and solver on the fake Bot API.
What it checks is that the bench measures what it says (every honest hint accounted for, the flood sent, the
capacity run answering hints), never how fast: the figures are the bench's to print."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.crowd import PHASES, run, show  # noqa: E402
from tests.conftest import POSTGRES_URL, PostgresServer  # noqa: E402

pytestmark = pytest.mark.timeout(240)
ONE_PROCESS = {"processes": 1, "db": "sqlite", "postgres_url": None}


async def test_a_tiny_crowd_bench_runs_every_phase_and_accounts_for_every_hint() -> None:
    args = argparse.Namespace(players=2, period=0.5, hint_every=2, phase=1.5, flood=15.0, workers=1,
                              capacity_players=1, seed=1, table_flood=None, files=None, **ONE_PROCESS)
    result = await run(args)
    assert result["errors"] == 0, result["error_kinds"]
    assert result["consistent"] and result["games_checked"] >= 4  # 2 honest, the hostile's 2, the capacity one's
    assert result["flood_sent"] > 0
    for name in PHASES:
        phase = result[name]
        assert phase["taps"] > 0 and phase["hints"] > 0, (name, phase)
        answered = phase["hints_answered_share"] * phase["hints"]
        accounted = answered + phase["hints_busy"] + phase["hints_refused"] + phase["hints_failed"]
        assert round(accounted) == phase["hints"], (name, phase)
    assert result["capacity_hints_per_s"] > 0
    assert "hints/s sustained" in show(result)


@pytest.mark.parametrize("kind", ["streams", "requests"])
async def test_a_tiny_table_flood_reaches_the_bots_table_and_is_answered(kind: str) -> None:
    """The hostile account's streams or requests reach the table the bot's process serves (with systemd's default
    of open files), and each is answered: taken, or refused with a status (past its share, past the caps)."""
    args = argparse.Namespace(players=2, period=0.5, hint_every=2, phase=1.5, flood=40.0, workers=1,
                              capacity_players=1, seed=1, table_flood=kind, files=1024, **ONE_PROCESS)
    result = await run(args)
    assert result["errors"] == 0, result["error_kinds"]
    answers = result["flood_answers"]
    assert sum(answers.values()) == result["flood_sent"] > 0, answers
    assert answers.get("200", 0) > 0 and set(answers) <= {"200", "429"}, answers
    assert f"table {kind} flood" in show(result)


@pytest.mark.postgres
async def test_a_tiny_crowd_across_two_processes_loses_and_doubles_nothing(postgres_server: PostgresServer) -> None:
    """Two bot processes on one PostgreSQL database behind the bench's balancer, each player's updates reaching
    both: every game read back matches the taps acknowledged, and the table's flood is answered by both."""
    args = argparse.Namespace(players=2, period=0.5, hint_every=2, phase=1.5, flood=40.0, workers=1,
                              capacity_players=1, seed=1, table_flood="requests", files=None, processes=2,
                              db="postgres", postgres_url=POSTGRES_URL.set(database="postgres").render_as_string(
                                  hide_password=False))
    result = await run(args)
    assert result["consistent"] and result["games_checked"] >= 4 and result["lost"] == result["doubled"] == 0
    assert result["errors"] == 0, result["error_kinds"]
    answers = result["flood_answers"]
    assert sum(answers.values()) == result["flood_sent"] > 0 and answers.get("200", 0) > 0, answers
    assert "2 bot process(es)" in show(result)
