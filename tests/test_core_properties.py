"""Random play against the engine's invariants (hypothesis stateful testing)."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from core.cards import FULL_DECK
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import DRAW, UNDO, Game, Status, Tap
from core.layout import BOTTOM_ROW, COVERED_BY, PEAK_SLOTS


def implied_score(game: Game) -> int:
    """500, -1 for every standing removal and draw, +100 for every peak emptied (undone moves leave no trace)."""
    return 500 - len(game.actions()) + 100 * sum(
        all(game.is_removed(s) for s in slots) for slots in PEAK_SLOTS
    )


class PlayingAGame(RuleBasedStateMachine):
    game: Game

    @initialize(number=st.integers(0, DEAL_COUNT - 1), rules=st.sampled_from(Rules))
    def deal(self, number: int, rules: Rules) -> None:
        self.game = Game.from_code(GameCode(rules, number))
        self.before: list[str] = []  # the state before each standing action

    @rule(slot=st.integers(0, 27))
    def tap(self, slot: int) -> None:
        self._act(Tap(slot))

    @rule(data=st.data())
    @precondition(lambda self: any(self.game.is_playable(s) and self.game.fits(s) for s in range(28)))
    def tap_a_fitting_card(self, data: st.DataObject) -> None:
        fitting = [s for s in range(28) if self.game.is_playable(s) and self.game.fits(s)]
        self._act(Tap(data.draw(st.sampled_from(fitting))))

    @rule()
    def draw(self) -> None:
        self._act(DRAW)

    @rule()
    def undo(self) -> None:
        game = self.game
        moves = game.moves
        outcome = game.apply(UNDO)
        if outcome.ok:
            # undo is the exact inverse of the action it takes back (the move counter apart)
            assert self._position(game.to_text()) == self._position(self.before.pop())
            assert game.moves == moves
        else:
            assert game.status is Status.WON or not self.before

    def _act(self, action: Tap | object) -> None:
        text = self.game.to_text()
        outcome = self.game.apply(action)  # type: ignore[arg-type]
        if outcome.ok:
            self.before.append(text)
        else:
            assert self.game.to_text() == text

    @staticmethod
    def _position(text: str) -> tuple[str, ...]:
        fields = text.split(";")
        return (*fields[:4], fields[5])  # everything but the move counter

    @invariant()
    def all_52_cards_are_accounted_for(self) -> None:
        game = self.game
        in_tableau = [game.card_at(s) for s in range(28) if not game.is_removed(s)]
        in_stock = list(game.deal.stock[game.drawn:])
        everything = in_tableau + game.pile + in_stock
        assert sorted(c.index for c in everything) == list(range(52)) == sorted(c.index for c in FULL_DECK)

    @invariant()
    def face_up_exactly_when_uncovered_or_in_the_bottom_row(self) -> None:
        game = self.game
        for slot in range(28):
            uncovered = all(game.is_removed(c) for c in COVERED_BY[slot])
            assert game.is_face_up(slot) == (slot in BOTTOM_ROW or uncovered)

    @invariant()
    def score_is_what_the_history_implies(self) -> None:
        assert self.game.score == implied_score(self.game)
        assert self.game.moves >= len(self.game.actions())

    @invariant()
    def serialising_is_an_identity(self) -> None:
        text = self.game.to_text()
        again = Game.from_text(text)
        assert again.to_text() == text
        assert (again.score, again.moves, again.status, again.waste) == (
            self.game.score, self.game.moves, self.game.status, self.game.waste)


PlayingAGame.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)
TestPlayingAGame = PlayingAGame.TestCase
