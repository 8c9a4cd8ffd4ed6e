"""The fair advisor: it sees only what the player sees, and where nothing is hidden it agrees with the solver.

Every test here runs twice, on the native kernel and on the pure solver (the fixture of tests/test_solver.py): the
advisor solves its samples with whichever runs."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.advisor import Advice, SlotState, VisiblePosition, advise
from core.cards import Card
from core.deal import Deal, Rules
from core.errors import GameOverError, InvalidLayoutError
from core.game import DRAW, Draw, Game, Status, Tap
from core.layout import SLOT_COUNT
from core.solver import solve
from tests.core_helpers import BOTTOM_UP_ORDER, cyclic_win_deal, make_deal, zigzag_win_deal
from tests.test_solver import solver_kind  # noqa: F401  (autouse: each test on the kernel, then the pure solver)

RULES = [Rules.EASY, Rules.CLASSIC]


def played(number: int, rules: Rules, steps: int, seed: int) -> Game:
    """Deal ``number`` after up to ``steps`` random removals and draws (stopping before the game ends)."""
    rng = random.Random(seed)
    game = Game(Deal.from_number(number), rules)
    for _ in range(steps):
        choices = [a for a in game.legal_actions() if isinstance(a, Tap | Draw)]
        trial = game.copy()
        action = rng.choice(choices)
        trial.push(action)
        if trial.status is not Status.PLAYING:
            break
        game.push(action)
    return game


def hidden_cards(game: Game) -> list[Card]:
    """The cards the player cannot see: face down in the tableau, or still in the stock."""
    down = [game.card_at(s) for s in range(SLOT_COUNT) if not game.is_removed(s) and not game.is_face_up(s)]
    return down + list(game.deal.stock[game.drawn:])


def with_hidden_cards_permuted(game: Game, rng: random.Random) -> Game:
    """The same game, the same actions, with the face-down cards and the stock still to come shuffled together."""
    tableau = list(game.deal.tableau)
    stock = list(game.deal.stock)
    places: list[tuple[list[Card], int]] = [(tableau, s) for s in range(SLOT_COUNT)
                                            if not game.is_removed(s) and not game.is_face_up(s)]
    places += [(stock, i) for i in range(game.drawn, len(stock))]
    cards = [where[index] for where, index in places]
    rng.shuffle(cards)
    for (where, index), card in zip(places, cards, strict=True):
        where[index] = card
    return Game.replay(Deal(tuple(tableau), game.deal.waste, tuple(stock)), game.rules, game.actions())


def cards_in(value: object) -> list[Card]:
    """Every card held anywhere in a value (dataclass fields, tuples), so a hidden card cannot hide in a new
    field."""
    if isinstance(value, Card):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [c for f in dataclasses.fields(value) for c in cards_in(getattr(value, f.name))]
    if isinstance(value, tuple | list | frozenset | set):
        return [c for item in value for c in cards_in(item)]
    return []


@settings(max_examples=25, deadline=None)
@given(number=st.integers(0, 10_000), rules=st.sampled_from(RULES), steps=st.integers(0, 45),
       seed=st.integers(0, 1000))
def test_the_visible_position_holds_no_hidden_card(number: int, rules: Rules, steps: int, seed: int) -> None:
    game = played(number, rules, steps, seed)
    seen = VisiblePosition.of(game)
    hidden = set(hidden_cards(game))
    assert not hidden & set(cards_in(seen))
    # what it shows is what the player sees, and the cards it does not show are exactly the hidden ones
    for slot, shown in enumerate(seen.slots):
        if game.is_removed(slot):
            assert shown is SlotState.REMOVED
        elif game.is_face_up(slot):
            assert shown == game.card_at(slot)
        else:
            assert shown is SlotState.FACE_DOWN
    assert (seen.waste, seen.stock_left, seen.rules) == (game.waste, game.stock_left, game.rules)
    assert set(seen.unseen()) == hidden and len(seen.unseen()) == len(hidden)
    assert set(seen.legal_actions()) == {a for a in game.legal_actions() if isinstance(a, Tap | Draw)}


def test_a_visible_position_that_contradicts_itself_is_refused() -> None:
    seen = VisiblePosition.of(Game.from_code("TP1-E-AAAAAAB"))
    with pytest.raises(InvalidLayoutError):
        dataclasses.replace(seen, slots=seen.slots[:-1] + (SlotState.FACE_DOWN,))  # a bottom card shown face down
    with pytest.raises(InvalidLayoutError):
        dataclasses.replace(seen, stock_left=22)  # one card unaccounted for
    with pytest.raises(InvalidLayoutError):
        dataclasses.replace(seen, out_of_play=(seen.slots[27],))  # a face-up card seen twice, the waste missing


@settings(max_examples=8, deadline=None)
@given(number=st.integers(0, 10_000), rules=st.sampled_from(RULES), steps=st.integers(8, 30),
       seed=st.integers(0, 1000))
def test_the_advice_does_not_depend_on_where_the_hidden_cards_lie(number: int, rules: Rules, steps: int,
                                                                   seed: int) -> None:
    game = played(number, rules, steps, seed)
    if game.status is not Status.PLAYING:
        return
    other = with_hidden_cards_permuted(game, random.Random(seed))
    assert hidden_cards(other) != hidden_cards(game) or len(hidden_cards(game)) < 2
    first = advise(VisiblePosition.of(game), samples=6, seed=seed, node_budget=None)
    second = advise(VisiblePosition.of(other), samples=6, seed=seed, node_budget=None)
    assert VisiblePosition.of(game) == VisiblePosition.of(other)
    assert first == second
    assert game.check(first.action) is None
    assert first.action is not None and first.win_chance is not None and first.raw_chance is not None
    assert 0.0 <= first.win_chance <= 1.0 and first.raw_chance == first.chance(first.action)


def nothing_hidden(number: int, rules: Rules, stock_left: int) -> Game | None:
    """Deal ``number`` played along a winning line until no card is face down (only tops are left), then drawn
    down to ``stock_left`` cards (0 or 1: the last card's place is no secret). None when the deal cannot be won."""
    game = Game(Deal.from_number(number), rules)
    line = solve(game).line
    if line is None:
        return None
    for action in line:
        if all(game.is_face_up(s) for s in range(SLOT_COUNT)) or game.status is not Status.PLAYING:
            break
        game.push(action)
    while game.stock_left > stock_left and game.status is Status.PLAYING:
        game.push(DRAW)
    return game if game.status is Status.PLAYING else None


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_with_nothing_hidden_the_advice_agrees_with_the_solver(rules: Rules) -> None:
    verdicts = []
    for number in range(40):
        game = nothing_hidden(number, rules, stock_left=number % 2)
        if game is None:
            continue
        advice = advise(VisiblePosition.of(game))
        winnable = bool(solve(game).winnable)
        assert advice.exact and advice.samples_used == 1
        assert advice.win_chance == advice.raw_chance == (1.0 if winnable else 0.0)  # certain: shown as it is
        after = game.copy()
        after.push(advice.action)
        assert bool(solve(after).winnable) == winnable  # a winning action whenever there is one
        for action, wins in advice.wins:  # and every action judged as the solver judges it
            trial = game.copy()
            trial.push(action)
            assert wins == int(bool(solve(trial).winnable))
        verdicts.append(winnable)
    assert len(verdicts) >= 10 and True in verdicts and False in verdicts


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_no_arrangement_wins_when_a_king_has_no_card_left_to_follow(rules: Rules) -> None:
    # A King face up in the bottom row; the four Queens (and, where King and Ace touch, the four Aces) have been
    # drawn and passed over: whatever the hidden cards are, nothing can ever come right before the King.
    followers = ["QC", "QD", "QH", "QS"] + (["AC", "AD", "AH"] if rules.wraps else [])
    game = Game(make_deal({18: "KC"}, "AS" if rules.wraps else "2S", [*followers, "5C"]), rules)
    for _ in range(len(followers) + 1):
        game.push(DRAW)
    assert game.status is Status.PLAYING
    advice = advise(VisiblePosition.of(game), samples=12)
    assert not advice.exact and advice.samples_used == 12
    assert advice.raw_chance == 0.0 and all(wins == 0 for _, wins in advice.wins)


@pytest.mark.parametrize(("deal", "rules"), [(cyclic_win_deal(), Rules.EASY), (zigzag_win_deal(), Rules.CLASSIC)],
                         ids=["cyclic-easy", "zigzag-classic"])
def test_every_arrangement_wins_when_the_last_tops_run_from_the_waste(deal: Deal, rules: Rules) -> None:
    # The deal's winning line without a draw, played until the three tops are left, face up: they follow the waste
    # and each other, so every order of the 23 unseen stock cards wins, by tapping rather than drawing.
    line = [Tap(slot) for slot in BOTTOM_UP_ORDER]
    assert Game.replay(deal, rules, line).status is Status.WON
    game = Game.replay(deal, rules, line[:-3])
    seen = VisiblePosition.of(game)
    assert len(seen.unseen()) == 23 and not seen.face_down_slots()
    advice = advise(seen, samples=12)
    assert advice.raw_chance == 1.0 and advice.samples_used == 12  # no second look: the best wins every sample
    assert advice.action == line[-3]


def test_a_finished_game_gets_no_advice() -> None:
    won = Game.replay(cyclic_win_deal(), Rules.EASY, solve(Game(cyclic_win_deal(), Rules.EASY)).line or ())
    assert won.status is Status.WON
    with pytest.raises(GameOverError):
        advise(VisiblePosition.of(won))
    blocked = next(g for g in (Game.replay(Deal.from_number(n), Rules.CLASSIC, [DRAW] * 23) for n in range(50))
                   if g.status is Status.BLOCKED)
    with pytest.raises(GameOverError):
        advise(VisiblePosition.of(blocked))


def reveals(game: Game, action: Tap | Draw) -> bool:
    """Whether ``action`` turns a face-down card face up."""
    if not isinstance(action, Tap):
        return False
    after = game.copy()
    after.push(action)
    return sum(after.is_face_up(s) for s in range(SLOT_COUNT)) > sum(game.is_face_up(s) for s in range(SLOT_COUNT))


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-E-AAAAAAD", "TP1-C-AAAAAAF"])
def test_a_tie_goes_to_a_removal_that_turns_a_card_face_up_then_any_removal_then_the_lower_slot(code: str) -> None:
    game = Game.from_code(code)
    advice = advise(VisiblePosition.of(game), samples=4, node_budget=None)
    assert isinstance(advice, Advice)
    best = max(wins for _, wins in advice.wins)
    tied = [action for action, wins in advice.wins if wins == best]
    revealing = [action for action in tied if reveals(game, action)]
    assert advice.action == (revealing or tied)[0] and (isinstance(advice.action, Tap) or len(tied) == 1)
    today = advise(VisiblePosition.of(game), samples=4, node_budget=None, prefer_reveals=False, second_look=False)
    assert today.action == tied[0] or today.wins != advice.wins


def test_a_draw_while_a_card_fits_needs_a_margin_of_samples() -> None:
    # Each sample knows the card a draw brings; a player does not. The draw is chosen over a fitting card only when it
    # wins in more samples than the best removal by more than one in 16 (at least one); otherwise the advice is the
    # same as without the margin, and so are the counts.
    changed = 0
    for number in range(13):
        for steps in (6, 12):
            game = played(number, Rules.CLASSIC, steps, number)
            if game.status is not Status.PLAYING:
                continue
            seen = VisiblePosition.of(game)
            advice = advise(seen, samples=8, seed=number, node_budget=None)
            plain = advise(seen, samples=8, seed=number, node_budget=None, draw_margin=False)
            assert advice.wins == plain.wins
            counts = dict(advice.wins)
            taps = [wins for action, wins in advice.wins if isinstance(action, Tap)]
            if not taps or DRAW not in counts:
                assert advice == plain
                continue
            margin = max(1, advice.samples_used // 16)
            assert (advice.action == DRAW) == (counts[DRAW] > max(taps) + margin)
            if advice.action != plain.action:
                assert plain.action == DRAW and isinstance(advice.action, Tap)
                assert advice.raw_chance == counts[advice.action] / advice.samples_used
                changed += 1
    assert changed >= 1


def test_a_close_call_gets_a_second_look_from_the_same_stream_of_samples() -> None:
    # Positions where the best action loses some samples and the runner-up is close get as many samples again; the
    # first samples are the same ones, so the counts only grow.
    looked = 0
    for number in range(12):
        game = played(number, Rules.CLASSIC, 12, number)
        if game.status is not Status.PLAYING:
            continue
        seen = VisiblePosition.of(game)
        once = advise(seen, samples=8, seed=number, node_budget=None, second_look=False)
        twice = advise(seen, samples=8, seed=number, node_budget=None)
        if once.exact:  # every arrangement solved already
            assert twice == once
            continue
        ranked = sorted((wins for _, wins in once.wins), reverse=True)
        close = len(ranked) > 1 and ranked[1] > 0 and ranked[0] < 8 and (ranked[0] - ranked[1]) * 8 <= 8
        assert twice.samples_used == (16 if close else 8)
        assert all(more >= fewer for (_, more), (_, fewer) in zip(twice.wins, once.wins, strict=True))
        looked += close
    assert looked >= 1


def test_no_advice_when_no_sample_is_solved_in_time() -> None:
    # Out of time before the first sample: no action and no chance, never a 0% that would read "looks lost".
    advice = advise(VisiblePosition.of(Game.from_code("TP1-E-AAAAAAB")), time_budget=1e-5)
    assert advice.action is None and advice.win_chance is None and advice.samples_used == 0
    assert not advice.exact
