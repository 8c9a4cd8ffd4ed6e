"""The payload of a settings button: ``tp:set:explain:off``, ``tp:set:rules:classic``, ``tp:set:lang:uk``.

(Its own module until it joins the other payloads in :mod:`bot.app.codec`.)
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from bot.app.codec import PREFIX
from bot.app.errors import BadPayload
from bot.app.model import Settings
from bot.i18n import SUPPORTED_LOCALES
from core.deal import Rules

_LANGUAGES = "|".join(SUPPORTED_LOCALES)
_SETTINGS_RE = re.compile(rf"^tp:set:(explain:(?:on|off)|rules:(?:easy|classic)|lang:(?:auto|{_LANGUAGES}))$")


@dataclass(frozen=True)
class SettingsPayload:
    """A tap on a settings button: ``tp:set:explain:off``, ``tp:set:rules:classic``, ``tp:set:lang:uk`` (``auto``
    returns to the platform's language).

    >>> SettingsPayload.decode("tp:set:lang:uk").apply(Settings()).language
    'uk'
    """

    key: str  # explain, rules or lang
    value: str

    def encode(self) -> str:
        return f"{PREFIX}:set:{self.key}:{self.value}"

    @classmethod
    def decode(cls, text: str) -> SettingsPayload:
        """Read a settings payload; raise :class:`BadPayload` for anything else."""
        match = _SETTINGS_RE.match(text)
        if match is None:
            raise BadPayload(f"not a settings payload: {text[:80]!r}")
        key, value = match.group(1).split(":")
        return cls(key, value)

    @staticmethod
    def is_settings(text: str) -> bool:
        return text.startswith(f"{PREFIX}:set:")

    def changes(self) -> dict[str, object]:
        """The change as keyword arguments for the service's settings update."""
        if self.key == "explain":
            return {"explain_refusals": self.value == "on"}
        if self.key == "rules":
            return {"default_rules": Rules(self.value)}
        return {"language": None if self.value == "auto" else self.value}

    def apply(self, settings: Settings) -> Settings:
        """The settings with this choice made."""
        return dataclasses.replace(settings, **self.changes())  # type: ignore[arg-type]
