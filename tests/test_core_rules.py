"""One test (at least) for every point of RULES.md."""

from __future__ import annotations

import pytest

from core.cards import Card
from core.deal import Deal, GameCode, Rules
from core.errors import InvalidActionError, InvalidCodeError, InvalidLayoutError, InvalidStateError
from core.game import DRAW, UNDO, Action, Game, IllegalActionError, Reason, Status, Tap
from core.layout import BOTTOM_ROW, COVERED_BY, PEAK_OF, PEAK_SLOTS
from tests.core_helpers import BOTTOM_UP_ORDER, cyclic_win_deal, make_deal, zigzag_win_deal

# --- layout -------------------------------------------------------------------------------------------------


def test_covering_table_is_the_one_rules_md_states() -> None:
    for j in range(9):  # row 3 card j: bottom cards j and j+1
        assert COVERED_BY[9 + j] == (18 + j, 19 + j)
    for i in range(6):  # row 2 card i: peak p = i // 2, k = i % 2, row 3 cards 3p+k and 3p+k+1
        p, k = divmod(i, 2)
        assert COVERED_BY[3 + i] == (9 + 3 * p + k, 10 + 3 * p + k)
    for p in range(3):  # top p: row 2 cards 2p and 2p+1
        assert COVERED_BY[p] == (3 + 2 * p, 4 + 2 * p)
    assert all(COVERED_BY[s] == () for s in BOTTOM_ROW)


def test_peaks_hold_9_9_and_10_cards_with_the_bottom_row_split_3_3_4() -> None:
    assert [len(slots) for slots in PEAK_SLOTS] == [9, 9, 10]
    assert [PEAK_OF[s] for s in BOTTOM_ROW] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
    assert sorted(s for peak in PEAK_SLOTS for s in peak) == list(range(28))


def test_a_fresh_deal_shows_only_the_bottom_row_and_one_waste_card() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    assert [s for s in range(28) if game.is_face_up(s)] == list(BOTTOM_ROW)
    assert game.stock_left == 23
    assert game.waste == game.deal.waste
    assert len(set(game.deal.cards())) == 52


# --- codes and deals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical", "rules", "number"),
    [
        ("TP1-E-AAAAAAB", "TP1-E-AAAAAAB", Rules.EASY, 1),
        ("TP1-C-AAAAAAD", "TP1-C-AAAAAAD", Rules.CLASSIC, 3),
        ("  tp1-n-aaaaaab \n", "TP1-E-AAAAAAB", Rules.EASY, 1),
        ("TP1-E-BAAAAAA", "TP1-E-BAAAAAA", Rules.EASY, 26**6),
        ("TP1-C-ZZZZZZZ", "TP1-C-ZZZZZZZ", Rules.CLASSIC, 26**7 - 1),
    ],
)
def test_codes_read_in_base_26_and_print_canonically(text: str, canonical: str, rules: Rules, number: int) -> None:
    code = GameCode.parse(text)
    assert (str(code), code.rules, code.number) == (canonical, rules, number)
    assert GameCode.parse(str(code)) == code


def test_the_old_letter_n_deals_the_same_easy_game() -> None:
    old = Game.from_code("TP1-N-HELLOXX")
    new = Game.from_code("TP1-E-HELLOXX")
    assert old.rules is Rules.EASY and str(old.code) == "TP1-E-HELLOXX"
    assert old.deal == new.deal


def test_the_rule_letter_does_not_change_the_cards() -> None:
    assert GameCode.parse("TP1-E-AAAAAAD").deal() == GameCode.parse("TP1-C-AAAAAAD").deal()


@pytest.mark.parametrize("text", ["", "TP1", "TP1-E-AAAAAA", "TP1-E-AAAAAAAA", "TP2-E-AAAAAAB", "TP1-X-AAAAAAB",
                                  "TP1-E-AAAAAA1", "TP1_E_AAAAAAB", "TP1-E-ÄAAAAAB"])
def test_malformed_codes_are_refused(text: str) -> None:
    with pytest.raises(InvalidCodeError):
        GameCode.parse(text)


# A code deals the same cards forever: these layouts are pinned.
GOLDEN = {
    "TP1-E-AAAAAAB": "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH TH TS JS TD 8S QC 4S 6C 7C "
                     "AS 5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C TC 3H 2S 9H 7S",
    "TP1-C-AAAAAAD": "AD 3D 7S QS 9S 2C 5S AH 3H JC KS QH 6C 6S 5C QC KH KD JD 4S AC 8H 4C 2H 8C 6H 8D 8S 9C 3S 9D 6D "
                     "7D 7H 5D 9H JS TD 4D KC AS 5H TH 3C 2S TS QD 7C 2D 4H JH TC",
    "TP1-E-ZZZZZZZ": "6S 5S JH 4D 4S 2S AC 7D 9C TC AH KS 3C 6H 8H TH JS 6D 2H QC 2D 8S 8D 8C 9D 6C JC 9S KH 4C 5H 9H "
                     "3S KD 2C KC QH 7S 5C 4H JD 3D AS QS AD 7C TS TD 7H 5D QD 3H",
    "TP1-E-HELLOXX": "5S 7C 5H 3H 4C AC 5C 9H 6H 7D 4S 4D QD JD 2S 8D KS AH 9D KD 4H 2H 8S 8H 7H 9C 7S TS KH TD 5D 3C "
                     "QH TH 2C 8C 3S TC JC 9S 6D AS 3D KC QS JS 2D JH AD QC 6C 6S",
}


@pytest.mark.parametrize("code", sorted(GOLDEN))
def test_golden_layouts(code: str) -> None:
    deal = GameCode.parse(code).deal()
    assert str(deal) == GOLDEN[code]
    assert len(deal.tableau) == 28 and len(deal.stock) == 23


def test_a_layout_must_be_52_distinct_cards() -> None:
    text = GOLDEN["TP1-E-AAAAAAB"]
    assert str(Deal.parse(text)) == text
    with pytest.raises(InvalidLayoutError, match="52 cards"):
        Deal.parse(text.rsplit(" ", 1)[0])
    with pytest.raises(InvalidLayoutError, match="twice: 7D"):
        Deal.parse(text.replace("7S", "7D"))
    with pytest.raises(InvalidLayoutError, match="not a card"):
        Deal.parse(text.replace("7S", "7X"))


def test_cards_read_in_every_form_a_player_types() -> None:
    assert Card.parse("7S") == Card.parse("7♠") == Card.parse("7s") == Card.parse("7♠️")
    assert Card.parse("10h") == Card.parse("TH") == Card.parse("t♥")
    assert str(Card.parse("10h")) == "TH" and Card.parse("10h").symbol() == "10♥"


# --- moves and refusals ---------------------------------------------------------------------------------------

# The worked example of RULES.md, in our own deal: bottom row 3♠ 5♠ K♣ 4♠ 2♦ A♠ K♦ 8♥ 7♣ 9♠, waste A♣,
# and 7♠ as the 5th card of row 3 (slot 13).
EXAMPLE_BOTTOM = "3S 5S KC 4S 2D AS KD 8H 7C 9S".split()


def example_game(rules: Rules) -> Game:
    tableau = {18 + i: text for i, text in enumerate(EXAMPLE_BOTTOM)} | {13: "7S"}
    return Game(make_deal(tableau, "AC"), rules)


def fitting_taps(game: Game) -> list[int]:
    return [a.slot for a in game.legal_actions() if isinstance(a, Tap)]


def test_worked_example_easy_allows_three_moves_classic_one() -> None:
    assert fitting_taps(example_game(Rules.EASY)) == [20, 22, 24]  # K♣, 2♦, K♦
    assert fitting_taps(example_game(Rules.CLASSIC)) == [22]  # 2♦ only


def test_worked_example_flip() -> None:
    game = example_game(Rules.EASY)
    game.push(Tap(20))  # K♣ onto A♣
    game.push(Tap(23))  # A♠ onto K♣
    assert not game.is_face_up(13)
    outcome = game.push(Tap(22))  # 2♦ onto A♠: both covers of slot 13 are gone
    assert outcome.flipped == (13,)
    assert game.is_face_up(13) and game.card_at(13) == Card.parse("7S")
    assert game.waste == Card.parse("2D")
    assert game.is_playable(13)


def test_rank_must_be_one_above_or_below_and_suit_does_not_matter() -> None:
    game = Game(make_deal({18: "7H", 19: "9S", 20: "8C", 21: "6D"}, "8D"), Rules.CLASSIC)
    assert game.check(Tap(18)) is None and game.check(Tap(19)) is None
    assert game.check(Tap(20)) is Reason.NOT_ADJACENT  # same rank
    assert game.check(Tap(21)) is Reason.NOT_ADJACENT  # two below


def test_removed_card_goes_onto_the_waste() -> None:
    game = Game(make_deal({18: "7H"}, "8D"), Rules.EASY)
    outcome = game.push(Tap(18))
    assert game.waste == Card.parse("7H") == outcome.card
    assert game.is_removed(18)


@pytest.mark.parametrize(
    ("rules", "waste", "card", "fits"),
    [
        (Rules.EASY, "KC", "AD", True), (Rules.EASY, "AC", "KD", True), (Rules.EASY, "KC", "QD", True),
        (Rules.CLASSIC, "KC", "AD", False), (Rules.CLASSIC, "AC", "KD", False),
        (Rules.CLASSIC, "KC", "QD", True), (Rules.CLASSIC, "AC", "2D", True), (Rules.EASY, "AC", "2D", True),
    ],
)
def test_king_and_ace(rules: Rules, waste: str, card: str, fits: bool) -> None:
    game = Game(make_deal({18: card}, waste), rules)
    assert (game.check(Tap(18)) is None) is fits


def test_easy_run_goes_queen_king_ace_two() -> None:
    game = Game(make_deal({18: "KH", 19: "AS", 20: "2H"}, "QC"), Rules.EASY)
    for slot in (18, 19, 20):
        game.push(Tap(slot))
    assert game.waste == Card.parse("2H")


def refusal_changes_nothing(game: Game, action: Action, reason: Reason) -> None:
    before = game.to_text()
    outcome = game.apply(action)
    assert outcome.reason is reason and not outcome.ok
    assert game.to_text() == before
    with pytest.raises(IllegalActionError) as raised:
        game.push(action)
    assert raised.value.reason is reason
    assert game.to_text() == before


def test_each_refusal_reason_changes_nothing_and_costs_nothing() -> None:
    game = Game(make_deal({18: "7H", 19: "3S", 27: "8C"}, "8D"), Rules.EASY)
    refusal_changes_nothing(game, UNDO, Reason.NOTHING_TO_UNDO)
    refusal_changes_nothing(game, Tap(19), Reason.NOT_ADJACENT)
    refusal_changes_nothing(game, Tap(9), Reason.BLOCKED)  # face down, covered by 18 and 19
    refusal_changes_nothing(game, Tap(0), Reason.BLOCKED)
    game.push(Tap(18))
    refusal_changes_nothing(game, Tap(18), Reason.REMOVED)
    refusal_changes_nothing(game, Tap(9), Reason.BLOCKED)  # one cover gone, still covered by 19
    for _ in range(23):
        game.push(DRAW)
    refusal_changes_nothing(game, DRAW, Reason.STOCK_EMPTY)


def test_a_tap_out_of_range_is_not_an_action() -> None:
    with pytest.raises(InvalidActionError):
        Tap(28)
    for text in ["28", "-1", "x", "", "1.5", "٣"]:
        with pytest.raises(InvalidActionError):
            Action.parse(text)


# --- stock --------------------------------------------------------------------------------------------------


def test_drawing_is_allowed_even_when_a_card_fits_and_replaces_the_waste() -> None:
    deal = make_deal({18: "7H"}, "8D", ["QS"])
    game = Game(deal, Rules.EASY)
    assert game.check(Tap(18)) is None
    outcome = game.push(DRAW)
    assert game.waste == Card.parse("QS") == outcome.card
    assert game.stock_left == 22


def test_the_stock_is_never_recycled() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    drawn = [game.push(DRAW).card for _ in range(23)]
    assert drawn == list(game.deal.stock)
    assert game.stock_left == 0
    assert game.apply(DRAW).reason is Reason.STOCK_EMPTY


# --- end of the game ----------------------------------------------------------------------------------------


def test_won_when_all_28_are_removed_even_with_cards_left_in_the_stock() -> None:
    game = Game(cyclic_win_deal(), Rules.EASY)
    for slot in BOTTOM_UP_ORDER[:-1]:
        game.push(Tap(slot))
        assert game.status is Status.PLAYING
    game.push(Tap(BOTTOM_UP_ORDER[-1]))
    assert game.status is Status.WON and game.stock_left == 23
    assert game.score == 500 - 28 + 300 == 772


def test_a_won_game_is_over_nothing_changes_it_not_even_undo() -> None:
    game = Game.replay(cyclic_win_deal(), Rules.EASY, [Tap(s) for s in BOTTOM_UP_ORDER])
    for action in (UNDO, DRAW, Tap(0), Tap(18)):
        refusal_changes_nothing(game, action, Reason.GAME_OVER)
    assert game.undo_depth == 0
    assert list(game.legal_actions()) == []


def test_the_cyclic_deal_needs_the_wrap_so_classic_gets_stuck() -> None:
    game = Game(cyclic_win_deal(), Rules.CLASSIC)
    for slot in BOTTOM_UP_ORDER[:12]:  # 2 .. K
        game.push(Tap(slot))
    assert game.check(Tap(BOTTOM_UP_ORDER[12])) is Reason.NOT_ADJACENT  # the Ace on the King
    assert Game.replay(zigzag_win_deal(), Rules.CLASSIC, [Tap(s) for s in BOTTOM_UP_ORDER]).status is Status.WON


def blocked_game() -> Game:
    # Under Classic rules no bottom-row card is within one rank of the stock's last card, the 2 of clubs.
    bottom = {18 + i: text for i, text in enumerate("6S 7S 8S 9S 6H 7H 8H 9H 6D 7D".split())}
    stock = [r + s for r in "TJQKA" for s in "CDHS"] + ["5C", "5D", "2C"]
    return Game(make_deal(bottom, "4C", stock), Rules.CLASSIC)


def test_blocked_when_the_stock_is_empty_and_no_playable_card_fits() -> None:
    game = blocked_game()
    for _ in range(22):
        game.push(DRAW)
    assert game.status is Status.PLAYING  # a card is left in the stock
    game.push(DRAW)
    assert game.status is Status.BLOCKED
    assert game.is_over
    score = game.score
    assert score == 500 - 23  # no penalty, no bonus
    game.push(UNDO)  # a blocked game can still undo
    assert game.status is Status.PLAYING and game.stock_left == 1


def test_not_blocked_while_a_playable_card_fits_the_waste() -> None:
    game = Game(make_deal({18: "3H"}, "KD", [str(c) for c in cards_ending_in("2S")]), Rules.CLASSIC)
    for _ in range(23):
        game.push(DRAW)
    assert game.waste == Card.parse("2S") and game.status is Status.PLAYING


def cards_ending_in(last: str) -> list[Card]:
    others = [c for c in Deal.parse(GOLDEN["TP1-C-AAAAAAD"]).cards()
              if c.rank in range(6, 13) and str(c) != last and str(c) != "KD"][:22]
    return [*others, Card.parse(last)]


# --- score, moves and undo ----------------------------------------------------------------------------------


def test_score_starts_at_500_and_each_removal_and_draw_costs_one() -> None:
    game = Game(make_deal({18: "7H"}, "8D"), Rules.EASY)
    assert (game.score, game.moves) == (500, 0)
    game.push(DRAW)
    assert (game.score, game.moves) == (499, 1)
    game.push(UNDO)
    game.push(Tap(18))
    assert (game.score, game.moves) == (499, 2)


@pytest.mark.parametrize("peak", [0, 1, 2])
def test_emptying_each_peak_earns_100_on_top_of_the_moves_minus_one(peak: int) -> None:
    game = Game(cyclic_win_deal(), Rules.EASY)
    for slot in BOTTOM_UP_ORDER[:-3]:  # everything but the three tops
        game.push(Tap(slot))
    # The tops come last in BOTTOM_UP_ORDER and must be removed in order 0, 1, 2 for the ranks to run.
    for top in range(peak):
        game.push(Tap(top))
    score = game.score
    outcome = game.push(Tap(peak))
    assert outcome.cleared_peak == peak
    assert game.score == score - 1 + 100
    assert game.peaks_cleared() == peak + 1


def test_undo_puts_the_card_back_face_down_again_and_restores_the_points() -> None:
    game = example_game(Rules.EASY)
    game.push(Tap(20))
    game.push(Tap(23))
    before = game.to_text()
    score, moves = game.score, game.moves
    game.push(Tap(22))
    assert game.is_face_up(13)
    outcome = game.push(UNDO)
    assert outcome.card == Card.parse("2D")
    assert not game.is_removed(22) and not game.is_face_up(13)
    assert game.waste == Card.parse("AS")
    assert game.score == score
    assert game.moves == moves + 1  # the counter never goes down, and the undo does not add to it
    assert game.to_text().rsplit(";", 2)[0] == before.rsplit(";", 2)[0]


def test_undoing_a_peak_clearing_removal_takes_back_its_bonus() -> None:
    game = Game(cyclic_win_deal(), Rules.EASY)
    for slot in BOTTOM_UP_ORDER[:-3]:
        game.push(Tap(slot))
    score = game.score
    game.push(Tap(0))
    assert game.score == score + 99
    game.push(UNDO)
    assert game.score == score
    game.push(Tap(0))  # and redoing it earns the bonus once, not twice
    assert game.score == score + 99


def test_undo_takes_back_draws_and_removals_in_order() -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    states = [game.to_text()]
    taken = []
    for _ in range(12):
        action = next(a for a in game.legal_actions() if a != UNDO)
        game.push(action)
        taken.append(action)
        states.append(game.to_text())
    for _ in taken:
        game.push(UNDO)
        states.pop()
        assert game.to_text().split(";")[:4] == states[-1].split(";")[:4]
        assert game.to_text().split(";")[5] == states[-1].split(";")[5]
    assert game.moves == 12 and game.score == 500


# --- serialisation --------------------------------------------------------------------------------------------


def test_state_round_trips_with_moves_and_history() -> None:
    game = example_game(Rules.CLASSIC)
    game.push(DRAW)
    game.push(UNDO)
    game.push(DRAW)
    copy = Game.from_text(game.to_text())
    assert copy == game
    assert (copy.score, copy.moves, copy.undo_depth, copy.waste) == (game.score, game.moves, 1, game.waste)
    assert copy.apply(UNDO).ok and game.apply(UNDO).ok and copy == game


def test_the_state_keeps_each_standing_moves_number_past_undos() -> None:
    """The review numbers a move as the header did: a move made after an undo keeps its number when stored; a text
    stored before numbers were kept reads as numbered 1, 2, 3..."""
    game = Game.from_code("TP1-E-AAAAAAB")
    for action in (DRAW, DRAW, UNDO, UNDO, DRAW, DRAW):
        game.push(action)
    assert game.move_numbers() == [3, 4] and game.moves == 4
    text = game.to_text()
    assert text.endswith(";4;d@3,d")
    assert Game.from_text(text).move_numbers() == [3, 4]
    assert Game.from_text(text.replace("d@3,d", "d,d")).move_numbers() == [1, 2]


@pytest.mark.parametrize("damage", [
    lambda t: t.replace("1;", "9;", 1),
    lambda t: t[:-1] + "x",
    lambda t: t.replace(";E;", ";Q;"),
    lambda t: t + ";",
    lambda t: t.split(";")[0],
    lambda t: t.replace("TP1-E-AAAAAAB", "TP1-C-AAAAAAB"),
    lambda t: t.replace(";1;d", ";1;d@2"),  # a move numbered past the move counter
    lambda t: t.replace(";1;d", ";1;d@x"),
])
def test_damaged_state_is_refused(damage: object) -> None:
    game = Game.from_code("TP1-E-AAAAAAB")
    game.push(DRAW)
    with pytest.raises(InvalidStateError):
        Game.from_text(damage(game.to_text()))  # type: ignore[operator]
