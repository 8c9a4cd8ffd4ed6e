"""A live round's effects (:mod:`bot.app.rounds`), with :mod:`bot.app.effects` which names them all: the round's
message as content, posting it, bringing it up to date, and where it was posted (reported back)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.app.model import BoardRef, RoundSnapshot, Settings


@dataclass(frozen=True)
class RoundOf:
    """A live round's message (its rules, time left, standings and how to join; once ended, its results), in the
    round's language; or, answering a join after the end (``settings``: the player's), its results."""

    round: RoundSnapshot
    settings: Settings | None = None


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
