"""The solver's answers as text, so that every process of a deployment reads what one kept
(:class:`~bot.app.questions.Questions` with a shared store): a hint and a review as JSON, their actions and cards in
the notation they are read back from (:meth:`core.game.Action.parse`, :meth:`core.cards.Card.parse`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from bot.app.model import Hint
from core.cards import Card
from core.game import Action
from core.review import Review

T = TypeVar("T")


@dataclass(frozen=True)
class AnswerText(Generic[T]):
    """How an answer of one kind is written as text, and read back."""

    write: Callable[[T], str]
    read: Callable[[str], T]


def _action(text: str | None) -> Action | None:
    return None if text is None else Action.parse(text)


def _text(value: object | None) -> str | None:
    return None if value is None else str(value)


def _write_hint(hint: Hint) -> str:
    return json.dumps({"action": _text(hint.action), "winnable": hint.winnable, "best_score": hint.best_score,
                       "win_chance": hint.win_chance, "busy": hint.busy})


def _read_hint(text: str) -> Hint:
    fields: dict[str, Any] = json.loads(text)
    return Hint(_action(fields["action"]), fields["winnable"], fields["best_score"], fields["win_chance"],
                fields["busy"])


def _write_review(review: Review) -> str:
    fields = {name: getattr(review, name) for name in ("won", "score", "best_score", "winnable_at_start", "lost_at",
                                                        "longest_chain", "losing_peak", "best_line_score")}
    return json.dumps({**fields, "losing_action": _text(review.losing_action),
                       "losing_card": _text(review.losing_card),
                       "best_line": None if review.best_line is None else [str(a) for a in review.best_line]})


def _read_review(text: str) -> Review:
    fields: dict[str, Any] = json.loads(text)
    line = fields.pop("best_line")
    card = fields.pop("losing_card")
    return Review(**{**fields, "losing_action": _action(fields["losing_action"]),
                     "losing_card": None if card is None else Card.parse(card),
                     "best_line": None if line is None else tuple(Action.parse(a) for a in line)})


HINT_TEXT: AnswerText[Hint] = AnswerText(_write_hint, _read_hint)
REVIEW_TEXT: AnswerText[Review] = AnswerText(_write_review, _read_review)
