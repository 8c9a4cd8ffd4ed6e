"""The one door with every command counted, timed and logged at INFO (:mod:`bot.metrics`): what ``GET /metrics``
shows of taps and commands by platform and kind."""

from __future__ import annotations

from bot.app.commands import PLAIN, Actor, Command, Surface
from bot.app.effects import Effect
from bot.app.flow import Flow
from bot.metrics import handling


class MeasuredFlow(Flow):
    """:class:`~bot.app.flow.Flow`, each command measured as it is handled (turn waits included: what a player
    waits for)."""

    async def handle(self, actor: Actor, command: Command, surface: Surface = PLAIN) -> list[Effect]:
        with handling(surface.platform or "plain", type(command).__name__):
            return await super().handle(actor, command, surface)
