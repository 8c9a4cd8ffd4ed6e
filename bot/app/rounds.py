"""Live rounds: a group (or a server's channel) plays one deal together against a clock.

``/round [minutes] [classic | a code]`` starts one (:meth:`Rounds.start`): a random winnable deal unless a code is
given, for 1 to 60 minutes (5 by default). The chat gets one round message (its rules, the time left, who joined,
how to join: :class:`~bot.app.effects.PostRound`), which the platform's executor keeps up to date at the chat's
pace (:class:`~bot.app.effects.RedrawRound`, after each move of an entry), drawing the round as the database has it
then. Each player joins once (:class:`~bot.app.commands.RoundDeal`: :meth:`bot.app.starts.Starts.join_round`) and
plays the deal on a table of their own, ranked: no undo, hints counted. A random deal's code is in no message
until the round ends (:func:`bot.app.records.code_hidden`).

A round ends once, in the database, whichever process sees it first: when its time is up (:meth:`Rounds.end_due`,
run every second by each platform's loop) or when everyone who joined has finished (:meth:`Rounds.after_move`).
Then its open games end as they stand and its message shows the results: ranked (won before not, then score, then
fewer moves, then who finished first), the winner's score, the deal's code and its par (the solver's best score).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt

from bot.app.commands import Actor, StartRound, Surface
from bot.app.effects import Answer, Problem
from bot.app.errors import NoSuchRound, RoundMinutes, RoundMinutesCut, RoundsInGroupsOnly
from bot.app.model import BoardRef, GameSnapshot, PlayerKey, RoundEntry, RoundSnapshot, Settings, Stats
from bot.app.records import parse_code
from bot.app.round_effects import PostRound, RedrawRound, RoundWatched
from bot.app.solving import Verdicts
from bot.i18n import resolve_locale
from bot.store import games as stored_games
from bot.store import rounds as stored_rounds
from bot.store.engine import Database, Transaction
from bot.store.rounds import EntryRecord, RoundRecord
from bot.store.schema import PLAYING, WON, utcnow
from core.deal import GameCode, Rules
from core.game import Game
from core.layout import SLOT_COUNT

#: An effect on a round's message, and a line to its host.
Effect = PostRound | RedrawRound | Answer

#: How long a round may last (minutes), and how long one lasts when not said.
MINUTES_MIN, MINUTES_MAX, MINUTES_DEFAULT = 1, 60, 5
#: How long a round may last where its message is the command's response, edited through the interaction (Discord,
#: where the bot is no member of the chat): Discord takes edits with the interaction's token for 15 minutes, and the
#: results' edit must land within them.
REPLY_MINUTES_MAX = 10
#: How long after a round ended its results are shown again when no process reported them shown.
RESULTS_AGAIN_AFTER = dt.timedelta(seconds=30)
#: Seconds the search for a random winnable deal may take.
ROUND_DEAL_BUDGET = 3.0


def instance_chat(instance_id: str) -> str:
    """Where the round of a Discord Activity instance is played, as a round's chat (no channel has this id)."""
    return f"activity:{instance_id}"[:64]


def entry_of(record: EntryRecord) -> RoundEntry:
    game = Game.from_text(record.state)
    return RoundEntry(PlayerKey(record.platform, record.user_id), record.name, record.game_id,
                      SLOT_COUNT - game.cards_left, game.peaks_cleared(), record.score, record.moves,
                      record.hints_used, record.status == WON, record.status != PLAYING, record.finished_at, game,
                      record.version)


def ranked(entries: list[RoundEntry]) -> tuple[RoundEntry, ...]:
    """Best first: won before not, then the higher score, then fewer moves, then who finished first (a game still
    open counts as it stands, after those finished), then who joined first."""
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    return tuple(sorted(entries, key=lambda e: (not e.won, -e.score, e.moves, e.finished_at or far, e.game_id)))


def round_snapshot(record: RoundRecord, entries: list[EntryRecord], now: dt.datetime,
                   par: int | None = None) -> RoundSnapshot:
    message = BoardRef(record.chat_id, record.message_id) if record.message_id is not None else None
    return RoundSnapshot(record.id, record.platform, record.chat_id, message, GameCode.parse(record.code),
                         record.chosen, record.host, record.locale, record.minutes, record.ends_at,
                         record.ended_at is not None, now, ranked([entry_of(entry) for entry in entries]), par)


async def read_round(tx: Transaction, record: RoundRecord) -> RoundSnapshot:
    """The round ``record`` as it stands, its entries read in ``tx`` (and, once it has ended, its par)."""
    entries = await stored_rounds.entries(tx, record.id)
    verdict = await stored_games.known_verdict(tx, record.code) if record.ended_at is not None else None
    return round_snapshot(record, entries, utcnow(), verdict[1] if verdict is not None else None)


async def _loaded(tx: Transaction, round_id: int) -> RoundSnapshot:
    record = await stored_rounds.load_round(tx, round_id)
    if record is None:
        raise NoSuchRound()
    return await read_round(tx, record)


class Rounds:
    """Live rounds over ``db``; ``verdicts`` deals a random winnable deal. Each use case answers with the effects on
    the round's message (:mod:`bot.app.round_effects`)."""

    def __init__(self, db: Database, verdicts: Verdicts, deal_budget: float = ROUND_DEAL_BUDGET) -> None:
        self.db = db
        self.verdicts = verdicts
        self.deal_budget = deal_budget
        #: each running round's mark (:func:`bot.store.rounds.running_changes`) as this process last drew it
        self._drawn: dict[int, tuple[int, int]] = {}
        #: the Activity instances whose round this process is looking for or starting
        self._searching: dict[str, asyncio.Lock] = {}

    async def start(self, actor: Actor, command: StartRound, surface: Surface, settings: Settings) -> list[Effect]:
        """A new round in the actor's chat (a group or a server's channel: :class:`RoundsInGroupsOnly` elsewhere)
        of ``command.minutes`` (:class:`RoundMinutes` outside 1-60): its message, in the host's language. Where the
        bot is no member of the chat (``surface.installed`` false: the message is the command's response, edited
        through the interaction) a round lasts at most :data:`REPLY_MINUTES_MAX` minutes, which its host is told
        when they asked for more."""
        if actor.community is None or actor.chat_id is None:
            raise RoundsInGroupsOnly()
        if not MINUTES_MIN <= command.minutes <= MINUTES_MAX:
            raise RoundMinutes(MINUTES_MIN, MINUTES_MAX)
        minutes = command.minutes if surface.installed else min(command.minutes, REPLY_MINUTES_MAX)
        if command.code is not None:
            code, chosen = parse_code(command.code), True
        else:
            code = await self.verdicts.winnable_code(command.rules or Rules.EASY, self.deal_budget, actor.player)
            chosen = False
        locale = resolve_locale(settings.language, surface.platform_locale)
        async with self.db.transaction() as tx:
            record = await stored_rounds.insert_round(tx, platform=surface.platform, chat_id=actor.chat_id,
                                                      code=str(code), chosen=chosen, host=actor.name[:100],
                                                      locale=locale, minutes=minutes, now=utcnow())
        self.verdicts.schedule(str(code))  # its par, for the results
        posted: list[Effect] = [PostRound(round_snapshot(record, [], utcnow()))]
        if minutes < command.minutes:
            posted.append(Answer(Problem(RoundMinutesCut(minutes), settings)))
        return posted

    async def in_instance(self, instance_id: str, player: PlayerKey, host: str, locale: str) -> int:
        """The round of the Discord Activity instance ``instance_id``: the one running there, else a new one (a
        random winnable Easy deal for :data:`MINUTES_DEFAULT` minutes from now: the first player to open the
        Activity starts it, ``player`` named ``host``, whose language it speaks; one ended, the next player starts
        the next). Started once in the database however many players open it at once; it has no message in a
        channel."""
        chat_id = instance_chat(instance_id)
        # the players of this process who open it together wait for one deal search (the database's lock below
        # is what starts the round once, across processes)
        searching = self._searching.setdefault(chat_id, asyncio.Lock())
        try:
            async with searching:
                async with self.db.reading() as tx:
                    running = await stored_rounds.running_in(tx, "discord", chat_id, utcnow())
                if running is not None:
                    return running.id
                code = await self.verdicts.winnable_code(Rules.EASY, self.deal_budget, player)
                async with self.db.transaction() as tx:
                    await stored_rounds.lock_chat(tx, "discord", chat_id)
                    running = await stored_rounds.running_in(tx, "discord", chat_id, utcnow())
                    if running is None:
                        running = await stored_rounds.insert_round(
                            tx, platform="discord", chat_id=chat_id, code=str(code), chosen=False,
                            host=host[:100], locale=locale, minutes=MINUTES_DEFAULT, now=utcnow())
                        self.verdicts.schedule(str(code))
                return running.id
        finally:
            if not searching.locked():
                self._searching.pop(chat_id, None)

    async def now(self, round_id: int) -> RoundSnapshot:
        """The round as it stands (:class:`NoSuchRound` for none), to draw its message: drawn as it is now."""
        async with self.db.transaction() as tx:
            round = await _loaded(tx, round_id)
        self._drawn[round_id] = (len(round.entries), sum(entry.version for entry in round.entries))
        return round

    async def read(self, round_id: int) -> RoundSnapshot:
        """The round as it stands (:class:`NoSuchRound` for none), for a watcher: its message is not drawn by it."""
        async with self.db.reading() as tx:
            return await _loaded(tx, round_id)

    async def watched(self, actor: Actor, round_id: int, settings: Settings) -> RoundWatched:
        """The round ``round_id`` as ``actor`` watches it from their chat (:meth:`RoundWatched.of`): a round of another chat
        (a forged payload) is :class:`NoSuchRound`, as one that does not exist, so it tells nothing of it."""
        async with self.db.reading() as tx:
            record = await stored_rounds.load_round(tx, round_id)
            if record is None or actor.chat_id is None or record.chat_id != actor.chat_id:
                raise NoSuchRound()
            return RoundWatched.of(await read_round(tx, record), actor.player, settings)

    async def shown(self, round_id: int, where: BoardRef, reply_token: str | None = None) -> None:
        """The round's message is at ``where`` (reported by the executor that posted it); ``reply_token``: the
        token it is edited with, where it is an interaction's response the bot cannot edit with its own."""
        async with self.db.transaction() as tx:
            await stored_rounds.set_message(tx, round_id, where.message_id, reply_token)

    async def reply_token(self, round_id: int) -> str | None:
        """The token the round's message is edited with, where it is an interaction's response (a secret: never
        logged); None where the platform edits it with the bot's own."""
        async with self.db.transaction() as tx:
            return await stored_rounds.reply_token(tx, round_id)

    async def moved(self, snapshot: GameSnapshot) -> list[Effect]:
        """After a join or a move in an entry of a round: its message brought up to date (the round ended when that
        game was the last one playing); nothing for a game in no round, or a refused move."""
        if snapshot.round_id is None or (snapshot.outcome is not None and not snapshot.outcome.ok):
            return []
        if snapshot.game.is_over:
            now = utcnow()
            async with self.db.transaction() as tx:
                if await stored_rounds.end_if_all_finished(tx, snapshot.round_id, now):
                    await stored_rounds.close_entries(tx, snapshot.round_id, now)
        return [RedrawRound(snapshot.round_id)]

    async def due(self, platform: str) -> list[Effect]:
        """The rounds of ``platform`` whose time is up, ended now (each by one process only), their open games
        ended as they stand: their messages brought to the results; those that ended a while ago whose results
        have not landed (a process stopped before the last edit), again; and the running ones moved since this
        process last drew them (a move at the table, or in another process)."""
        now = utcnow()
        async with self.db.transaction() as tx:
            ended = await stored_rounds.end_due(tx, platform, now)
            for round_id in ended:
                await stored_rounds.close_entries(tx, round_id, now)
            unshown = await stored_rounds.results_unshown(tx, platform, now - RESULTS_AGAIN_AFTER)
            changes = await stored_rounds.running_changes(tx, platform)
        # a running round moved where its message was not redrawn (a move at the table, another process)
        moved = [round_id for round_id, mark in changes.items() if self._drawn.get(round_id) != mark]
        for round_id in ended:
            self._drawn.pop(round_id, None)
        return [RedrawRound(round_id) for round_id in dict.fromkeys((*ended, *unshown, *moved))]

    async def results_shown(self, round_id: int) -> None:
        """The round's message now shows its results (reported by the platform that edited it)."""
        async with self.db.transaction() as tx:
            await stored_rounds.results_shown(tx, round_id, utcnow())

    async def with_rounds(self, player: PlayerKey, stats: Stats) -> Stats:
        """``stats`` with the player's ended rounds: how many they played and won (ranked first)."""
        async with self.db.transaction() as tx:
            rounds = await stored_rounds.tally_of(tx, player.platform, player.user_id)
        won = 0
        for _, entries in rounds:
            best = ranked([entry_of(entry) for entry in entries])
            won += bool(best) and best[0].player == player
        return dataclasses.replace(stats, rounds_played=len(rounds), rounds_won=won)
