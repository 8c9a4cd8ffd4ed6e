"""The application's one door: every command on every platform goes through :meth:`Flow.handle`, which calls the
use cases and answers with effects (:mod:`bot.app.effects`) for the platform's executor to carry out; what it did
(:class:`~bot.app.effects.BoardAt`) :meth:`Flow.record` keeps; :meth:`Flow.game_now` redraws a board.

- Starting a game (``/tripeaks new``, ``/daily``, Play under the welcome or a daily post, Yes under the question)
  asks first when it would abandon a game in progress with moves (Yes: :class:`~bot.app.commands.ConfirmStart`,
  No: :class:`~bot.app.commands.KeepPlaying`); otherwise the new game's board is sent, and the replaced game's
  board is closed.
- A card, Draw, Undo or Hint edits the tapped board in place, refusals included (the renderer's status line says
  why); a tap on an older board of the game counts (:mod:`bot.app.moves`: a double tap of Draw or Undo only
  refreshes it, and says so); Hint answers for the game as it stands.
- New game on a board: the question first when the game has moves (a double tap asks once); else the new game
  (drawn into the tapped message where the platform can, when it replaces the game that board showed). Replay: the
  same deal, a new board.
- Review: the solver's account, privately (or in the board's message: :mod:`bot.app.in_board`, as the settings);
  Share: the result as a public message. Both only for the game's owner, and once: the same button tapped again
  within :data:`ONCE_WITHIN` seconds does nothing, in any process (the database says which tap was first). Replay
  tapped again once its deal is dealt does nothing either.
- No, then Yes under the same question: the game goes on; Yes does nothing until the player is asked again.
- A game started from a challenge that ends tells its challenger how it went, once, through the outbox
  (:mod:`bot.app.outbox`), as the chat board of a game played at the table follows it (``Surface.at_table``).
- A tap on the board of a game that is no longer the player's latest, someone else's board, and every error: a
  private line, nothing else changed. A game that is not the player's, or no game at all, gets one answer that
  names nobody.
- The player's own things (rules, help, statistics, settings), leaderboards, daily posts and invitations too.
- The deployment owner's commands (:mod:`bot.app.owner`), answered to the owners alone; an account they blocked gets
  one line for every command, before anything is written; their notice is on every board the flow answers with.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from typing import assert_never

from bot.app.challenges import Challenges
from bot.app.codec import review_of, start_request
from bot.app.commands import (
    PLAIN,
    Actor,
    AskHint,
    BackToBoard,
    Begin,
    Blank,
    BoardChoice,
    Command,
    CompleteCard,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    DefaultRules,
    ExplainRefusals,
    FourColour,
    Invite,
    KeepPlaying,
    Language,
    Move,
    NewGame,
    OnBehalf,
    OpenBoard,
    OpenLink,
    OwnerBlock,
    OwnerCommand,
    OwnerHelp,
    OwnerNotice,
    OwnerStats,
    PlayCard,
    PlayDaily,
    RandomDeal,
    Replay,
    Resume,
    Review,
    Share,
    ShowHelp,
    ShowLeaderboard,
    ShowRules,
    ShowSettings,
    ShowStats,
    StartRequest,
    StartRound,
    Subscribe,
    Surface,
    SwitchWinnable,
    Unreadable,
    WatchRound,
    Welcome,
    WinnableOnly,
    subject,
)
from bot.app.daily_codes import DailyCodes
from bot.app.effects import (
    Answer,
    BoardAt,
    BoardLinkOf,
    CardChoices,
    EditBoard,
    EditMessage,
    Effect,
    HelpOf,
    Kept,
    OffersOf,
    OwnerAnswer,
    PlayAck,
    PointerOf,
    Post,
    PostedTo,
    Problem,
    Question,
    RedrawBoard,
    Report,
    ReviewOf,
    RoundAt,
    RulesOf,
    SendBoard,
    SettingsOf,
    ShareOf,
    StatsOf,
    WelcomeOf,
    off_message,
)
from bot.app.errors import (
    BadGameCode,
    BadPayload,
    Blocked,
    BotError,
    NoActiveGame,
    NotAPlayer,
    NotOwner,
    NotYourMessage,
    TappedTwice,
)
from bot.app.games import Games
from bot.app.in_board import InBoard, board_behind
from bot.app.leaderboards import Leaderboards
from bot.app.model import GameSnapshot, Offers, PlayerKey, Settings
from bot.app.moves import Moves, names_a_card, names_a_draw
from bot.app.once import OnceOnly
from bot.app.outbox import Outbox
from bot.app.outcomes import AlreadyStarted, MustConfirm, OldBoard, OutOfDate, Tapped
from bot.app.owner import Owners
from bot.app.players import Players
from bot.app.questions import Questions, asks_the_solver
from bot.app.records import parse_code
from bot.app.rounds import Rounds
from bot.app.solving import Advice, Verdicts
from bot.app.starts import Starts
from bot.app.subscriptions import Subscriptions
from bot.app.turns import Turns
from core.deal import Rules
from core.errors import TriPeaksError

#: How long a Share or Review of a game is not posted again (seconds): a double tap posts one message.
ONCE_WITHIN = 60.0
#: A second New game tap on the same board version within this many seconds is the same tap: one question.
ASK_ONCE_WITHIN = 3.0
#: Seconds the search for a new winnable deal to offer may take: an inline query is answered while the player types.
FRESH_DEAL_BUDGET = 1.5
#: How many free cards autocomplete offers at most (Discord's limit).
CHOICES_MAX = 25


class Flow:
    """The one door, over the use cases it is given. ``post_time`` is when the daily posts are made (UTC)."""

    def __init__(self, *, starts: Starts, moves: Moves, games: Games, advice: Advice, verdicts: Verdicts,
                 players: Players, leaderboards: Leaderboards, subscriptions: Subscriptions,
                 daily_codes: DailyCodes, once: OnceOnly, challenges: Challenges, questions: Questions,
                 outbox: Outbox, rounds: Rounds, owners: Owners, post_time: dt.time = dt.time(9, 0),
                 fresh_budget: float = FRESH_DEAL_BUDGET) -> None:
        self.questions = questions
        self.starts = starts
        self.moves = moves
        self.games = games
        self.advice = advice
        self.verdicts = verdicts
        self.players = players
        self.leaderboards = leaderboards
        self.subscriptions = subscriptions
        self.daily_codes = daily_codes
        self.once = once
        self.in_board = InBoard(games, advice, once)
        self.turns = Turns()  # a player's moves in the order they came
        self.challenges = challenges
        self.outbox = outbox
        self.rounds = rounds  # live rounds: ``rounds.now`` draws one as it stands, ``rounds.due`` ends them
        self.owners = owners  # the deployment's owners: their commands, the notice, the blocked accounts
        self.post_time = post_time
        self.fresh_budget = fresh_budget

    async def handle(self, actor: Actor, command: Command, surface: Surface = PLAIN) -> list[Effect]:
        """What ``command`` from ``actor`` does, as effects; an error is a private line in the player's language. A
        tap about something other than what the tapped message shows (a forged payload) never edits that message."""
        try:
            if await self.owners.blocked(actor.player):  # before anything is written: nothing stored from it
                raise Blocked()
            if asks_the_solver(command) and not self.questions.admit(actor.player):
                return []  # a flood of them: told once when to ask again, then not answered
            arrived = self.moves.clock()  # before the tap waits for its turn: a double tap is told by it
            async with self.turns.of(actor.player, command):
                await self.players.seen(actor.player, surface.platform_locale, actor.community)
                effects = await self._handle(actor, command, surface, arrived)
                if surface.at_table:
                    await self._follow(command, effects, surface)
            shown = surface.buttons is None or subject(command) in {None, *map(subject, surface.buttons)}
            return with_notice(effects if shown else off_message(effects), await self.owners.notice())
        except (BotError, TriPeaksError) as error:
            return await self._problem(actor, error)

    async def game_now(self, game_id: int) -> GameSnapshot:
        """The game as it stands, for an executor to draw its board at the moment the edit is sent."""
        return replace(await self.games.game(game_id), owner_notice=await self.owners.notice())

    async def game_version(self, game_id: int) -> int:
        """The game's version as it stands (one cheap read): whether a board drawn at an older one must be drawn
        again."""
        return await self.games.version(game_id)

    async def refuses(self, player: PlayerKey) -> bool:
        """Whether ``player``'s account is blocked by the deployment's owner (the table refuses it before reading
        anything)."""
        return await self.owners.blocked(player)

    async def record(self, reports: Sequence[Report]) -> None:
        """Keep what an executor reported: where each game's live board now is."""
        for report in reports:
            match report:
                case BoardAt(game_id, where):
                    await self.games.show_board(game_id, where)
                case RoundAt(round_id, where, reply_token):  # where a round's message is
                    await self.rounds.shown(round_id, where, reply_token)
                case PostedTo():
                    pass  # no command posts: the daily poster acts on these (bot.app.daily_posts)
                case unhandled:
                    assert_never(unhandled)

    # --- the commands ---------------------------------------------------------------------------------------------

    async def _handle(self, actor: Actor, command: Command, surface: Surface, arrived: float) -> list[Effect]:
        player, name = actor.player, actor.name
        match command:
            case Move():
                follow = (surface.platform_locale or "") if surface.at_table else None
                return await self._tapped(actor, await self.moves.move(player, name, command, arrived, follow=follow),
                                          surface)
            case AskHint(game_id, version):
                return await self._tapped(actor, await self.advice.hint(player, game_id, version), surface)
            case NewGame() | Replay():
                return await self._start_from_board(actor, command, surface)
            case Review(game_id):
                return await self.in_board.review(actor, game_id, surface, ONCE_WITHIN)
            case BackToBoard(game_id):
                return await self.in_board.back(actor, game_id, surface)
            case Share(game_id):
                snapshot = await self.games.finished_game(player, game_id)
                shared = await self.challenges.signed(snapshot)
                in_chat = surface.at_table and not surface.picks_chat and snapshot.board is not None
                if in_chat:  # what Share gives in the chat, there too: the result with its challenge, for all to play
                    if not await self.outbox.ask_share(snapshot, surface.platform_locale, ONCE_WITHIN):
                        raise TappedTwice(TappedTwice.SHARED)
                else:
                    await self.once.share(game_id, ONCE_WITHIN)  # once: a second tap within it is told so
                return [Post(ShareOf(shared, in_chat=in_chat))]
            case Begin(request):
                return await self._start(actor, request, surface)
            case PlayDaily(day):
                # everyone who taps Play under a daily post gets their own game, in a new message
                return await self._start(actor, DailyDeal(day), surface)
            case ConfirmStart():
                return await self._start(actor, command, surface)
            case KeepPlaying(game_id):
                kept = await self.starts.keep_playing(player, game_id)
                await self.once.keep(game_id)
                return [EditMessage(Kept(kept))]
            case Resume(start_if_none):
                current = await self.games.current_game(player)
                if current is None:
                    if start_if_none:
                        return await self._start(actor, RandomDeal(), surface)
                    raise NoActiveGame()
                return [SendBoard(current)]
            case WatchRound(round_id):
                return [Answer(await self.rounds.watched(actor, round_id, await self._settings(actor)))]
            case Blank():  # an empty place among the cards: nothing
                return []
            case PlayCard(text, loose):
                return await self._play(actor, text, loose, surface)
            case OpenLink(parameter):
                return await self._open_link(actor, parameter, surface)
            case ExplainRefusals() | DefaultRules() | Language() | WinnableOnly() | BoardChoice() | FourColour():
                if surface.addressee is not None and surface.addressee != player:
                    raise NotYourMessage()
                return await self._change_setting(actor, command, edit=True, in_board=board_behind(surface))
            case SwitchWinnable(on):
                if on is None:
                    now = await self.players.get_settings(player)
                    on = not now.deals_winnable_only(now.default_rules)
                return await self._change_setting(actor, WinnableOnly(on), edit=False)
            case ShowRules(play):
                return [Answer(RulesOf(await self._settings(actor), play))]
            case ShowHelp():
                return [Answer(HelpOf(await self._settings(actor)))]
            case Welcome():
                return [Answer(WelcomeOf(await self._settings(actor)))]
            case ShowStats():
                stats = await self.rounds.with_rounds(player, await self.players.stats(player))
                return [Answer(StatsOf(stats, await self._settings(actor)))]
            case StartRound():
                return [*await self.rounds.start(actor, command, surface, await self._settings(actor))]
            case ShowSettings():
                return await self.in_board.settings(actor, await self._settings(actor), surface)
            case ShowLeaderboard():
                return [await self.leaderboards.shown(actor, await self._settings(actor))]
            case Subscribe(on):
                return await self.subscriptions.answered(actor, on, surface, await self._settings(actor), self.post_time)
            case Invite(game_id):
                settings = await self._settings(actor)
                return [Answer(OffersOf(await self._offers(player, settings.default_rules, game_id), settings))]
            case CompleteCard(typed):
                return [Answer(CardChoices(await self.games.free_cards(player, typed, CHOICES_MAX)))]
            case OpenBoard():
                return [Answer(BoardLinkOf(await self._settings(actor)))]
            case Unreadable(reason):
                raise BadPayload(reason)
            case OnBehalf():
                raise NotAPlayer()
            case OwnerStats() | OwnerNotice() | OwnerBlock() | OwnerHelp():
                return await self._owner(actor, command)
            case unhandled:
                assert_never(unhandled)

    async def _owner(self, actor: Actor, command: OwnerCommand) -> list[Effect]:
        """An owner command: answered to the deployment's owners alone, privately; anyone else is refused with one
        line that tells nothing of the bot."""
        if not self.owners.is_owner(actor.player):
            raise NotOwner()
        return [Answer(OwnerAnswer(await self.owners.answer(command), await self._settings(actor)))]

    async def _start(self, actor: Actor, request: StartRequest | ConfirmStart, surface: Surface) -> list[Effect]:
        """Start ``request`` (or what the player confirmed): the new board, or the question first when that would
        abandon a game with moves."""
        confirmed = isinstance(request, ConfirmStart)
        if isinstance(request, ConfirmStart) and await self.once.was_kept(request.abandon):
            return []  # Yes tapped after No on the same question: the game goes on
        started = await self.starts.start(actor.player, actor.name, request, chat_id=actor.chat_id,
                                          community=actor.community, ask=True)
        match started:
            case MustConfirm(current, asked):
                await self.once.asked(current.game_id, current.version, None)
                # Yes starts what the player asked for (today's daily deal, not the day it was when asked)
                return [Answer(Question(current, asked if isinstance(request, ConfirmStart) else request))]
            case AlreadyStarted():  # said so: a click met with silence looks lost
                return await self._problem(actor, started)
            case OldBoard():
                return await self._problem(actor, started)
            case GameSnapshot():
                reuse = confirmed and surface.abilities.reuse
                return [SendBoard(started, reuse=reuse), *await self.rounds.moved(started)]
            case unhandled:
                assert_never(unhandled)

    async def _start_from_board(self, actor: Actor, command: NewGame | Replay, surface: Surface) -> list[Effect]:
        started = await self.starts.from_board(actor.player, actor.name, command, ask=True)
        match started:
            case MustConfirm(current, asked):
                if isinstance(command, NewGame) and not await self.once.asked(command.game_id, command.version,
                                                                              ASK_ONCE_WITHIN):
                    return []  # a double tap: the question is already on its way
                return [Answer(Question(current, asked))]
            case AlreadyStarted():  # said so: a click met with silence looks lost
                return await self._problem(actor, started)
            case OutOfDate(current):
                return [EditBoard(current, notice=Problem(started, current.settings))]
            case OldBoard():
                return await self._problem(actor, started)
            case GameSnapshot(replaced=replaced):
                reuse = (surface.abilities.reuse and isinstance(command, NewGame) and replaced is not None
                         and replaced.game_id == command.game_id and replaced.abandoned)
                return [SendBoard(started, reuse=reuse)]
            case unhandled:
                assert_never(unhandled)

    async def _tapped(self, actor: Actor, tapped: Tapped, surface: Surface) -> list[Effect]:
        """A tap on a board answered: the board edited to the game as it stands (with why nothing changed, for a
        tap from an older version), or a private line for a board of an older game."""
        match tapped:
            case OutOfDate(current):  # a double tap, or a game ended since: the game as it stands, and why
                return [EditBoard(current, notice=Problem(tapped, current.settings))]
            case OldBoard():
                return await self._problem(actor, tapped)
            case GameSnapshot():
                return [EditBoard(await self._with_verdict(tapped, surface)), *await self.rounds.moved(tapped)]
            case unhandled:
                assert_never(unhandled)

    async def _play(self, actor: Actor, text: str, loose: bool, surface: Surface) -> list[Effect]:
        """A card played by name, as if tapped: a short acknowledgement (the card played, or why not), and the live
        board redrawn when the card was played (a refused one changes nothing). ``loose`` text that names no card
        gets the pointer to the help."""
        if loose and not (names_a_card(text) or names_a_draw(text)):
            return [Answer(PointerOf(await self._settings(actor)))]
        match await self.moves.play_card(actor.player, actor.name, text):
            case OutOfDate() | OldBoard() as moved_on:
                return await self._problem(actor, moved_on)
            case GameSnapshot() as tapped:
                snapshot = await self._with_verdict(tapped, surface)
                refused = snapshot.outcome is not None and not snapshot.outcome.ok
                return [Answer(PlayAck(snapshot)), *([] if refused else [RedrawBoard(snapshot)]),
                        *await self.rounds.moved(snapshot)]
            case unhandled:
                assert_never(unhandled)

    async def _open_link(self, actor: Actor, parameter: str, surface: Surface) -> list[Effect]:
        """A link's parameter: a review (to its player only, each time it is asked for), a deal, a challenge or
        today's daily deal; anything else the welcome, after why the link could not be read."""
        game_id = review_of(parameter)
        if game_id is not None:
            snapshot = await self.games.finished_game(actor.player, game_id)
            return [Answer(ReviewOf(snapshot, await self.advice.review(actor.player, game_id)))]
        request = start_request(parameter)
        if isinstance(request, DealByCode):
            try:
                parse_code(request.code)
            except BadGameCode as error:  # a damaged link: say so, and welcome the player all the same
                settings = await self._settings(actor)
                return [Answer(Problem(error, settings)), Answer(WelcomeOf(settings))]
        return await self._start(actor, request, surface)

    async def _change_setting(self, actor: Actor, change: ExplainRefusals | DefaultRules | Language | WinnableOnly
                              | BoardChoice | FourColour, *, edit: bool, in_board: int | None = None) -> list[Effect]:
        """A setting changed: the settings message redrawn (``edit``: the tapped one; else a new answer), the game in
        progress when its board's look or language changed (not when ``in_board``'s message shows them: Back does)."""
        before = await self.players.get_settings(actor.player)
        after = await self.players.change_setting(actor.player, actor.name, change)
        effects: list[Effect] = [EditMessage(SettingsOf(after, in_board)) if edit else Answer(SettingsOf(after))]
        drawn = (after.board, after.four_colour, after.language)
        if in_board is None and drawn != (before.board, before.four_colour, before.language):
            current = await self.games.current_game(actor.player)
            if current is not None and not current.game.is_over:
                effects.append(RedrawBoard(current))
        return effects

    async def _offers(self, player: PlayerKey, rules: Rules, game_id: int | None) -> Offers:
        """What the player can send to a chat as an invitation: the finished game ``game_id`` (Share on its board),
        else their current or last game, as a challenge; a new deal proved winnable under their default rules within
        the fresh budget (None if none was), today's date."""
        latest = await (self.games.finished_game(player, game_id) if game_id is not None
                        else self.games.latest_game(player))
        latest = await self.challenges.signed(latest) if latest is not None else None
        fresh = await self.verdicts.fresh_code(player, rules, self.fresh_budget)
        return Offers(latest, fresh, self.daily_codes.today())

    async def _follow(self, command: Command, effects: list[Effect], surface: Surface) -> None:
        """At the table: the chat boards of the games it showed follow (a move's already did, with the move), and a
        game started there closes the old game's chat board and shows the new one in its chat."""
        shown: list[tuple[int, str | None]] = []
        for effect in effects:
            match effect:
                case SendBoard(snapshot):
                    replaced = snapshot.replaced
                    if replaced is not None:  # closed, and the new game shown in the chat of its board
                        shown.append((replaced.game_id, None))
                    shown.append((snapshot.game_id, replaced.board.chat_id if replaced and replaced.board else None))
                case EditBoard(snapshot) if not isinstance(command, Move):
                    shown.append((snapshot.game_id, None))
        if shown:
            await self.outbox.ask_boards(shown, surface.platform_locale)

    # --- helpers --------------------------------------------------------------------------------------------------

    async def _with_verdict(self, snapshot: GameSnapshot, surface: Surface) -> GameSnapshot:
        """``snapshot``, with the solver's verdict on its deal when the game just ended and the surface waits for
        one."""
        wait = surface.abilities.verdict_wait
        if wait is None or not snapshot.game.is_over or snapshot.verdict is not None or snapshot.outcome is None:
            return snapshot
        verdict = await self.verdicts.wait_for(snapshot.game_id, timeout=wait)
        return replace(snapshot, verdict=verdict) if verdict is not None else snapshot

    async def _settings(self, actor: Actor) -> Settings:
        return await self.players.get_settings(actor.player)

    async def _problem(self, actor: Actor, error: Exception | OutOfDate | OldBoard | AlreadyStarted) -> list[Effect]:
        """The private line explaining ``error``, in the player's language."""
        return [Answer(Problem(error, await self._settings(actor)))]


def with_notice(effects: list[Effect], notice: str | None) -> list[Effect]:
    """``effects`` with the owner's ``notice`` on every board they show (the line under its status)."""
    if notice is None:
        return effects
    noticed: list[Effect] = []
    for effect in effects:
        match effect:
            case SendBoard(snapshot) | EditBoard(snapshot) | RedrawBoard(snapshot):
                noticed.append(replace(effect, snapshot=replace(snapshot, owner_notice=notice)))
            case _:
                noticed.append(effect)
    return noticed
