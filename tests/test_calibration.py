"""The hint's shown chance: the shipped calibration table is monotone, is what bench/calibrate.py fits on the stored
pairs, and is the chance the advisor shows."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.calibrate import EDGES, PAIRS, read_pairs, table_text  # noqa: E402
from core.advisor import VisiblePosition, advise, shown_chance  # noqa: E402
from core.calibration import Calibration, Decision, fit, shipped  # noqa: E402
from core.deal import Rules  # noqa: E402
from core.game import Game  # noqa: E402


def test_the_shipped_table_is_monotone_and_covers_every_rule_set_and_stage() -> None:
    table = shipped()
    assert table.is_monotone()
    assert set(table.steps) == {(rules.value, stage) for rules in Rules for stage in range(len(EDGES))}
    assert table.edges == EDGES


def test_the_shipped_table_is_the_fit_of_the_stored_pairs() -> None:
    decisions = read_pairs(PAIRS)
    assert len(decisions) >= 5000 and {d.rules for d in decisions} == set(Rules)
    assert fit(decisions, EDGES) == shipped()


def test_a_written_table_reads_back_the_same() -> None:
    table = fit(read_pairs(PAIRS), EDGES)
    space: dict[str, object] = {}
    exec(table_text(table), space)  # the module bench/calibrate.py writes
    assert Calibration(space["EDGES"], space["STEPS"]) == table  # type: ignore[arg-type]


def test_the_fit_is_the_observed_rate_made_monotone() -> None:
    # Raw 0 lost its one game; raw 0.5 won 3 of 4, raw 0.8 won 1 of 4: a fall, pooled into one step of 4 in 8;
    # raw 1.0 won 4 of 4. Each stage of the game (here: 12 unseen cards or more, fewer) is fitted on its own.
    points = [(0.0, False)] + [(0.5, True)] * 3 + [(0.5, False)] + [(0.8, True)] + [(0.8, False)] * 3
    decisions = [Decision(Rules.CLASSIC, raw, 20, 10, won) for raw, won in points + [(1.0, True)] * 4]
    decisions.append(Decision(Rules.CLASSIC, 0.9, 0, 2, False))
    table = fit(decisions, (12, 0), min_block=1)
    assert table.steps == {("classic", 0): ((0.0, 0.0), (0.8, 0.5), (1.0, 1.0)), ("classic", 1): ((0.9, 0.0),)}
    assert table.is_monotone()
    assert [table.chance(raw, Rules.CLASSIC, 20, 10) for raw in (0.0, 0.3, 0.5, 0.8, 0.81, 1.0)] == [
        0.0, 0.5, 0.5, 0.5, 1.0, 1.0]
    assert table.chance(0.7, Rules.EASY, 20, 10) == 0.7  # no data: the raw share
    with pytest.raises(ValueError):
        fit(decisions, (0, 12))
    # steps of at least 4 decisions: raw 0 joins raw 0.5 (4 of 5), then raw 0.8 falls below and is pooled (4 of 9)
    assert fit(decisions, (12, 0), min_block=4).steps[("classic", 0)] == ((0.8, 0.4444), (1.0, 1.0))


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-C-AAAAAAD"])
def test_the_advisor_shows_the_calibrated_chance(code: str) -> None:
    seen = VisiblePosition.of(Game.from_code(code))
    advice = advise(seen, samples=8)
    assert advice.raw_chance is not None and advice.win_chance is not None
    assert advice.win_chance == shipped().chance(advice.raw_chance, seen.rules, seen.stock_left,
                                                 len(seen.face_down_slots()))
    assert advice.win_chance == shown_chance(advice.raw_chance, seen.rules, seen.stock_left,
                                             len(seen.face_down_slots()), certain=False)
    assert shown_chance(0.25, seen.rules, 0, 0, certain=True) == 0.25  # every arrangement solved: the exact share
