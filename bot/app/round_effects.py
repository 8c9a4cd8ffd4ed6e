"""A live round's effects (:mod:`bot.app.rounds`), with :mod:`bot.app.effects` which names them all: the round's
message as content, posting it, bringing it up to date, and where it was posted (reported back)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.app.model import BoardRef, PlayerKey, RoundSnapshot, Settings


@dataclass(frozen=True)
class RoundOf:
    """A live round's message (its rules, time left, standings and how to join; once ended, its results), in the
    round's language; or, answering a join after the end (``settings``: the player's), its results."""

    round: RoundSnapshot
    settings: Settings | None = None


@dataclass(frozen=True)
class RoundWatched:
    """A live round as ``viewer`` (a member of its chat) watches it, read only, in their language (``settings``: the
    viewer's): the standings and, with ``tables``, each player's board as that player sees it (never a face-down
    card); without (a player of the round still playing: the others play the same deal), the standings alone.
    ``stopped``: the platform no longer keeps this view up to date (Discord's 15 minutes for an interaction's
    answer), said on it."""

    round: RoundSnapshot
    viewer: PlayerKey
    tables: bool
    settings: Settings
    stopped: bool = False

    @classmethod
    def of(cls, round: RoundSnapshot, viewer: PlayerKey, settings: Settings) -> RoundWatched:
        """``round`` as ``viewer`` watches it: every player's board, unless the viewer still plays it (the standings
        alone then, until their game ends)."""
        return cls(round, viewer, not round.still_playing(viewer), settings)


@dataclass(frozen=True)
class PostRound:
    """Post a new round's message in the chat of the command; report where (:class:`RoundAt`)."""

    round: RoundSnapshot


@dataclass(frozen=True)
class RedrawRound:
    """Bring the message of the round ``round_id`` up to date at the chat's pace, drawing the round as it stands
    when the edit goes (:meth:`bot.app.rounds.Rounds.now`: the moves meanwhile coalesce into one edit); an ended
    round's last edit always lands (its results)."""

    round_id: int


@dataclass(frozen=True)
class RoundAt:
    """The message ``where`` shows the round ``round_id`` (its message, posted); ``reply_token``: where that message
    is an interaction's response that only its token edits (Discord, where the bot is no member of the chat), that
    token (a secret: kept out of the value's repr, so out of the logs)."""

    round_id: int
    where: BoardRef
    reply_token: str | None = field(default=None, repr=False)
