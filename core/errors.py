"""The engine's error hierarchy: everything a caller can get wrong is a ``ValueError``."""

from __future__ import annotations


class TriPeaksError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidCardError(TriPeaksError):
    """A card could not be parsed, e.g. ``"1X"``."""


class InvalidCodeError(TriPeaksError):
    """A game code is malformed, e.g. ``"TP1-X-ABC"``."""


class InvalidActionError(TriPeaksError):
    """An action could not be parsed, e.g. ``"28"`` or ``"x"``."""


class InvalidLayoutError(TriPeaksError):
    """A deal typed in by hand is not exactly 52 distinct cards."""


class InvalidStateError(TriPeaksError):
    """A serialised game could not be read back."""


class GameOverError(TriPeaksError):
    """The game is won or blocked: there is no action left to advise."""
