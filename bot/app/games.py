"""Reading games, and where their boards are: a player's game in progress, any game by id, and the message that
now shows a game (its live board), as the adapter that sent it says; and the table's open streams told when their
game changes (:attr:`Games.following`)."""

from __future__ import annotations

from bot.app.errors import GameNotFound, GameNotOver
from bot.app.following import Following
from bot.app.model import BoardRef, GameSnapshot, PlayerKey
from bot.app.moves import cards_named
from bot.app.records import Today, load_game, load_owned, snapshot_of
from bot.store import games as stored_games
from bot.store.engine import Database
from bot.store.schema import PLAYING
from core.cards import Card


class Games:
    """Games as they stand, on the day ``today`` says."""

    def __init__(self, db: Database, today: Today) -> None:
        self.db = db
        self.today = today
        self.following = Following(db)

    async def current_game(self, player: PlayerKey) -> GameSnapshot | None:
        """The player's game in progress (playing, or blocked and so still open to undo), or None."""
        async with self.db.reading() as tx:
            record = await stored_games.active_of(tx, player.platform, player.user_id)
        return None if record is None else snapshot_of(record, today=self.today())

    async def free_cards(self, player: PlayerKey, typed: str, most: int) -> tuple[Card, ...]:
        """At most ``most`` free cards of the player's game in progress whose names start like ``typed`` (all of
        them when none does; none without a game): what autocomplete offers."""
        snapshot = await self.current_game(player)
        return () if snapshot is None else cards_named(snapshot.game, typed)[:most]

    async def latest_game(self, player: PlayerKey) -> GameSnapshot | None:
        """The player's newest game, whatever its status, or None."""
        async with self.db.reading() as tx:
            record = await stored_games.latest_of(tx, player.platform, player.user_id)
        return None if record is None else snapshot_of(record, today=self.today())

    async def game(self, game_id: int) -> GameSnapshot:
        """Any game as it stands, whoever owns it (to redraw a board); :class:`GameNotFound` if none."""
        async with self.db.reading() as tx:
            return snapshot_of(await load_game(tx, game_id), today=self.today())

    async def version(self, game_id: int) -> int:
        """How far the game has moved (its version), read alone: cheaper than :meth:`game` for a caller that only
        asks whether it moved on; :class:`GameNotFound` if none."""
        async with self.db.reading() as tx:
            version = await stored_games.version_of(tx, game_id)
        if version is None:
            raise GameNotFound(game_id)
        return version

    async def finished_game(self, player: PlayerKey, game_id: int) -> GameSnapshot:
        """The player's game ``game_id`` once it is over, for its Review or Share (:class:`NotYourGame` for another
        player's, :class:`GameNotOver` while it is being played)."""
        async with self.db.reading() as tx:
            record = await load_owned(tx, player, game_id)
        if record.status == PLAYING:
            raise GameNotOver(f"game {game_id} is still being played")
        return snapshot_of(record, today=self.today())

    async def owned_game(self, player: PlayerKey, game_id: int) -> GameSnapshot:
        """The player's game ``game_id`` as it stands, whatever its status (:class:`NotYourGame` for another
        player's)."""
        async with self.db.reading() as tx:
            return snapshot_of(await load_owned(tx, player, game_id), today=self.today())

    async def show_board(self, game_id: int, where: BoardRef) -> None:
        """Note where the game's live board now is (the adapter that sent or moved it says so), so that it can be
        edited when the game is played by name or replaced."""
        async with self.db.transaction() as tx:
            await stored_games.set_board(tx, game_id, where.chat_id, where.message_id)
