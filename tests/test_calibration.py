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
from core.game import DRAW, Game  # noqa: E402


def test_the_shipped_table_is_monotone_and_covers_every_rule_set_and_stage() -> None:
    table = shipped()
    assert table.is_monotone()
    # stage 0: the deal as dealt; then one stage for each edge
    assert set(table.steps) == {(rules.value, stage) for rules in Rules for stage in range(len(EDGES) + 1)}
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
    # raw 1.0 won 4 of 4. Each stage of the game (here: the deal as dealt, then 12 unseen cards or more, fewer) is
    # fitted on its own.
    points = [(0.0, False)] + [(0.5, True)] * 3 + [(0.5, False)] + [(0.8, True)] + [(0.8, False)] * 3
    decisions = [Decision(Rules.CLASSIC, raw, 20, 10, won) for raw, won in points + [(1.0, True)] * 4]
    decisions.append(Decision(Rules.CLASSIC, 0.9, 0, 2, False))
    decisions += [Decision(Rules.CLASSIC, 1.0, 23, 18, won, start=True) for won in (True, False, False)]
    table = fit(decisions, (12, 0), min_block=1)
    assert table.steps == {("classic", 0): ((1.0, 0.3333),), ("classic", 1): ((0.0, 0.0), (0.8, 0.5), (1.0, 1.0)),
                           ("classic", 2): ((0.9, 0.0),)}
    assert table.is_monotone()
    assert [table.chance(raw, Rules.CLASSIC, 20, 10) for raw in (0.0, 0.3, 0.5, 0.8, 0.81, 1.0)] == [
        0.0, 0.5, 0.5, 0.5, 1.0, 1.0]
    # the same raw share and unseen cards at the start of a deal: a third of those games were won
    assert table.chance(1.0, Rules.CLASSIC, 23, 18, start=True) == 0.3333
    assert table.chance(1.0, Rules.CLASSIC, 23, 18) == 1.0
    assert table.chance(0.7, Rules.EASY, 20, 10) == 0.7  # no data: the raw share
    with pytest.raises(ValueError):
        fit(decisions, (0, 12))
    # steps of at least 4 decisions: raw 0 joins raw 0.5 (4 of 5), then raw 0.8 falls below and is pooled (4 of 9)
    assert fit(decisions, (12, 0), min_block=4).steps[("classic", 1)] == ((0.8, 0.4444), (1.0, 1.0))


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-C-AAAAAAD"])
@pytest.mark.parametrize("removals", [0, 1])
def test_the_advisor_shows_the_calibrated_chance(code: str, removals: int) -> None:
    game = Game.from_code(code)
    game.push(DRAW)  # a draw leaves the game at its start
    while game.removed.bit_count() < removals:
        taps = VisiblePosition.of(game).legal_taps()
        game.push(taps[0] if taps else DRAW)
    seen = VisiblePosition.of(game)
    start = removals == 0  # the start, no card removed yet, has a stage of its own
    advice = advise(seen, samples=8)
    assert advice.raw_chance is not None and advice.win_chance is not None
    assert advice.win_chance == shipped().chance(advice.raw_chance, seen.rules, seen.stock_left,
                                                 len(seen.face_down_slots()), start=start)
    assert advice.win_chance == shown_chance(advice.raw_chance, seen.rules, seen.stock_left,
                                             len(seen.face_down_slots()), certain=False, start=start)
    assert shown_chance(0.25, seen.rules, 0, 0, certain=True) == 0.25  # every arrangement solved: the exact share
