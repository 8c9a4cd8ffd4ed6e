"""The settings and a review shown in the board's own message, in place of the board, with Back to it (where the
place allows: :attr:`~bot.app.abilities.Abilities.in_place`, a Telegram private chat), so nothing new is posted
under the board to push it off a phone's screen; elsewhere they are answers of their own.

- ``/settings`` with a live board in the same chat: that board's message shows the settings; without one, a new
  message as before;
- a setting changed on settings shown in a board's message: the settings redrawn there, the board left to Back;
- Review on a finished board: its message shows the review, with the board's buttons and Back;
- Back: the board as the game stands (a game since replaced, as no longer the latest), where Review answers again;
  Back on a message that no longer shows it (a double tap) does nothing.
"""

from __future__ import annotations

from bot.app.commands import Actor, BackToBoard, Surface
from bot.app.effects import Answer, Board, EditBoard, EditMessage, Effect, ReviewOf, SettingsOf
from bot.app.errors import TappedTwice
from bot.app.games import Games
from bot.app.model import Settings
from bot.app.once import OnceOnly
from bot.app.solving import Advice


def board_behind(surface: Surface) -> int | None:
    """The game whose board's message the tapped message is, when it shows something else in place of the board
    (its Back button says which)."""
    return next((b.game_id for b in surface.buttons or () if isinstance(b, BackToBoard)), None)


class InBoard:
    """The settings, a review and Back, in place of a board where the surface allows."""

    def __init__(self, games: Games, advice: Advice, once: OnceOnly) -> None:
        self.games = games
        self.advice = advice
        self.once = once

    async def settings(self, actor: Actor, settings: Settings, surface: Surface) -> list[Effect]:
        """``/settings``: in the latest game's board message when it is in this chat (a finished game's board too:
        it is the one at the bottom of the chat), else a message of their own."""
        if surface.abilities.in_place:
            current = await self.games.latest_game(actor.player)
            if current is not None and current.board is not None and current.board.chat_id == actor.chat_id:
                return [EditMessage(SettingsOf(settings, in_board=current.game_id), where=current.board)]
        return [Answer(SettingsOf(settings))]

    async def review(self, actor: Actor, game_id: int, surface: Surface, once_within: float) -> list[Effect]:
        """Review on a finished board: once within ``once_within`` seconds; in the tapped board's message where the
        surface allows, else privately."""
        snapshot = await self.games.finished_game(actor.player, game_id)
        if not await self.once.claim_review(game_id, once_within):
            raise TappedTwice(TappedTwice.REVIEWED)
        review = ReviewOf(snapshot, await self.advice.review(actor.player, game_id))
        if not surface.abilities.in_place:
            return [Answer(review)]
        return [EditMessage(ReviewOf(snapshot, review.review, in_board=await self._board(actor, snapshot.game_id)))]

    async def back(self, actor: Actor, game_id: int, surface: Surface) -> list[Effect]:
        """Back: the board of ``game_id`` again in the tapped message; the live board when the game is the player's
        latest, else a board no longer the latest (so an old message never becomes the live board)."""
        if surface.buttons is not None and BackToBoard(game_id) not in surface.buttons:
            return []  # the message shows the board already: Back tapped twice
        board = await self._board(actor, game_id)
        await self.once.review_closed(game_id)  # so Review on the board shown again answers again
        return [EditBoard(board.snapshot) if board.latest else EditMessage(board)]

    async def _board(self, actor: Actor, game_id: int) -> Board:
        """The player's game ``game_id`` as its board shows it now: the latest game or one since replaced."""
        snapshot = await self.games.owned_game(actor.player, game_id)
        latest = await self.games.latest_game(actor.player)
        return Board(snapshot, latest=latest is not None and latest.game_id == game_id)
