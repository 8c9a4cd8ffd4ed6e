"""A game in progress: actions, legality, the flip, score, undo and a compact serialised form.

>>> game = Game.from_code("TP1-E-AAAAAAB")
>>> game.score, game.moves, game.stock_left, game.status
(500, 0, 23, <Status.PLAYING: 'playing'>)
>>> outcome = game.apply(Draw())
>>> outcome.ok, game.score, game.moves, game.stock_left
(True, 499, 1, 22)
>>> game.apply(Undo()).ok, game.score, game.moves, game.stock_left
(True, 500, 1, 23)
>>> game.apply(Undo()).reason
<Reason.NOTHING_TO_UNDO: 'nothing_to_undo'>
"""

from __future__ import annotations

import enum
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from core.cards import FULL_DECK, Card
from core.deal import Deal, GameCode, Rules
from core.errors import InvalidActionError, InvalidStateError, TriPeaksError
from core.layout import (
    ALL_SLOTS_MASK,
    COVER_MASKS,
    COVERS,
    PEAK_MASKS,
    PEAK_OF,
    SLOT_COUNT,
    STOCK_SIZE,
)

START_SCORE = 500
PEAK_BONUS = 100
#: How many of the last actions can be undone. A game has at most 28 removals and 23 draws, so this is an
#: invariant kept by the code rather than a limit a player can reach.
HISTORY_LIMIT = 100


class Action:
    """An action a player takes: :class:`Tap` a slot, :class:`Draw` from the stock, or :class:`Undo`.

    >>> Action.parse("12"), Action.parse("d"), Action.parse(" U ")
    (Tap(slot=12), Draw(), Undo())
    >>> [str(a) for a in (Tap(12), Draw(), Undo())]
    ['12', 'd', 'u']
    """

    __slots__ = ()

    @staticmethod
    def parse(text: str) -> Action:
        """Read a slot number 0-27, ``d`` (draw) or ``u`` (undo)."""
        word = text.strip().lower()
        if word == "d":
            return DRAW
        if word == "u":
            return UNDO
        if word.isdigit() and word.isascii() and int(word) < SLOT_COUNT:
            return Tap(int(word))
        raise InvalidActionError(f"not an action: {text.strip()!r} (expected a slot 0-27, d or u)")


@dataclass(frozen=True)
class Tap(Action):
    """Tap the card in a tableau slot (0-27) to move it onto the waste."""

    slot: int

    def __post_init__(self) -> None:
        if not (isinstance(self.slot, int) and 0 <= self.slot < SLOT_COUNT):
            raise InvalidActionError(f"no slot {self.slot!r}: slots are 0-27")

    def __str__(self) -> str:
        return str(self.slot)


@dataclass(frozen=True)
class Draw(Action):
    """Turn the top stock card onto the waste."""

    def __str__(self) -> str:
        return "d"


@dataclass(frozen=True)
class Undo(Action):
    """Take back the last removal or draw."""

    def __str__(self) -> str:
        return "u"


DRAW = Draw()
UNDO = Undo()


class Reason(enum.Enum):
    """Why an action was refused. A refused action changes nothing and costs nothing."""

    BLOCKED = "blocked"  # the card is covered or face down
    NOT_ADJACENT = "not_adjacent"  # the card is not one rank above or below the waste card
    REMOVED = "removed"  # the slot is already empty
    STOCK_EMPTY = "stock_empty"
    NOTHING_TO_UNDO = "nothing_to_undo"
    GAME_OVER = "game_over"  # the game is won; nothing changes it any more


class Status(enum.Enum):
    PLAYING = "playing"
    WON = "won"  # all 28 peak cards removed
    BLOCKED = "blocked"  # stock empty and no playable card fits the waste card


class IllegalActionError(TriPeaksError):
    """Raised by :meth:`Game.push` for a refused action; ``reason`` says why."""

    def __init__(self, action: Action, reason: Reason) -> None:
        super().__init__(f"{action} refused: {reason.value}")
        self.action = action
        self.reason = reason


@dataclass(frozen=True)
class Outcome:
    """What an action did. ``reason`` is None when it was applied."""

    action: Action
    reason: Reason | None = None
    #: the card that went onto the waste (a tap or a draw) or came back from it (an undo)
    card: Card | None = None
    #: the peak (0-2) a removal emptied, earning the bonus
    cleared_peak: int | None = None
    #: slots whose cards were turned face up by this action
    flipped: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return self.reason is None


@dataclass(frozen=True)
class _Entry:
    action: Tap | Draw
    score_before: int
    #: the move counter just after the action: its number as the header counts (undone moves count too)
    move: int


class Game:
    """A TriPeaks game: a deal, a rule set, and the actions applied so far (undo included)."""

    def __init__(self, deal: Deal, rules: Rules = Rules.EASY, code: GameCode | None = None) -> None:
        if code is not None and code.rules is not rules:
            raise TriPeaksError(f"code {code} is for {code.rules.value} rules, not {rules.value}")
        self.deal = deal
        self.rules = rules
        self.code = code
        self._ranks = tuple(int(card.rank) for card in deal.tableau)
        self.removed = 0  # bit s set when slot s is empty
        self.drawn = 0
        self.pile: list[Card] = [deal.waste]  # the waste pile, its top last
        self.score = START_SCORE
        self.moves = 0
        self._history: list[_Entry] = []

    @classmethod
    def from_code(cls, code: GameCode | str) -> Game:
        parsed = GameCode.parse(code) if isinstance(code, str) else code
        return cls(parsed.deal(), parsed.rules, parsed)

    # --- reading the position -------------------------------------------------------------------------------

    @property
    def waste(self) -> Card:
        return self.pile[-1]

    @property
    def stock_left(self) -> int:
        return STOCK_SIZE - self.drawn

    @property
    def cards_left(self) -> int:
        """Tableau cards not yet removed."""
        return SLOT_COUNT - self.removed.bit_count()

    def card_at(self, slot: int) -> Card:
        """The card dealt to ``slot``, whether it is face up, face down or removed."""
        return self.deal.tableau[slot]

    def is_removed(self, slot: int) -> bool:
        return bool(self.removed >> slot & 1)

    def is_face_up(self, slot: int) -> bool:
        """Bottom-row cards start face up; any other card turns face up once both cards covering it are gone."""
        cover = COVER_MASKS[slot]
        return self.removed & cover == cover

    def is_playable(self, slot: int) -> bool:
        """Face up, not removed, and so uncovered."""
        return not self.is_removed(slot) and self.is_face_up(slot)

    def fits(self, slot: int) -> bool:
        """Whether the card in ``slot`` is one rank above or below the waste card (ignoring whether it is free)."""
        return self.rules.adjacent(self._ranks[slot], int(self.waste.rank))

    def visible_slot(self, card: Card) -> int | None:
        """The slot where a player sees ``card``: face up, or already removed from there. None for a face-down card
        or one that is not in the tableau, so looking a card up never reveals where a hidden card lies.

        >>> game = Game.from_code("TP1-E-AAAAAAB")
        >>> game.visible_slot(Card.parse("KH")), game.visible_slot(Card.parse("7D"))
        (22, None)
        """
        for slot, dealt in enumerate(self.deal.tableau):
            if dealt == card:
                return slot if self.is_face_up(slot) else None
        return None

    def playable_slots(self) -> list[int]:
        return [s for s in range(SLOT_COUNT) if self.is_playable(s)]

    def peaks_cleared(self) -> int:
        return sum(1 for mask in PEAK_MASKS if self.removed & mask == mask)

    @property
    def status(self) -> Status:
        if self.removed == ALL_SLOTS_MASK:
            return Status.WON
        if self.drawn == STOCK_SIZE and not any(self.fits(s) for s in self.playable_slots()):
            return Status.BLOCKED
        return Status.PLAYING

    @property
    def is_over(self) -> bool:
        """Won or blocked. A blocked game can still undo; a won game cannot."""
        return self.status is not Status.PLAYING

    @property
    def undo_depth(self) -> int:
        """How many actions can be undone now."""
        return 0 if self.status is Status.WON else len(self._history)

    def actions(self) -> list[Tap | Draw]:
        """The removals and draws that stand (undone ones excluded), oldest first."""
        return [entry.action for entry in self._history]

    @property
    def chain(self) -> int:
        """The live chain: the cards removed in a row since the last draw, of the moves that stand (an undone
        removal leaves it).

        >>> game = Game.from_code("TP1-E-AAAAAAB")
        >>> [game.apply(action).ok and game.chain for action in (Tap(21), Tap(19), Tap(18), Draw())]
        [1, 2, 3, 0]
        """
        run = 0
        for entry in reversed(self._history):
            if not isinstance(entry.action, Tap):
                break
            run += 1
        return run

    def move_numbers(self) -> list[int]:
        """The number of each standing action as the move counter gave it, undone moves counted, as
        :meth:`actions` orders them: the move the player saw as "Moves: 31" is 31 here, whatever was undone.

        >>> game = Game.from_code("TP1-E-AAAAAAB")
        >>> for action in (Tap(21), Undo(), Tap(21), Draw()):
        ...     _ = game.apply(action)
        >>> game.actions(), game.move_numbers(), game.moves
        ([Tap(slot=21), Draw()], [2, 3], 3)
        """
        return [entry.move for entry in self._history]

    def legal_actions(self) -> Iterator[Action]:
        """Every action that would be applied now: fitting taps, then draw, then undo."""
        for slot in range(SLOT_COUNT):
            if self.check(Tap(slot)) is None:
                yield Tap(slot)
        if self.check(DRAW) is None:
            yield DRAW
        if self.check(UNDO) is None:
            yield UNDO

    # --- acting ---------------------------------------------------------------------------------------------

    def check(self, action: Action) -> Reason | None:
        """Why ``action`` would be refused now, or None if it would be applied."""
        if self.removed == ALL_SLOTS_MASK:
            return Reason.GAME_OVER
        if isinstance(action, Tap):
            if self.is_removed(action.slot):
                return Reason.REMOVED
            if not self.is_face_up(action.slot):
                return Reason.BLOCKED
            if not self.fits(action.slot):
                return Reason.NOT_ADJACENT
            return None
        if isinstance(action, Draw):
            return Reason.STOCK_EMPTY if self.drawn == STOCK_SIZE else None
        if isinstance(action, Undo):
            return None if self._history else Reason.NOTHING_TO_UNDO
        raise InvalidActionError(f"not an action: {action!r}")

    def apply(self, action: Action) -> Outcome:
        """Apply ``action`` if it is legal; a refused action changes nothing. Returns what happened."""
        reason = self.check(action)
        if reason is not None:
            return Outcome(action, reason)
        score_before = self.score
        if isinstance(action, Undo):
            return self._undo()
        if isinstance(action, Tap):
            outcome = self._remove(action)
        else:
            assert isinstance(action, Draw)
            card = self.deal.stock[self.drawn]
            self.drawn += 1
            self.pile.append(card)
            self.score = max(0, self.score - 1)
            outcome = Outcome(action, card=card)
        self.moves += 1
        self._history.append(_Entry(action, score_before, self.moves))
        del self._history[:-HISTORY_LIMIT]
        return outcome

    def push(self, action: Action) -> Outcome:
        """Like :meth:`apply`, but raise :class:`IllegalActionError` for a refused action."""
        outcome = self.apply(action)
        if outcome.reason is not None:
            raise IllegalActionError(action, outcome.reason)
        return outcome

    def _remove(self, tap: Tap) -> Outcome:
        slot = tap.slot
        self.removed |= 1 << slot
        card = self.deal.tableau[slot]
        self.pile.append(card)
        peak = PEAK_OF[slot]
        mask = PEAK_MASKS[peak]
        cleared = peak if self.removed & mask == mask else None
        self.score = max(0, self.score - 1 + (PEAK_BONUS if cleared is not None else 0))
        # a card this one covered turns face up when its other cover is gone too
        flipped = tuple(s for s in COVERS[slot] if self.is_face_up(s))
        return Outcome(tap, card=card, cleared_peak=cleared, flipped=flipped)

    def _undo(self) -> Outcome:
        entry = self._history.pop()
        card = self.pile.pop()
        if isinstance(entry.action, Tap):
            self.removed &= ~(1 << entry.action.slot)
        else:
            self.drawn -= 1
        self.score = entry.score_before
        return Outcome(UNDO, card=card)

    # --- copying and serialising ----------------------------------------------------------------------------

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.pile = list(self.pile)
        other._history = list(self._history)
        return other

    @classmethod
    def replay(cls, deal: Deal, rules: Rules, actions: Iterable[Action], code: GameCode | None = None) -> Game:
        """A new game with ``actions`` pushed in order; raise :class:`IllegalActionError` on a refused one."""
        game = cls(deal, rules, code)
        for action in actions:
            game.push(action)
        return game

    def to_text(self) -> str:
        """A compact, versioned, lossless form: ``1;code;rules;deal;moves;actions``.

        The deal is written out (one letter a card) so reading it back never depends on the shuffle; the actions
        are those that stand, since undo returns the score to exactly what it was. An action whose move number
        (:meth:`move_numbers`) is not the one after the previous action's, as after moves undone, carries it:
        ``21@3``. A text written before move numbers were kept has none and reads as numbered 1, 2, 3...

        >>> g = Game.from_code("TP1-C-AAAAAAD"); _ = g.apply(Draw())
        >>> Game.from_text(g.to_text()).to_text() == g.to_text()
        True
        """
        deal = "".join(_CARD_LETTERS[card.index] for card in self.deal.cards())
        words, previous = [], 0
        for entry in self._history:
            words.append(str(entry.action) if entry.move == previous + 1 else f"{entry.action}@{entry.move}")
            previous = entry.move
        actions = ",".join(words)
        code = str(self.code) if self.code else "-"
        return f"{_FORMAT_VERSION};{code};{self.rules.letter};{deal};{self.moves};{actions}"

    @classmethod
    def from_text(cls, text: str) -> Game:
        """Read what :meth:`to_text` wrote; raise :class:`InvalidStateError` if it is damaged."""
        try:
            version, code_text, rules_letter, deal_text, moves_text, actions_text = text.split(";")
            if version != _FORMAT_VERSION:
                raise InvalidStateError(f"unknown game format version {version!r}")
            rules = Rules.parse(rules_letter)
            code = None if code_text == "-" else GameCode.parse(code_text)
            deal = Deal.from_cards([FULL_DECK[_CARD_LETTERS.index(ch)] for ch in deal_text])
            words = [word.partition("@") for word in actions_text.split(",")] if actions_text else []
            actions = [Action.parse(action) for action, _, _ in words]
            if any(isinstance(a, Undo) for a in actions):
                raise InvalidStateError("a stored action list holds no undo")
            game = cls.replay(deal, rules, actions, code)
            numbers, previous = [], 0
            for _, marked, number in words:
                previous = int(number) if marked else previous + 1
                numbers.append(previous)
            moves = int(moves_text)
            if moves < len(actions) or (numbers and numbers[-1] > moves) or any(
                    later <= earlier for earlier, later in zip(numbers, numbers[1:], strict=False)):
                raise InvalidStateError("move numbers that do not rise to at most the move counter")
            game._history = [replace(entry, move=number)
                             for entry, number in zip(game._history, numbers, strict=True)]
            game.moves = moves
        except InvalidStateError:
            raise
        except (TriPeaksError, ValueError) as error:
            raise InvalidStateError(f"damaged game state: {error}") from None
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_text() == other.to_text()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Game {self.code or 'custom'} {self.rules.value} {self.status.value} score={self.score}>"


_FORMAT_VERSION = "1"
_CARD_LETTERS = string.ascii_letters  # 52 letters, one per card index
