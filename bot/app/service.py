"""The game service: the one object every adapter talks to, a thin front over the parts that do the work, each
made with what it needs passed in:

- :class:`~bot.app.starts.Starts`: starting games, and the question before one with moves is abandoned;
- :class:`~bot.app.moves.Moves`: cards, Draw and Undo (batched), a card played by name;
- :class:`~bot.app.games.Games`: reading games, and where their boards are;
- :class:`~bot.app.solving.Verdicts` and :class:`~bot.app.solving.Advice`: the solver's verdicts, hints, reviews;
- :class:`~bot.app.daily_codes.DailyCodes`: the day and its deal;
- :class:`~bot.app.players.Players`: settings and statistics;
- :class:`~bot.app.leaderboards.Leaderboards` and :class:`~bot.app.subscriptions.Subscriptions`: the daily deal's
  shared side.
"""

from __future__ import annotations

import datetime as dt
from concurrent.futures import Executor

from bot.app.commands import (
    AskHint,
    ConfirmStart,
    GameCommand,
    Move,
    NewGame,
    Replay,
    Review,
    SettingChange,
    Share,
    StartRequest,
)
from bot.app.daily import Clock, DailyResult, Subscription, utc_clock
from bot.app.daily_codes import DailyCodes
from bot.app.errors import BadPayload, NoWinnableDeal
from bot.app.games import Games
from bot.app.leaderboards import Leaderboards
from bot.app.model import BoardRef, DealVerdict, GameSnapshot, Offers, PlayerKey, Settings, Stats
from bot.app.moves import Moves
from bot.app.players import Players
from bot.app.solver_calls import (
    DailyCodeFunction,
    HintFunction,
    ReviewFunction,
    VerdictFunction,
    daily_code_of,
    fair_hint,
    solver_review,
    solver_verdict,
)
from bot.app.solver_pool import SolverPool
from bot.app.solving import Advice, Verdicts
from bot.app.starts import Starts
from bot.app.subscriptions import Subscriptions
from bot.store.database import open_database
from bot.store.engine import Database
from core.deal import GameCode, Rules
from core.review import Review as GameReview

#: Seconds the search for a new winnable deal to offer may take: an inline query is answered while the player types.
FRESH_DEAL_BUDGET = 1.5


class GameService:
    """Games, settings, statistics and the daily deal of every player, in one database.

    ``executor`` runs the solver instead of the worker processes (tests). ``hint_function``,
    ``verdict_function``, ``review_function`` and ``daily_code_function`` are the calls into the solver
    (module-level functions, so a process pool can run them); ``clock`` tells the time (the daily deal's date).
    """

    def __init__(
        self,
        db: Database,
        *,
        hint_budget: float = 0.8,
        verdict_budget: float = 5.0,
        winnable_budget: float = 3.0,
        executor: Executor | None = None,
        hint_function: HintFunction = fair_hint,
        verdict_function: VerdictFunction = solver_verdict,
        review_function: ReviewFunction = solver_review,
        daily_code_function: DailyCodeFunction = daily_code_of,
        clock: Clock = utc_clock,
        owns_database: bool = False,
    ) -> None:
        self.db = db
        self.solver = SolverPool(executor)
        self._owns_database = owns_database
        self.verdicts = Verdicts(db, self.solver, verdict_function, verdict_budget)
        self.daily_codes = DailyCodes(db, self.solver, daily_code_function, clock)
        today = self.daily_codes.today
        self.advice = Advice(db, self.solver, hint_function, review_function, hint_budget, today)
        self.starts = Starts(db, self.verdicts, self.daily_codes, winnable_budget)
        self.moves = Moves(db, self.verdicts, today)
        self.games = Games(db, today)
        self.players = Players(db)
        self.leaderboards = Leaderboards(db)
        self.subscriptions = Subscriptions(db)

    @classmethod
    async def open(cls, url: str | None = None, *, executor: Executor | None = None,
                   hint_function: HintFunction = fair_hint, verdict_function: VerdictFunction = solver_verdict,
                   daily_code_function: DailyCodeFunction = daily_code_of, clock: Clock = utc_clock,
                   hint_budget: float = 0.8, verdict_budget: float = 5.0,
                   winnable_budget: float = 3.0) -> GameService:
        """Open the database at ``url`` (default: the SQLite file), upgrading it to the latest schema first, and
        start the solver workers; :meth:`close` closes both."""
        db = await open_database(url)
        service = cls(db, owns_database=True, executor=executor, hint_function=hint_function,
                      verdict_function=verdict_function, daily_code_function=daily_code_function, clock=clock,
                      hint_budget=hint_budget, verdict_budget=verdict_budget, winnable_budget=winnable_budget)
        service.solver.start()
        return service

    async def close(self) -> None:
        """Answer the taps already queued, stop background verdicts and the solver workers, and (when opened by
        :meth:`open`) close the database."""
        await self.moves.close()  # the taps already queued are committed and answered
        await self.verdicts.close()
        self.solver.close()
        if self._owns_database:
            await self.db.close()

    async def __aenter__(self) -> GameService:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- games ------------------------------------------------------------------------------------------------

    async def act(self, player: PlayerKey, name: str, command: GameCommand, *, ask: bool = False) -> GameSnapshot:
        """Apply a tap on a board: a move returns the game as it now stands; a hint the game with the advice;
        New game and Replay the new game (with ``ask``, :class:`ConfirmAbandon` first when they would abandon a
        game with moves); Share and Review the finished game (the review itself: :meth:`review`). Every command
        names a game, and only its owner's is applied.

        Raises :class:`GameNotFound`, :class:`NotYourGame`, :class:`NotCurrentGame`, :class:`StaleGame`, or
        :class:`GameNotOver` (Review, Share, Replay of a game still being played). A
        refused move is not an error: the snapshot's ``outcome`` says why, and the version stays.
        """
        match command:
            case Move():
                return await self.moves.move(player, name, command)
            case AskHint(game_id, version):
                return await self.advice.hint(player, game_id, version)
            case NewGame() | Replay():
                return await self.starts.from_board(player, name, command, ask=ask)
            case Review(game_id) | Share(game_id):
                return await self.games.finished_game(player, game_id)
        raise BadPayload(f"not a game command: {command!r}")

    async def start(self, player: PlayerKey, name: str, request: StartRequest | ConfirmStart, *,
                    chat_id: str | None = None, community: str | None = None, ask: bool = True) -> GameSnapshot:
        """:meth:`bot.app.starts.Starts.start`."""
        return await self.starts.start(player, name, request, chat_id=chat_id, community=community, ask=ask)

    async def new_game(self, player: PlayerKey, name: str, *, code: str | GameCode | None = None,
                       rules: Rules | None = None, winnable: bool | None = None, chat_id: str | None = None,
                       ask: bool = False, abandoning: int | None = None) -> GameSnapshot:
        """:meth:`bot.app.starts.Starts.new_game`."""
        return await self.starts.new_game(player, name, code=code, rules=rules, winnable=winnable, chat_id=chat_id,
                                          ask=ask, abandoning=abandoning)

    async def new_daily_game(self, player: PlayerKey, name: str, day: dt.date | None = None, *,
                             chat_id: str | None = None, community: str | None = None, ask: bool = False,
                             abandoning: int | None = None) -> GameSnapshot:
        """:meth:`bot.app.starts.Starts.new_daily_game`."""
        return await self.starts.new_daily_game(player, name, day, chat_id=chat_id, community=community, ask=ask,
                                                abandoning=abandoning)

    async def keep_playing(self, player: PlayerKey, game_id: int) -> GameSnapshot:
        """:meth:`bot.app.starts.Starts.keep_playing`."""
        return await self.starts.keep_playing(player, game_id)

    async def play_card(self, player: PlayerKey, name: str, text: str) -> GameSnapshot:
        """:meth:`bot.app.moves.Moves.play_card`."""
        return await self.moves.play_card(player, name, text)

    async def current_game(self, player: PlayerKey) -> GameSnapshot | None:
        """:meth:`bot.app.games.Games.current_game`."""
        return await self.games.current_game(player)

    async def offers(self, player: PlayerKey, *, fresh_budget: float = FRESH_DEAL_BUDGET) -> Offers:
        """What the player can send to a chat as an invitation: their current or last game, a new deal proved
        winnable under their default rules within ``fresh_budget`` seconds (None if none was), today's date."""
        latest = await self.games.latest_game(player)
        rules = (await self.players.get_settings(player)).default_rules
        try:
            fresh: GameCode | None = await self.verdicts.winnable_code(rules, fresh_budget)
        except NoWinnableDeal:
            fresh = None
        return Offers(latest, fresh, self.today())

    async def game(self, game_id: int) -> GameSnapshot:
        """:meth:`bot.app.games.Games.game`."""
        return await self.games.game(game_id)

    async def show_board(self, game_id: int, where: BoardRef) -> None:
        """:meth:`bot.app.games.Games.show_board`."""
        await self.games.show_board(game_id, where)

    async def review(self, game_id: int) -> GameReview | None:
        """:meth:`bot.app.solving.Advice.review`."""
        return await self.advice.review(game_id)

    async def wait_for_verdict(self, game_id: int, timeout: float | None = None) -> DealVerdict | None:
        """:meth:`bot.app.solving.Verdicts.wait_for`."""
        return await self.verdicts.wait_for(game_id, timeout)

    # --- players ----------------------------------------------------------------------------------------------

    async def get_settings(self, player: PlayerKey) -> Settings:
        """:meth:`bot.app.players.Players.get_settings`."""
        return await self.players.get_settings(player)

    async def update_settings(self, player: PlayerKey, *, name: str = "", **changes: object) -> Settings:
        """:meth:`bot.app.players.Players.update_settings`."""
        return await self.players.update_settings(player, name=name, **changes)

    async def change_setting(self, player: PlayerKey, name: str, change: SettingChange) -> Settings:
        """:meth:`bot.app.players.Players.change_setting`."""
        return await self.players.change_setting(player, name, change)

    async def stats(self, player: PlayerKey) -> Stats:
        """:meth:`bot.app.players.Players.stats`."""
        return await self.players.stats(player)

    # --- the daily deal ---------------------------------------------------------------------------------------

    def today(self) -> dt.date:
        """:meth:`bot.app.daily_codes.DailyCodes.today`."""
        return self.daily_codes.today()

    async def daily_leaderboard(self, platform: str, community: str, day: dt.date) -> list[DailyResult]:
        """:meth:`bot.app.leaderboards.Leaderboards.of`."""
        return await self.leaderboards.of(platform, community, day)

    async def subscribe(self, platform: str, channel_id: str, *, community: str | None, locale: str,
                        by: str = "") -> bool:
        """:meth:`bot.app.subscriptions.Subscriptions.subscribe`."""
        return await self.subscriptions.subscribe(platform, channel_id, community=community, locale=locale, by=by)

    async def unsubscribe(self, platform: str, channel_id: str) -> bool:
        """:meth:`bot.app.subscriptions.Subscriptions.unsubscribe`."""
        return await self.subscriptions.unsubscribe(platform, channel_id)

    async def daily_subscriptions(self, platforms: tuple[str, ...] | None = None) -> list[Subscription]:
        """:meth:`bot.app.subscriptions.Subscriptions.all`."""
        return await self.subscriptions.all(platforms)
