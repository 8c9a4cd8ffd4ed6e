"""The one flow of a game on every platform: what a command or a tap on a board does, as effects
(:mod:`bot.app.effects`) for the platform's executor to carry out.

- Starting a game (``/tripeaks new``, ``/daily``, Play under the welcome or a daily post, Yes under the question)
  asks the service with ``ask=True``: when it would abandon a game in progress with moves the answer is the
  question, privately (Yes: :class:`~bot.app.commands.ConfirmStart`, No: :class:`~bot.app.commands.KeepPlaying`);
  otherwise the new game's board is sent, noted as its live board, and the replaced game's board is closed.
- A card, Draw, Undo or Hint edits the tapped board in place, refusals included (the renderer's status line says
  why); a card tapped on an older board of the game applies when it is legal now; Draw, Undo and Hint from an
  older board (a double tap) only refresh it to the game as it stands.
- New game on a board: the question first when the game has moves; else the new game (drawn into the tapped
  message where the platform can, when it replaces the game that board showed). Replay: the same deal, a new board.
- Review: the solver's account, privately; Share: the result as a public message. Both only for the game's owner,
  and once: the same button tapped again within :data:`ONCE_WITHIN` seconds does nothing (a double tap posts one
  message). Replay tapped again once its deal is dealt does nothing either.
- No under the question, then Yes under the same question (two quick taps): the game goes on; Yes does nothing
  until the player is asked again.
- The same card tapped twice plays it once; the second tap shows the board as it stands, without a word.
- A tap on the board of a game that is no longer the player's latest, someone else's board, and every error: a
  private line, nothing else changed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.app.commands import (
    AskHint,
    ConfirmStart,
    GameCommand,
    KeepPlaying,
    Move,
    NewGame,
    Replay,
    Review,
    Share,
    StartRequest,
)
from bot.app.effects import (
    Answer,
    EditBoard,
    EditMessage,
    Effect,
    Kept,
    PlayAck,
    Post,
    Problem,
    Question,
    RedrawBoard,
    ReviewOf,
    SendBoard,
    ShareOf,
)
from bot.app.errors import AlreadyDone, BotError, ConfirmAbandon, NoActiveGame, NotYourGame, StaleGame
from bot.app.model import GameSnapshot, PlayerKey
from bot.app.service import GameService

#: How long a Share or Review of a game is not posted again (seconds): a double tap posts one message.
ONCE_WITHIN = 60.0


@dataclass(frozen=True)
class Actor:
    """Who acted and where: ``player`` (named ``name``), in the chat ``chat_id`` of the server or group
    ``community`` (None in a private chat: a daily attempt there counts on no leaderboard)."""

    player: PlayerKey
    name: str
    chat_id: str | None = None
    community: str | None = None


class Flow:
    """The game flow over ``service``. With ``ask_once_within`` (seconds), a second New game tap on the same board
    that soon after a question is the same tap: the question is not asked again (Telegram, whose question is a
    message in the chat)."""

    def __init__(self, service: GameService, *, ask_once_within: float | None = None) -> None:
        self.service = service
        self.ask_once_within = ask_once_within
        #: New game taps just asked about, by (game id, version), with when
        self._asked: dict[tuple[int, int], float] = {}
        #: Shares and Reviews just done, by (kind, game id), with when
        self._done: dict[tuple[str, int], float] = {}
        #: games the player chose to keep playing under a question (No), until they are asked again
        self._kept: set[int] = set()

    async def problem(self, player: PlayerKey, error: Exception) -> list[Effect]:
        """The private line explaining ``error``, in the player's language."""
        return [Answer(Problem(error, await self.service.get_settings(player)))]

    async def start(self, actor: Actor, request: StartRequest | ConfirmStart, *,
                    reuse: bool = False) -> list[Effect]:
        """Start ``request`` (or what the player confirmed): the new board (``reuse``: the tapped message may become
        it), or the question first when that would abandon a game with moves."""
        if isinstance(request, ConfirmStart) and request.abandon in self._kept:
            return []  # Yes tapped after No on the same question: the game goes on
        try:
            snapshot = await self.service.start(actor.player, actor.name, request, chat_id=actor.chat_id,
                                                community=actor.community, ask=True)
        except ConfirmAbandon as asked:
            assert not isinstance(request, ConfirmStart)  # a confirmed start is never asked again
            self._kept.discard(asked.current.game_id)
            return [Answer(Question(asked.current, request))]
        except AlreadyDone:
            return []
        except BotError as error:
            return await self.problem(actor.player, error)
        return [SendBoard(snapshot, reuse=reuse)]

    async def tap(self, actor: Actor, command: GameCommand) -> list[Effect]:
        """A button of a board (see the module docstring)."""
        player, name = actor.player, actor.name
        try:
            match command:
                case Move() | AskHint():
                    return [EditBoard(await self.service.act(player, name, command))]
                case NewGame() | Replay():
                    return await self._start_from_board(actor, command)
                case Review(game_id):
                    snapshot = self._owned(player, await self.service.act(player, name, command))
                    if not self._once("review", game_id):
                        return []
                    return [Answer(ReviewOf(snapshot, await self.service.review(game_id)))]
                case Share(game_id):
                    snapshot = self._owned(player, await self.service.act(player, name, command))
                    return [Post(ShareOf(snapshot))] if self._once("share", game_id) else []
        except AlreadyDone:
            return []
        except StaleGame as stale:
            # an old board of the same game, or a double tap: nothing changed; show the game as it stands
            return [EditBoard(stale.current, notice=Problem(stale, stale.current.settings))]
        except BotError as error:
            return await self.problem(player, error)

    async def review(self, actor: Actor, game_id: int) -> list[Effect]:
        """The review of the player's finished game ``game_id`` asked for by a link (Telegram's ``/start
        review-<game>``, which a Review tapped in a group opens when the bot may not write first): privately, each
        time it is asked for (the tap that gave the link was the one a double tap counts)."""
        try:
            snapshot = self._owned(actor.player, await self.service.act(actor.player, actor.name, Review(game_id)))
        except BotError as error:
            return await self.problem(actor.player, error)
        return [Answer(ReviewOf(snapshot, await self.service.review(game_id)))]

    async def keep(self, actor: Actor, command: KeepPlaying) -> list[Effect]:
        """No under the question: the question becomes "your game goes on"."""
        try:
            kept = await self.service.keep_playing(actor.player, command.game_id)
        except BotError as error:
            return await self.problem(actor.player, error)
        self._asked = {key: at for key, at in self._asked.items() if key[0] != command.game_id}
        self._kept.add(command.game_id)
        return [EditMessage(Kept(kept))]

    async def resume(self, actor: Actor) -> list[Effect]:
        """The game in progress as a new board, its live board from now on."""
        snapshot = await self.service.current_game(actor.player)
        if snapshot is None:
            return await self.problem(actor.player, NoActiveGame())
        return [SendBoard(snapshot)]

    async def play(self, actor: Actor, text: str) -> list[Effect]:
        """A card played by name, as if tapped: a short acknowledgement (the card played, or why not), and the live
        board redrawn when the card was played (a refused one changes nothing); words that name no card and cards
        not in play get the renderer's explanation."""
        try:
            snapshot = await self.service.play_card(actor.player, actor.name, text)
        except BotError as error:  # NoActiveGame, NotACard, CardNotInPlay, Busy...
            return await self.problem(actor.player, error)
        refused = snapshot.outcome is not None and not snapshot.outcome.ok
        return [Answer(PlayAck(snapshot)), *([] if refused else [RedrawBoard(snapshot)])]

    async def _start_from_board(self, actor: Actor, command: NewGame | Replay) -> list[Effect]:
        try:
            snapshot = await self.service.act(actor.player, actor.name, command, ask=True)
        except ConfirmAbandon as asked:
            assert asked.request is not None  # the service names what it would start
            self._kept.discard(asked.current.game_id)
            if isinstance(command, NewGame) and self._double_tap(command):
                return []
            return [Answer(Question(asked.current, asked.request))]
        replaced = snapshot.replaced
        reuse = (isinstance(command, NewGame) and replaced is not None and replaced.game_id == command.game_id
                 and replaced.abandoned)
        return [SendBoard(snapshot, reuse=reuse)]

    def _once(self, kind: str, game_id: int) -> bool:
        """Whether the ``kind`` button of ``game_id`` is to act now: not when it did within :data:`ONCE_WITHIN`
        seconds (noted before any await, so two taps at once act once)."""
        now = time.monotonic()
        self._done = {key: at for key, at in self._done.items() if now - at < ONCE_WITHIN}
        if (kind, game_id) in self._done:
            return False
        self._done[(kind, game_id)] = now
        return True

    def _double_tap(self, command: NewGame) -> bool:
        """Whether this New game repeats one just asked about from the same board."""
        if self.ask_once_within is None:
            return False
        now = time.monotonic()
        self._asked = {key: at for key, at in self._asked.items() if now - at < self.ask_once_within}
        key = (command.game_id, command.version)
        if key in self._asked:
            return True
        self._asked[key] = now
        return False

    @staticmethod
    def _owned(player: PlayerKey, snapshot: GameSnapshot) -> GameSnapshot:
        if snapshot.owner != player:
            raise NotYourGame(snapshot.owner_name)
        return snapshot
