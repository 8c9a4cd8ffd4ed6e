"""Starting games: a random deal (winnable-only when asked or set), a deal by code, the daily deal (the player's
attempt, resumed while open), New game and Replay from a board; and asking before a game with moves is abandoned.

Starting a game abandons the player's game in progress; with ``ask`` a game with at least one move is not
abandoned without the player's confirmation (:class:`~bot.app.outcomes.MustConfirm`, carrying what would start),
and a start names the game it replaces, which must still be the player's latest (so a double tap starts one game:
the second answers :class:`~bot.app.outcomes.AlreadyStarted`, or :class:`~bot.app.outcomes.OldBoard` when the
board tapped is no longer the latest game's).

Every start is one :class:`StartOrder`: what to deal (:class:`Deal`), for whom, where, and what the question's Yes
would start again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import secrets
from typing import assert_never

from bot.app.challenges import key_holds
from bot.app.commands import (
    ChallengeDeal,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    NewGame,
    RandomDeal,
    Replay,
    ReplayDeal,
    RoundDeal,
    StartRequest,
)
from bot.app.daily_codes import DailyCodes
from bot.app.errors import DailyCodeLocked, GameNotOver, NoSuchRound, NotYourGame, RoundOver
from bot.app.model import GameSnapshot, PlayerKey
from bot.app.outcomes import AlreadyStarted, DayOver, MustConfirm, OldBoard, OutOfDate, Start
from bot.app.players import name_columns
from bot.app.records import code_hidden, load_checked, load_owned, owner_of, parse_code, snapshot_of
from bot.app.rounds import read_round
from bot.app.solving import Verdicts
from bot.store import daily as stored_daily
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store import rounds as stored_rounds
from bot.store.engine import Database
from bot.store.games import GameRecord
from bot.store.schema import PLAYING, utcnow
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import Game


@dataclasses.dataclass(frozen=True)
class Deal:
    """What a start deals: the deal ``code`` when chosen (its letter sets the rules), else a random deal under
    ``rules`` (None: the player's default rule set), proved winnable when ``winnable`` says so (None: the player's
    setting). ``daily``: the game is the player's attempt at that day's deal; ``practice_of``: another game of that
    day's deal (a replay after the attempt, a challenge, its code typed: ranked nowhere, and its code as hidden as
    the attempt's while the day runs); ``challenge``: the game it answers."""

    code: GameCode | None = None
    rules: Rules | None = None
    winnable: bool | None = None
    daily: dt.date | None = None
    challenge: int | None = None
    practice_of: dt.date | None = None
    round_id: int | None = None


@dataclasses.dataclass(frozen=True)
class StartOrder:
    """One start: ``deal`` for ``player`` (who goes by ``name``), in the chat ``chat_id`` (where its board will
    be) of the server or group ``community`` (None in a private chat), where the player is then seen: its daily
    leaderboard lists their attempts.

    ``replaces`` names the game this start replaces, which must still be the player's latest (so a double tap
    starts one game); with ``ask`` a game in progress with moves is only abandoned when ``confirmed`` (the player
    said Yes to abandoning ``replaces``), else :class:`MustConfirm` carries ``request`` for the question's Yes.
    """

    player: PlayerKey
    name: str
    deal: Deal
    request: StartRequest
    chat_id: str | None = None
    community: str | None = None
    ask: bool = False
    replaces: int | None = None
    confirmed: bool = False

    def must_ask(self, latest: GameRecord | None) -> bool:
        """Whether starting abandons ``latest`` (the player's latest game) without the player's Yes."""
        return (self.ask and latest is not None and latest.status == PLAYING and latest.moves > 0
                and not (self.confirmed and latest.id == self.replaces))


class Starts:
    """Starting games. ``winnable_budget`` is the seconds the search for a winnable deal may take."""

    def __init__(self, db: Database, verdicts: Verdicts, daily_codes: DailyCodes, winnable_budget: float) -> None:
        self.db = db
        self.verdicts = verdicts
        self.daily_codes = daily_codes
        self.winnable_budget = winnable_budget

    async def start(self, player: PlayerKey, name: str, request: StartRequest | ConfirmStart, *,
                    chat_id: str | None = None, community: str | None = None, ask: bool = True) -> Start:
        """Start what the player asked for (a random deal, a code, the daily deal), or what they confirmed."""
        abandoning = None
        if isinstance(request, ConfirmStart):
            abandoning, request = request.abandon, request.request
            async with self.db.transaction() as tx:
                await load_owned(tx, player, abandoning)  # a Yes is for the player who was asked
        match request:
            case RandomDeal(rules, winnable):
                return await self.new_game(player, name, rules=rules, winnable=winnable, chat_id=chat_id,
                                           community=community, ask=ask, abandoning=abandoning)
            case DealByCode(code):
                return await self.new_game(player, name, code=code, chat_id=chat_id, community=community, ask=ask,
                                           abandoning=abandoning)
            case DailyDeal(day):
                return await self.new_daily_game(player, name, day, chat_id=chat_id, community=community, ask=ask,
                                                 abandoning=abandoning)
            case ChallengeDeal():
                return await self.take_challenge(player, name, request, chat_id=chat_id, ask=ask,
                                                 abandoning=abandoning)
            case ReplayDeal(game_id):
                async with self.db.transaction() as tx:
                    record = await load_owned(tx, player, game_id)  # only one's own game is replayed
                return await self._start(self._replay(player, name, record, request, ask=ask, replaces=abandoning,
                                                      confirmed=abandoning is not None))
            case RoundDeal():
                return await self.join_round(player, name, request, chat_id=chat_id, ask=ask, abandoning=abandoning)
            case unhandled:
                assert_never(unhandled)

    async def new_game(self, player: PlayerKey, name: str, *, code: str | GameCode | None = None,
                       rules: Rules | None = None, winnable: bool | None = None, chat_id: str | None = None,
                       community: str | None = None, ask: bool = False,
                       abandoning: int | None = None) -> Start:
        """Start a game for ``player`` and make it their current one; their game in progress ends as abandoned
        (with ``ask``, a game with moves only when ``abandoning`` names it: else :class:`MustConfirm`).

        - ``code``: that deal (its letter sets the rules); :class:`BadGameCode` if it is not a code, and
          :class:`DailyCodeLocked` for the code of a recent daily deal whose attempt the player has not ended.
        - otherwise a random deal under ``rules`` (default: the player's default rule set), winnable-only when
          ``winnable`` says so (default: the player's setting; :class:`NoWinnableDeal` if none was proved
          winnable within ``winnable_budget``).
        """
        chosen = parse_code(code) if code is not None else None
        day = await self.daily_codes.check_unlocked(player, chosen) if chosen is not None else None
        request = DealByCode(str(chosen)) if chosen is not None else RandomDeal(rules, winnable)
        deal = Deal(code=chosen, practice_of=day) if chosen is not None else Deal(rules=rules, winnable=winnable)
        return await self._start(StartOrder(player, name, deal, request, chat_id=chat_id, community=community,
                                            ask=ask, replaces=abandoning, confirmed=abandoning is not None))

    async def take_challenge(self, player: PlayerKey, name: str, challenge: ChallengeDeal, *,
                             chat_id: str | None = None, ask: bool = False,
                             abandoning: int | None = None) -> Start:
        """Play this deal, tapped under the shared game ``challenge.game_id``: a game of its deal that remembers it,
        to be compared with it when it ends; an ordinary game otherwise (it counts in the stats, ranks nowhere).
        :class:`NotYourGame` when the key is not that game's (a guessed game number;
        :func:`bot.app.challenges.key_holds`), or it is a game of a daily deal still being played (its running
        score is its player's); a recent daily deal is locked as any code is (:class:`DailyCodeLocked` until the
        player's own attempt has ended). The challenger's own tap replays the deal, as Replay does."""
        async with self.db.transaction() as tx:
            challenged = await stored_games.load(tx, challenge.game_id)
        if challenged is None or not key_holds(challenged, challenge.key, await self.daily_codes.secret()):
            raise NotYourGame()
        if owner_of(challenged) == player:  # one's own shared game: played again, with no own score to beat
            hidden = code_hidden(challenged, self.daily_codes.today())
            replay = ReplayDeal(challenged.id) if hidden else DealByCode(challenged.code)
            return await self._start(self._replay(player, name, challenged, replay, ask=ask, replaces=abandoning,
                                                  confirmed=abandoning is not None))
        of_daily = (challenged.daily or challenged.practice_of) is not None
        if (of_daily and challenged.status == PLAYING) or (
                challenged.round_id is not None and challenged.round_ended_at is None):
            # a daily game is challenged by reference: never one still being played, whose running score the
            # challenger would see (the attempt may be played privately, on no leaderboard)
            raise NotYourGame()
        code = parse_code(challenged.code)
        try:
            day = await self.daily_codes.check_unlocked(player, code)
        except DailyCodeLocked as locked:  # the player saw a shared result, not a code: say so
            raise DailyCodeLocked(locked.day, shared=True) from None
        deal = Deal(code=code, challenge=challenged.id, practice_of=day)
        return await self._start(StartOrder(player, name, deal, challenge,
                                            chat_id=chat_id, ask=ask, replaces=abandoning,
                                            confirmed=abandoning is not None))

    async def join_round(self, player: PlayerKey, name: str, request: RoundDeal, *, chat_id: str | None = None,
                         ask: bool = False, abandoning: int | None = None) -> Start:
        """The player's entry in the round ``request.round_id``: its deal, ranked there; joined again, their entry as
        it stands (one entry a player: a unique index keeps concurrent joins to one). :class:`RoundOver` once it
        has ended, :class:`NoSuchRound` for no round."""
        async with self.db.transaction() as tx:
            found = await stored_rounds.load_round(tx, request.round_id)
            if found is None:
                raise NoSuchRound()
            if found.ended_at is not None or found.ends_at <= utcnow():
                raise RoundOver(await read_round(tx, found))
            owner = await stored_players.find(tx, player.platform, player.user_id)
            entry = await stored_rounds.entry_of(tx, found.id, owner.id) if owner is not None else None
            record = await stored_games.load(tx, entry) if entry is not None else None
        if record is not None:
            return snapshot_of(record, today=self.daily_codes.today())
        deal = Deal(code=GameCode.parse(found.code), round_id=found.id)
        return await self._start(StartOrder(player, name, deal, request, chat_id=chat_id, ask=ask,
                                            replaces=abandoning, confirmed=abandoning is not None))

    async def new_daily_game(self, player: PlayerKey, name: str, day: dt.date | None = None, *,
                             chat_id: str | None = None, community: str | None = None, ask: bool = False,
                             abandoning: int | None = None) -> Start:
        """The player's attempt at the daily deal of ``day`` (today when None): started the first time, resumed
        while it is open, and once it has ended a practice replay that ranks nowhere. Only today's can be started
        (:class:`BadPayload` for a day to come, :class:`DailyOver` for one gone). Any number of concurrent starts,
        from any process, end on one attempt (the database has one a player a day). ``community``: the server or
        group the player is seen in (None in a private chat)."""
        day = self.daily_codes.day_asked(day)
        code = await self.daily_codes.code(day)
        async with self.db.transaction() as tx:
            attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
        if attempt is not None and attempt.active:
            if community is not None:
                async with self.db.transaction() as tx:
                    await stored_daily.seen_in(tx, attempt.owner_id, community, utcnow())
            return snapshot_of(attempt, today=day)  # resumed: restarting the attempt is not allowed
        deal = Deal(code=code, daily=day) if attempt is None else Deal(code=code, practice_of=day)
        return await self._start(StartOrder(player, name, deal, DailyDeal(day), chat_id=chat_id,
                                            community=community, ask=ask, replaces=abandoning,
                                            confirmed=abandoning is not None))

    async def from_board(self, player: PlayerKey, name: str, command: NewGame | Replay, *,
                         ask: bool = False) -> Start | OutOfDate:
        """New game (a new deal under the same rules, winnable-only if the game was) or Replay (the same deal)
        tapped on a board of ``command``'s game, which must still be the player's latest."""
        async with self.db.transaction() as tx:
            if isinstance(command, NewGame):
                record = await load_checked(tx, player, command.game_id, command.version, self.daily_codes.today())
                if isinstance(record, DayOver):  # the attempt its day ended: 🆕 on it starts a new game all the same
                    record = await load_owned(tx, player, command.game_id)
                elif isinstance(record, OutOfDate | OldBoard):
                    return record
            else:
                record = await load_owned(tx, player, command.game_id)
        if isinstance(command, Replay):
            hidden = code_hidden(record, self.daily_codes.today())
            request = ReplayDeal(record.id) if hidden else DealByCode(record.code)
            return await self._start(self._replay(player, name, record, request, ask=ask, replaces=command.game_id))
        rules = Rules(record.rules)
        return await self._start(StartOrder(player, name, Deal(rules=rules, winnable=record.dealt_winnable),
                                            RandomDeal(rules, record.dealt_winnable), chat_id=record.chat_id,
                                            ask=ask, replaces=command.game_id))

    @staticmethod
    def _replay(player: PlayerKey, name: str, record: GameRecord, request: ReplayDeal | DealByCode, *, ask: bool,
                replaces: int | None, confirmed: bool = False) -> StartOrder:
        """The start of ``record``'s deal again (a game of a daily deal stays one: ranked nowhere, its code as
        hidden as the day's), asked for by ``request`` (which names the code only where it may be shown). Not of
        a daily attempt still being played (:class:`GameNotOver`: no peek at its deal)."""
        if record.daily is not None and record.status == PLAYING:
            raise GameNotOver(f"the daily attempt {record.id} is still being played")
        if record.round_id is not None and record.round_ended_at is None:
            raise GameNotOver(f"the round of game {record.id} is still running")  # its code stays unsaid
        deal = Deal(code=GameCode.parse(record.code), practice_of=record.daily or record.practice_of)
        return StartOrder(player, name, deal, request, chat_id=record.chat_id, ask=ask, replaces=replaces,
                          confirmed=confirmed)

    async def keep_playing(self, player: PlayerKey, game_id: int) -> GameSnapshot:
        """No on "abandon your game in progress?": the game goes on (:class:`NotYourGame` for anyone else)."""
        async with self.db.transaction() as tx:
            return snapshot_of(await load_owned(tx, player, game_id), today=self.daily_codes.today())

    async def _start(self, order: StartOrder) -> Start:
        """Start the game ``order`` asks for (see :class:`StartOrder` for the questions asked first)."""
        player, deal, today = order.player, order.deal, self.daily_codes.today()
        async with self.db.transaction() as tx:  # asked before any search for a winnable deal
            latest = await stored_games.latest_of(tx, player.platform, player.user_id)
        if order.must_ask(latest):
            assert latest is not None
            return MustConfirm(snapshot_of(latest, today=today), order.request)
        code, rules, winnable = deal.code, deal.rules, deal.winnable
        if code is None:
            async with self.db.transaction() as tx:
                found = await stored_players.find(tx, player.platform, player.user_id)
            rules = rules or (Rules(found.default_rules) if found is not None else Rules.EASY)
            if winnable is None:
                winnable = (found.winnable_only if found is not None and found.winnable_only is not None
                            else rules is Rules.CLASSIC)
            if winnable:
                code = await self.verdicts.winnable_code(rules, self.winnable_budget, player)  # in the player's turns
        else:
            winnable = False
        now = utcnow()
        async with self.db.transaction() as tx:
            # The upsert comes first: on PostgreSQL it locks the player's row, so two new games of one player
            # queue here rather than both ending the same old game.
            owner = await stored_players.upsert(tx, player.platform, player.user_id, name_columns(order.name), now)
            if order.community is not None:
                await stored_daily.seen_in(tx, owner.id, order.community, now)
            if deal.daily is not None:
                # insert or get: a concurrent start (this player's row is locked now) may have made the attempt
                attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, deal.daily)
                if attempt is not None:
                    return snapshot_of(attempt, today=today)
            if deal.round_id is not None:
                # insert or get, as the daily attempt: a concurrent join of this player may have made the entry
                entry = await stored_rounds.entry_of(tx, deal.round_id, owner.id)
                if entry is not None:
                    return snapshot_of(await load_owned(tx, player, entry), today=today)
            latest = await stored_games.latest_of(tx, player.platform, player.user_id)
            if order.replaces is not None and (latest is None or latest.id != order.replaces):
                if latest is not None and latest.id > order.replaces and (
                        order.confirmed or deal.code is not None and latest.code == str(deal.code)):
                    return AlreadyStarted()  # Yes or Replay tapped twice: the game it starts has started
                return OldBoard(snapshot_of(latest, today=today) if latest is not None else None)
            if order.must_ask(latest):
                assert latest is not None
                return MustConfirm(snapshot_of(latest, today=today), order.request)
            chosen = code is not None and not winnable
            if code is None:
                code = GameCode(rules or Rules(owner.default_rules), secrets.randbelow(DEAL_COUNT))
            await stored_games.end_active(tx, owner.id, now)
            replaced = None
            if latest is not None:
                replaced = await stored_games.load(tx, latest.id)
            verdict: tuple[bool | None, int | None, dt.datetime | None] = (True if winnable else None, None, None)
            if chosen:
                # a chosen deal (a daily one above all) may have been solved for someone else already
                verdict = await stored_games.known_verdict(tx, str(code)) or verdict
            game = Game.from_code(code)
            record = await stored_games.insert_game(tx, owner, stored_games.NewGameRow(
                code=str(code), rules=code.rules.value, state=game.to_text(), score=game.score, daily=deal.daily,
                practice_of=deal.practice_of, dealt_winnable=bool(winnable), verdict_winnable=verdict[0],
                verdict_best_score=verdict[1], verdict_at=verdict[2], chat_id=order.chat_id,
                community=order.community if deal.daily is not None else None, started_at=now,
                challenge_of=deal.challenge, round_id=deal.round_id))
            if deal.challenge is not None:  # read again with the challenged game it is compared with
                record = await stored_games.load(tx, record.id) or record
        if record.verdict_at is None:
            self.verdicts.schedule(record.code)
        return snapshot_of(record, game, today=today,
                           replaced=snapshot_of(replaced, today=today) if replaced is not None else None)
