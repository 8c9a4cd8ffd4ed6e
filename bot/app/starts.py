"""Starting games: a random deal (winnable-only when asked or set), a deal by code, the daily deal (the player's
attempt, resumed while open), a replay; and asking before a game with moves is abandoned.

Starting a game abandons the player's game in progress; with ``ask`` a game with at least one move is not
abandoned without the player's confirmation (:class:`ConfirmAbandon`, carrying what would start), and a start
names the game it replaces, which must still be the player's latest (so a double tap starts one game).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Callable

from bot.app import daily
from bot.app.commands import ConfirmStart, DailyDeal, DealByCode, RandomDeal, StartRequest
from bot.app.errors import BadPayload, ConfirmAbandon, DailyCodeLocked, NotCurrentGame, NoWinnableDeal
from bot.app.model import GameSnapshot, PlayerKey, clean_name
from bot.app.records import load_owned, parse_code, snapshot_of
from bot.app.solver_pool import INTERACTIVE, DailyCodeFunction, SolverPool
from bot.app.solving import Solving
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store.engine import Database
from bot.store.games import GameRecord
from bot.store.schema import PLAYING, utcnow
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import Game

#: The daily deal's search may take this long (it is done once a day and then remembered).
DAILY_CODE_BUDGET = 30.0

Clock = Callable[[], dt.datetime]


class Starts(Solving):
    """The use cases that start games; :class:`bot.app.games.Games` adds playing them."""

    db: Database
    solver: SolverPool
    clock: Clock
    daily_code_function: DailyCodeFunction
    winnable_budget: float

    def _init_starts(self) -> None:
        self._daily_codes: dict[dt.date, GameCode] = {}

    async def start(self, player: PlayerKey, name: str, request: StartRequest | ConfirmStart, *,
                    chat_id: str | None = None, board: str | None = None, ask: bool = True) -> GameSnapshot:
        """Start what the player asked for (a random deal, a code, the daily deal), or what they confirmed."""
        abandoning = None
        if isinstance(request, ConfirmStart):
            abandoning, request = request.abandon, request.request
            async with self.db.transaction() as tx:
                await load_owned(tx, player, abandoning)  # a Yes is for the player who was asked
        match request:
            case RandomDeal(rules, winnable):
                return await self.new_game(player, name, rules=rules, winnable=winnable, chat_id=chat_id, ask=ask,
                                           abandoning=abandoning)
            case DealByCode(code):
                return await self.new_game(player, name, code=code, chat_id=chat_id, ask=ask, abandoning=abandoning)
            case DailyDeal(day):
                return await self.new_daily_game(player, name, day, chat_id=chat_id, board=board, ask=ask,
                                                 abandoning=abandoning)
        raise BadPayload(f"not a start request: {request!r}")

    async def new_game(self, player: PlayerKey, name: str, *, code: str | GameCode | None = None,
                       rules: Rules | None = None, winnable: bool | None = None, chat_id: str | None = None,
                       ask: bool = False, abandoning: int | None = None) -> GameSnapshot:
        """Start a game for ``player`` and make it their current one; their game in progress ends as abandoned
        (with ``ask``, a game with moves only when ``abandoning`` names it: else :class:`ConfirmAbandon`).

        - ``code``: that deal (its letter sets the rules); :class:`BadGameCode` if it is not a code, and
          :class:`DailyCodeLocked` for the code of a recent daily deal whose attempt the player has not ended.
        - otherwise a random deal under ``rules`` (default: the player's default rule set), winnable-only when
          ``winnable`` says so (default: the player's setting; :class:`NoWinnableDeal` if none was proved
          winnable within ``winnable_budget``).
        """
        chosen = parse_code(code) if code is not None else None
        if chosen is not None:
            await self._check_daily_lock(player, chosen)
        request = DealByCode(str(chosen)) if chosen is not None else RandomDeal(rules, winnable)
        return await self._start(player, name, code=chosen, rules=rules, daily=None, winnable=winnable,
                                 chat_id=chat_id, ask=ask, abandoning=abandoning, confirmed=abandoning is not None,
                                 request=request)

    async def new_daily_game(self, player: PlayerKey, name: str, day: dt.date | None = None, *,
                             chat_id: str | None = None, board: str | None = None, ask: bool = False,
                             abandoning: int | None = None) -> GameSnapshot:
        """The player's attempt at the daily deal of ``day`` (today when None): started the first time, resumed
        while it is open, and once it has ended a replay that ranks nowhere. ``board`` is the leaderboard the
        attempt counts on (a Discord server or Telegram group; None in a private chat). A day after today (by the
        service's clock) is a tampered request: :class:`BadPayload`."""
        today = self.today()
        if day is None:
            day = today
        elif day > today:
            raise BadPayload(f"daily deal of {day} is in the future")
        code = await self.daily_code(day)
        async with self.db.transaction() as tx:
            attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
        if attempt is not None and attempt.active:
            return snapshot_of(attempt)  # resumed: restarting the attempt is not allowed
        return await self._start(player, name, code=code, rules=None, daily=None if attempt else day,
                                 winnable=False, chat_id=chat_id, board=board, ask=ask, abandoning=abandoning,
                                 confirmed=abandoning is not None, request=DailyDeal(day))

    def today(self) -> dt.date:
        """Today's date (UTC) by the service's clock: the day of the daily deal."""
        return daily.today(self.clock())

    async def daily_code(self, day: dt.date) -> GameCode:
        """The daily deal of ``day``, searched for in the solver pool the first time and remembered."""
        code = self._daily_codes.get(day)
        if code is None:
            code = await self.solver.run(INTERACTIVE, DAILY_CODE_BUDGET, self.daily_code_function, day)
            if code is None:
                raise NoWinnableDeal(f"the daily deal of {day} could not be found in time")
            self._daily_codes[day] = code
        return code

    async def _check_daily_lock(self, player: PlayerKey, code: GameCode) -> None:
        """Today's or yesterday's daily deal is no practice game until the player's attempt at it has ended."""
        if code.rules is not Rules.EASY:
            return
        today = self.today()
        for day in (today, today - dt.timedelta(days=1)):
            if await self.daily_code(day) == code:
                async with self.db.transaction() as tx:
                    attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
                if attempt is None or attempt.active:
                    raise DailyCodeLocked(day)

    async def _start(self, player: PlayerKey, name: str, *, code: GameCode | None, rules: Rules | None,
                     daily: dt.date | None, winnable: bool | None, chat_id: str | None, ask: bool,
                     abandoning: int | None, board: str | None = None, confirmed: bool = False,
                     request: StartRequest | None = None) -> GameSnapshot:
        """Start a game. ``abandoning`` names the game this start replaces, which must still be the player's
        latest (so a double tap starts one game); with ``ask`` a game being played with moves is only abandoned
        when ``confirmed`` (else :class:`ConfirmAbandon`, carrying ``request`` for the question's Yes)."""

        def must_ask(latest: GameRecord | None) -> bool:
            return (ask and latest is not None and latest.status == PLAYING and latest.moves > 0
                    and not (confirmed and latest.id == abandoning))

        async with self.db.transaction() as tx:  # asked before any search for a winnable deal
            latest = await stored_games.latest_of(tx, player.platform, player.user_id)
        if must_ask(latest):
            assert latest is not None
            raise ConfirmAbandon(snapshot_of(latest), request)
        if code is None:
            async with self.db.transaction() as tx:
                found = await stored_players.find(tx, player.platform, player.user_id)
            rules = rules or (Rules(found.default_rules) if found is not None else Rules.EASY)
            if winnable is None:
                winnable = (found.winnable_only if found is not None and found.winnable_only is not None
                            else rules is Rules.CLASSIC)
            if winnable:
                code = await self._winnable_code(rules)
        else:
            winnable = False
        now = utcnow()
        async with self.db.transaction() as tx:
            # The upsert comes first: on PostgreSQL it locks the player's row, so two new games of one player
            # queue here rather than both ending the same old game.
            owner = await stored_players.upsert(tx, player.platform, player.user_id, _name_change(name), now)
            latest = await stored_games.latest_of(tx, player.platform, player.user_id)
            if abandoning is not None and (latest is None or latest.id != abandoning):
                raise NotCurrentGame(snapshot_of(latest) if latest is not None else None)
            if must_ask(latest):
                assert latest is not None
                raise ConfirmAbandon(snapshot_of(latest), request)
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
            state = game.to_text()
            game_id = await stored_games.insert_game(
                tx, player_id=owner.id, code=str(code), rules=code.rules.value, state=state, version=0,
                status=PLAYING, active=True, score=game.score, moves=game.moves, daily=daily,
                dealt_winnable=bool(winnable), hints_used=0, undos_used=0, started_at=now, updated_at=now,
                finished_at=None, verdict_winnable=verdict[0], verdict_best_score=verdict[1],
                verdict_at=verdict[2], chat_id=chat_id, board=board)
        record = GameRecord(
            id=game_id, code=str(code), rules=code.rules.value, state=state, version=0, status=PLAYING,
            active=True, moves=0, daily=daily, dealt_winnable=bool(winnable), hints_used=0, undos_used=0,
            verdict_winnable=verdict[0], verdict_best_score=verdict[1], verdict_at=verdict[2], chat_id=chat_id,
            message_id=None, owner_id=owner.id, platform=player.platform, user_id=player.user_id,
            owner_name=owner.display_name, language=owner.language, explain_refusals=owner.explain_refusals,
            default_rules=owner.default_rules, winnable_only=owner.winnable_only)
        if record.verdict_at is None:
            self._schedule_verdict(record.code)
        return snapshot_of(record, game, replaced=snapshot_of(replaced) if replaced is not None else None)

    async def _winnable_code(self, rules: Rules) -> GameCode:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.winnable_budget
        while (remaining := deadline - loop.time()) > 0:
            code = GameCode(rules, secrets.randbelow(DEAL_COUNT))
            verdict = await self.solver.run(INTERACTIVE, remaining, self._verdict_function, str(code), remaining,
                                            False)
            if verdict is not None and verdict.winnable:
                return code
        raise NoWinnableDeal(f"no {rules.value} deal proved winnable within {self.winnable_budget:g} s")

    async def keep_playing(self, player: PlayerKey, game_id: int) -> GameSnapshot:
        """No on "abandon your game in progress?": the game goes on (:class:`NotYourGame` for anyone else)."""
        async with self.db.transaction() as tx:
            return snapshot_of(await load_owned(tx, player, game_id))


def _name_change(name: str) -> dict[str, object]:
    name = clean_name(name)
    return {"display_name": name} if name else {}
