"""The tables. The schema is owned by the migrations in ``migrations/``; these Core tables mirror them for queries
and for ``alembic revision --autogenerate``, and a test checks that the two agree."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: Every table, for the migrations' ``target_metadata``.
metadata = MetaData(naming_convention=NAMING_CONVENTION)

# Status values stored in games.status: the engine's three plus "abandoned" (replaced by a new game).
PLAYING, WON, BLOCKED, ABANDONED = "playing", "won", "blocked", "abandoned"

# An auto-incrementing 64-bit id; SQLite only auto-increments a column declared INTEGER.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


#: A player, keyed by (platform, platform user id), with their settings.
players = Table(
    "players", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("platform", String(16), nullable=False),
    Column("user_id", String(64), nullable=False),
    Column("display_name", String(100), nullable=False, server_default=""),
    Column("language", String(16)),  # an override; NULL: the platform's locale
    #: the platform's locale the player was last seen with (migration 0011): a challenger's language when they
    #: set none
    Column("seen_locale", String(16)),
    Column("explain_refusals", Boolean, nullable=False, server_default=true()),
    Column("default_rules", String(8), nullable=False, server_default="easy"),
    #: only deals the solver proved winnable (migration 0003); NULL: the rule set's default (on for Classic)
    Column("winnable_only", Boolean),
    #: the game's board shown as a picture or as text, and the picture's four-colour deck (migration 0004)
    Column("board_style", String(8), nullable=False, server_default="picture"),
    Column("four_colour", Boolean, nullable=False, server_default=false()),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("platform", "user_id"),
    CheckConstraint("default_rules IN ('easy', 'classic')", name="default_rules"),
    CheckConstraint("board_style IN ('picture', 'text')", name="board_style"),
)

#: One game: its deal code, its full state (``Game.to_text()``, undo history included) and a version that every
#: applied action increments. A player has at most one ``active`` game (a partial unique index).
games = Table(
    "games", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("player_id", ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    Column("code", String(16), nullable=False),
    Column("rules", String(8), nullable=False),
    Column("state", Text, nullable=False),
    Column("version", Integer, nullable=False, server_default="0"),
    Column("status", String(10), nullable=False, server_default=PLAYING),
    #: the player's current game: playing, or blocked (undo can still revive it)
    Column("active", Boolean, nullable=False, server_default=true()),
    Column("score", Integer, nullable=False),
    Column("moves", Integer, nullable=False, server_default="0"),
    Column("daily", Date),
    #: dealt on request as a deal the solver proved winnable (a new game from its buttons asks the same)
    Column("dealt_winnable", Boolean, nullable=False, server_default=false()),
    Column("hints_used", Integer, nullable=False, server_default="0"),
    #: undos applied (migration 0003): shown on the board and the daily leaderboard
    Column("undos_used", Integer, nullable=False, server_default="0"),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    #: when the game was won, blocked or abandoned; NULL while playing (an undo out of a block clears it)
    Column("finished_at", DateTime(timezone=True)),
    # What the solver says of the deal from its start; NULL until known.
    Column("verdict_winnable", Boolean),
    Column("verdict_best_score", Integer),
    #: when the full verdict (best score search included) was stored
    Column("verdict_at", DateTime(timezone=True)),
    #: where the game's live board is: the chat or channel, and the message (written by the adapter that shows it)
    Column("chat_id", String(64)),
    Column("message_id", String(64)),
    #: a daily attempt's community (migration 0002, named so by 0006): the Discord server or Telegram group whose
    #: leaderboard it counts on; NULL in a private chat, and for other games
    Column("community", String(64)),
    #: the game this one answers (migration 0005): started from its "Play this deal", and compared with it
    Column("challenge_of", ForeignKey("games.id", ondelete="SET NULL")),
    #: the version the last hint was counted at (migration 0007): a hint is counted once per position
    Column("hinted_version", Integer),
    #: the day whose daily deal this game replays once the player's attempt is over (migration 0007): practice
    Column("practice_of", Date),
    #: the round this game is its player's entry in (migration 0013): ranked, no undo, its code hidden while it runs
    Column("round_id", ForeignKey("rounds.id", ondelete="SET NULL")),
    CheckConstraint("status IN ('playing', 'won', 'blocked', 'abandoned')", name="status"),
    CheckConstraint("rules IN ('easy', 'classic')", name="rules"),
    Index("uq_games_active_player_id", "player_id", unique=True,
          sqlite_where=text("active"), postgresql_where=text("active")),
    #: a player's statistics, their games in the order they ended
    Index(None, "player_id", "finished_at"),
    #: a player's newest game (migration 0008)
    Index(None, "player_id", "id"),
    #: the games that answer a game (migration 0008): ``ON DELETE SET NULL`` finds them here, not by a scan
    Index(None, "challenge_of"),
    Index(None, "code"),
    Index(None, "daily"),
    Index(None, "daily", "community"),
    #: one attempt per player per day (migration 0007); NULLs (every other game) are distinct
    Index(None, "player_id", "daily", unique=True),
    #: one entry per player per round (migration 0013); NULLs (every other game) are distinct
    Index(None, "round_id", "player_id", unique=True),
)

#: A live round (migration 0013): a chat's players all play the deal ``code`` (``chosen``: a code given, else a
#: random winnable deal, hidden until the end) until ``ends_at`` or until everyone who joined has finished
#: (``ended_at`` set once, in the database); ``message_id``: the message in ``chat_id`` showing its standings.
rounds = Table(
    "rounds", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("platform", String(16), nullable=False),
    Column("chat_id", String(64), nullable=False),
    Column("message_id", String(64)),
    Column("code", String(16), nullable=False),
    Column("chosen", Boolean, nullable=False),
    Column("host", String(100), nullable=False, server_default=""),
    #: the language its message speaks (its host's)
    Column("locale", String(16), nullable=False, server_default="en"),
    Column("minutes", Integer, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("ends_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True)),
    #: when its message last showed its results (NULL: an ended round whose results are still to land)
    Column("results_at", DateTime(timezone=True)),
    #: the token of the interaction whose response is its message, where the bot edits it through the interaction's
    #: webhook (Discord, where the bot is no member of the chat: migration 0017); a secret, cleared once the results
    #: have landed
    Column("reply_token", String(512)),
    Index(None, "ended_at", "ends_at"),
)

#: What is the deployment's own (migration 0007): ``daily_secret``, generated once, that every daily code depends on.
deployment = Table(
    "deployment", metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
)

#: The servers (Discord) and groups (Telegram) a player was seen in (migration 0007): a community's leaderboard
#: lists every player seen there whose attempt exists, wherever it was played.
community_players = Table(
    "community_players", metadata,
    Column("player_id", ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    Column("community", String(64), primary_key=True),
    Column("seen_at", DateTime(timezone=True), nullable=False),
    Index(None, "community"),
)

#: Buttons that act once, whichever process a tap reaches (migration 0009): a Share or Review of a game (``share``,
#: ``review``: when it last acted), the question asked about a game (``ask``: at which version, when), and a game
#: the player chose to keep playing under that question (``kept``: Yes on the same question does nothing).
once_marks = Table(
    "once_marks", metadata,
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("kind", String(8), primary_key=True),
    Column("version", Integer, nullable=False, server_default="0"),
    Column("at", Float, nullable=False),
)

#: What must reach a chat outside a command's own answer (migration 0012, in place of 0010's ``board_relay``): a
#: game's chat board to redraw as it stands (``board``) or a challenger to tell how it went (``tell``, at
#: ``chat_id``), written in the transaction of the change that causes it, one row a game and kind. ``seq`` counts
#: the times a board was asked for again; a process running ``platform`` claims a row until ``claimed_until`` and
#: marks it ``delivered_at`` (bot/app/outbox.py); ``attempted_seq`` (migration 0016) is the ``seq`` last handed to
#: the platform, committed before the send. Times in seconds since the epoch.
outbox = Table(
    "outbox", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("platform", String(16), nullable=False),
    Column("chat_id", String(64)),
    Column("locale", String(16)),
    Column("at", Float, nullable=False),
    Column("seq", Integer, nullable=False, default=0),
    Column("claimed_until", Float),
    Column("delivered_at", Float),
    Column("attempted_seq", Integer),
    UniqueConstraint("game_id", "kind", name="uq_outbox_game_id_kind"),
    Index("ix_outbox_platform_delivered_at", "platform", "delivered_at"),
)

#: Each player's share of one ``kind`` (migration 0014): the ``tokens`` left at ``at`` (seconds since the epoch), and
#: whether the last take found one (bot/store/shares.py).
player_shares = Table(
    "player_shares", metadata,
    Column("platform", String(16), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("tokens", Float, nullable=False),
    Column("at", Float, nullable=False),
    Column("taken", Boolean, nullable=False),
)

#: The accounts the deployment's owner blocked (migration 0015): their commands are refused and nothing is stored
#: from them (bot/app/owner.py).
blocked_accounts = Table(
    "blocked_accounts", metadata,
    Column("platform", String(16), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("blocked_at", DateTime(timezone=True), nullable=False),
)

#: Answers to solver questions every process of a deployment may reuse (migration 0018): a ``key`` naming the
#: question (a hint: its game and version; a review: its game), the ``answer`` as text, and when it is forgotten
#: (``expires``, seconds since the epoch; bot/store/answers.py).
kept_answers = Table(
    "kept_answers", metadata,
    Column("key", String(128), primary_key=True),
    Column("answer", Text, nullable=False),
    Column("expires", Float, nullable=False),
    Index("ix_kept_answers_expires", "expires"),
)

# Status values stored in daily_posts.status.
POST_CLAIMED, POST_SENT, POST_FAILED = "claimed", "sent", "failed"

#: A channel (Discord) or group (Telegram) that gets the daily deal posted, in its language.
daily_subscriptions = Table(
    "daily_subscriptions", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("platform", String(16), nullable=False),
    #: where the post goes: the Discord channel id, or the Telegram chat id
    Column("channel_id", String(64), nullable=False),
    #: the community the channel belongs to (migration 0006 named it so): the Discord server id, or the Telegram
    #: chat id
    Column("community", String(64)),
    Column("locale", String(16), nullable=False, server_default="en"),
    #: the platform user id of whoever subscribed
    Column("created_by", String(64), nullable=False, server_default=""),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("platform", "channel_id"),
)

#: One subscription's post of one day's deal. The row is inserted (claimed) before sending, so of two processes only
#: one sends it, and marked sent after; a restart never posts a day twice.
daily_posts = Table(
    "daily_posts", metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("subscription_id", ForeignKey("daily_subscriptions.id", ondelete="CASCADE"), nullable=False),
    Column("day", Date, nullable=False),
    Column("status", String(8), nullable=False, server_default=POST_CLAIMED),
    Column("claimed_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True)),
    Column("message_id", String(64)),
    Column("error", String(200)),
    UniqueConstraint("subscription_id", "day"),
    CheckConstraint("status IN ('claimed', 'sent', 'failed')", name="status"),
)
