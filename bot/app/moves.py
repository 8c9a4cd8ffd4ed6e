"""Moves on a game: a card, Draw or Undo tapped on a board, and a card played by name.

Taps and versions: every game row has a ``version`` that each applied action (and the end of the game as current)
increments, and a board carries the version it shows. A tap is the player's intent, whatever the board shows when
it comes (in a busy group Telegram's pace keeps a board seconds behind the game). A card tapped on any board of
the player's current game applies when it is legal now (two quick taps from one keyboard both apply; the same card
tapped twice is played once, and the second tap only shows the board as it stands; a card that no longer fits says
the waste card changed). A Draw or Undo tapped on an older board applies too, unless it is a double tap: the same
button on the same message and board version within :data:`DOUBLE_TAP_WITHIN` seconds of the tap of it that counted
(one message seen on two devices is one board; two messages showing the game are two boards, and a tap on each is
a tap of its own), which
the database tells (``once_marks``: several processes share it), by when each tap came (before it waited for the
player's earlier moves); a double tap answers :class:`~bot.app.outcomes.OutOfDate` with ``repeat`` and the game
as it stands. A tap on the board of a game that is no longer the player's latest answers
:class:`~bot.app.outcomes.OldBoard`: the board never turns into another game. The new state is written with
``WHERE version = :seen``, so of two actions that read the same version exactly one applies, on SQLite
(``BEGIN IMMEDIATE``) and PostgreSQL (row locks) alike.

A ranked daily attempt (a game with its ``daily`` day) allows no Undo (:class:`NoUndoInDaily`), and once blocked it
is over at once, lost: it stops being the player's current game, as a won game does. It ends with its UTC day: a
tap on it after midnight applies nothing (:class:`~bot.app.outcomes.DayOver`, with the attempt as it ended) and
ends it as it stands, if the day's end (:class:`~bot.app.day_end.DayEnd`) has not already.

Every method returns a frozen :class:`~bot.app.model.GameSnapshot` only after its transaction has committed, so
whatever an adapter shows a player is on disk.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

from bot.app.batcher import TapBatcher
from bot.app.commands import Move
from bot.app.errors import (
    AmbiguousCard,
    CardNotInPlay,
    GameNotFound,
    NoActiveGame,
    NotACard,
    NotYourGame,
    NoUndoInDaily,
    NoUndoInRound,
)
from bot.app.model import PlayerKey, clean_name
from bot.app.outbox import Outbox, ask_board, ask_tell
from bot.app.outcomes import OutOfDate, Tapped
from bot.app.records import Today, moved_on, owner_of, snapshot_of
from bot.app.solving import Verdicts
from bot.store import games as stored_games
from bot.store import once as marks
from bot.store import players as stored_players
from bot.store.engine import Database
from bot.store.games import GameRecord, StateWrite
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, utcnow
from core.cards import Card, Rank
from core.errors import TriPeaksError
from core.game import Action, Draw, Game, Outcome, Reason, Tap, Undo

#: How many games' engines a process keeps to skip replaying their stored state on the next tap.
GAME_CACHE_SIZE = 4096
#: Seconds within which Draw (or Undo) tapped again on the same board version is a double tap, applied once: a
#: finger's double tap comes within a quarter of a second; a player drawing card after card on a board that lags
#: taps a second or so apart, and each of those taps counts.
DOUBLE_TAP_WITHIN = 0.4
#: The time a tap came, in seconds (the same clock in every process sharing the database).
TapClock = Callable[[], float]


@dataclasses.dataclass
class _Tap:
    """A move waiting for its batch."""

    player: PlayerKey
    name: str
    game_id: int
    version: int
    action: Action
    arrived: float  # when the tap came, before it waited for the player's moves before it
    board: str | None = None  # the message tapped (:attr:`~bot.app.commands.Move.board`)
    #: made at the table in the browser: the game's chat board follows it (the outbox), drawn in this language
    #: where its player chose none
    follow: str | None = None


class _Retry(Exception):
    """A batch met a row changed under it: its taps are retried one transaction each."""


class _Conflict(Exception):
    """A single tap met its row changed under it: its transaction is rolled back and the tap is out of date."""


def names_a_card(text: str) -> bool:
    """Whether ``text`` is a card's name (``7h``, ``10♥``) or a rank alone (``k``), as a card played by name takes.

    >>> names_a_card("7h"), names_a_card(" K "), names_a_card("hello")
    (True, True, False)
    """
    cleaned = text.strip().replace("\ufe0f", "").replace("\ufe0e", "")
    for parse in (Card.parse, Rank.parse):
        try:
            parse(cleaned)
        except TriPeaksError:
            continue
        return True
    return False


def cards_named(game: Game, typed: str) -> tuple[Card, ...]:
    """The cards free to play in ``game`` whose names start like ``typed`` (``k``, ``10``, ``7♠``), or all of them
    when none does (autocomplete)."""
    cards = [game.card_at(slot) for slot in game.playable_slots()]
    wanted = typed.strip().upper().replace("\ufe0f", "").replace("\ufe0e", "")

    def matches(card: Card) -> bool:
        return str(card).startswith(wanted.replace("10", "T")) or card.symbol().upper().startswith(wanted)

    return tuple([card for card in cards if matches(card)] or cards)


#: Words typed for a draw, as the console's and the help's ``d``.
DRAW_WORDS = frozenset({"d", "draw"})


def names_a_draw(text: str) -> bool:
    """Whether ``text`` asks for a draw from the stock (``d``), as typed in a private chat or after ``/play``.

    >>> names_a_draw(" D "), names_a_draw("7d")
    (True, False)
    """
    return text.strip().lower() in DRAW_WORDS


def _named_slot(game: Game, text: str) -> int:
    """The slot of the face-up card ``text`` names (a card, or a rank that one free card has)."""
    cleaned = text.replace("\ufe0f", "").replace("\ufe0e", "")
    try:
        card = Card.parse(cleaned)
    except TriPeaksError:
        try:
            rank = Rank.parse(cleaned)
        except TriPeaksError:
            raise NotACard(text) from None
        free = [slot for slot in game.playable_slots() if game.card_at(slot).rank is rank]
        if len(free) > 1:
            raise AmbiguousCard(tuple(game.card_at(slot) for slot in free)) from None
        if not free:
            raise CardNotInPlay(rank.label) from None
        return free[0]
    slot = game.visible_slot(card)
    if slot is None:
        raise CardNotInPlay(str(card))
    return slot


class Moves:
    """Moves, committed in batches (:class:`~bot.app.batcher.TapBatcher`); a game that ends has its deal's
    verdict computed by ``verdicts``; ``today`` tells the day (whose daily deal's code stays hidden); ``clock``
    when a tap came (a double tap is told by it)."""

    def __init__(self, db: Database, verdicts: Verdicts, today: Today, outbox: Outbox | None = None,
                 clock: TapClock = time.time) -> None:
        self.db = db
        self.verdicts = verdicts
        self.today = today
        self.outbox = outbox  # told when rows are written, to deliver them at once
        self.clock = clock
        self._taps: TapBatcher[_Tap, Tapped] = TapBatcher(self._apply_taps)
        # the engine of games this process wrote last, by id, to skip replaying their state on the next tap
        self._engines: dict[int, tuple[str, Game]] = {}

    async def close(self) -> None:
        """Commit and answer the taps already queued."""
        await self._taps.drain()

    async def move(self, player: PlayerKey, name: str, command: Move, arrived: float | None = None, *,
                   follow: str | None = None) -> Tapped:
        """A card, Draw or Undo tapped on a board (``arrived``: when the tap came, by :attr:`clock`; default now):
        the game as it now stands, or why the tap did nothing. A refused move is not an error: the snapshot's
        ``outcome`` says why, and the version stays. ``follow``: tapped at the table, whose chat board is to follow
        it (drawn in that language where the player chose none)."""
        arrived = self.clock() if arrived is None else arrived
        return await self._taps.submit(_Tap(player, name, command.game_id, command.version, command.action, arrived,
                                            board=command.board, follow=follow))

    async def play_card(self, player: PlayerKey, name: str, text: str) -> Tapped:
        """Tap, in the player's current game, the card named ``text`` (``7h``, ``10♥``, ``qs``), or draw (``d``).

        A rank alone (``k``, ``10``) plays the one free card of that rank.

        :class:`NoActiveGame` without a current game, :class:`NotACard` for text that names no card,
        :class:`CardNotInPlay` for a card that is not face up on the table (typing a card reveals nothing hidden),
        :class:`AmbiguousCard` for a rank that more than one free card has.
        """
        async with self.db.transaction() as tx:
            record = await stored_games.active_of(tx, player.platform, player.user_id)
        if record is None:
            raise NoActiveGame()
        current = snapshot_of(record, today=self.today())
        action = Draw() if names_a_draw(text) else Tap(_named_slot(current.game, text))
        return await self._taps.submit(_Tap(player, name, current.game_id, current.version, action, self.clock()))

    async def _apply_taps(self, batch: Sequence[_Tap]) -> list[Tapped | Exception]:
        try:
            return await self._apply_batch(batch)
        except _Conflict:
            async with self.db.transaction() as tx:
                reloaded = await stored_games.load(tx, batch[0].game_id)
            if reloaded is None:
                return [GameNotFound(batch[0].game_id)]
            return [OutOfDate(snapshot_of(reloaded, today=self.today()))]

    async def _apply_batch(self, batch: Sequence[_Tap]) -> list[Tapped | Exception]:
        """One transaction for ``batch`` (taps on distinct games): one SELECT of their games (locking their rows on
        PostgreSQL, in id order), the engine in memory, one UPDATE statement for every applied action with the
        version check, one commit. A result is an exception for a tap that is refused as an error."""
        results: list[Tapped | Exception] = []
        writes: list[StateWrite] = []
        written: list[tuple[GameRecord, Game]] = []
        followed: list[tuple[GameRecord, str]] = []  # moved at the table: the chat's board follows
        now, today = utcnow(), self.today()
        async with self.db.transaction() as tx:
            # SQLite's BEGIN IMMEDIATE already holds the write lock
            records = await stored_games.load_for_update(tx, [tap.game_id for tap in batch],
                                                         lock_rows=not self.db.is_sqlite)
            marked = [_mark(tap) for tap in batch if _marks(tap, records.get(tap.game_id))]
            counted = await marks.claim_each(tx, marked, DOUBLE_TAP_WITHIN)  # the Draws and Undos that count
            for tap in batch:
                record = records.get(tap.game_id)
                if record is None or owner_of(record) != tap.player:
                    results.append(NotYourGame())
                    continue
                if record.daily is not None and record.daily < today:
                    # the attempt's day is over (its code may be out): it ends as it stands, and nothing applies
                    if record.active:
                        await stored_games.end_attempts_before(tx, today, now, game_id=record.id)
                        record = await stored_games.load(tx, record.id) or record
                    results.append(await moved_on(tx, record, today))
                    continue
                game = self._engine_of(record)
                if record.version != tap.version:
                    if not (record.active and record.status == PLAYING) or record.version < tap.version:
                        # ended since (or a version the game never had: nothing to go by)
                        results.append(await moved_on(tx, record, today))
                        continue
                    if isinstance(tap.action, Draw | Undo) and (tap.game_id, _mark(tap).kind) not in counted:
                        results.append(OutOfDate(snapshot_of(record, game, today=today), repeat=tap.action))
                        continue
                if record.daily is not None and isinstance(tap.action, Undo):
                    results.append(NoUndoInDaily())
                    continue
                if record.round_id is not None and isinstance(tap.action, Undo):
                    results.append(NoUndoInRound())
                    continue
                if record.round_id is not None and record.round_ends_at is not None and (
                        record.round_ended_at is not None or record.round_ends_at <= now):
                    # the round's time is up: its game counts as it stood then (the round's end closes it)
                    results.append(snapshot_of(record, game, today=today,
                                               outcome=Outcome(tap.action, Reason.GAME_OVER)))
                    continue
                if record.status == ABANDONED or not record.active:
                    results.append(snapshot_of(record, game, today=today,
                                               outcome=Outcome(tap.action, Reason.GAME_OVER)))
                    continue
                outcome = game.apply(tap.action)
                if not outcome.ok:
                    older = record.version != tap.version  # a card tapped on an older board: moves came since
                    if older and outcome.reason is Reason.REMOVED:
                        # the same card tapped twice: the first tap played it; the board as it stands, no word
                        results.append(snapshot_of(record, game, today=today))
                    else:
                        results.append(snapshot_of(record, game, today=today, outcome=outcome,
                                                   waste_changed=older and outcome.reason is Reason.NOT_ADJACENT))
                    continue
                undos = record.undos_used + isinstance(tap.action, Undo)
                status = game.status.value
                # a blocked practice game stays open to undo; a blocked daily attempt is over
                active = status == PLAYING or (status == BLOCKED and record.daily is None and record.round_id is None)
                writes.append(StateWrite(record.id, record.version, game.to_text(), status, game.score,
                                         game.moves, undos, now, active))
                name = clean_name(tap.name)
                if name and name != record.owner_name:
                    await stored_players.rename(tx, record.owner_id, name)
                    record = dataclasses.replace(record, owner_name=name)
                record = dataclasses.replace(record, state=writes[-1].state, version=record.version + 1,
                                             status=status, active=active,
                                             moves=game.moves, undos_used=undos)
                written.append((record, game))
                if tap.follow is not None:
                    followed.append((record, tap.follow))
                results.append(snapshot_of(record, game, today=today, outcome=outcome))
            if writes and not await stored_games.write_states(tx, writes):
                # another action committed in between (only possible without the row locks above)
                raise _Retry() if len(batch) > 1 else _Conflict()
            # what must reach a chat, committed with the moves that cause it (bot/app/outbox.py)
            at = self.outbox.now() if self.outbox is not None else now.timestamp()
            for record, locale in followed:
                await ask_board(tx, record, locale, at)
            told = [await ask_tell(tx, record, at) for record, _ in written if record.status in (WON, BLOCKED)]
        if self.outbox is not None and (followed or any(told)):
            self.outbox.written()
        for record, game in written:
            self._remember(record, game)
            if record.status != PLAYING and record.verdict_at is None:
                self.verdicts.schedule(record.code)
        return results

    def _engine_of(self, record: GameRecord) -> Game:
        """The engine at ``record``'s state: a copy of the one this process last wrote, else read from the text."""
        known = self._engines.get(record.id)
        if known is not None and known[0] == record.state:
            return known[1].copy()
        return Game.from_text(record.state)

    def _remember(self, record: GameRecord, game: Game) -> None:
        engines = self._engines
        engines.pop(record.id, None)
        if record.active:
            engines[record.id] = (record.state, game.copy())
            if len(engines) > GAME_CACHE_SIZE:
                del engines[next(iter(engines))]


def _marks(tap: _Tap, record: GameRecord | None) -> bool:
    """Whether ``tap`` leaves its mark (a Draw or Undo on the player's own game), by which its double tap is told."""
    return isinstance(tap.action, Draw | Undo) and record is not None and owner_of(record) == tap.player


def _mark(tap: _Tap) -> marks.Mark:
    """The mark of a Draw or Undo: that button, on that message (a tap on another board of the game is a tap of its
    own), on that board version, at the time the tap came."""
    button = marks.DRAW if isinstance(tap.action, Draw) else marks.UNDO
    return marks.Mark(tap.game_id, button if tap.board is None else marks.on_board(button, tap.board), tap.version,
                      tap.arrived)
