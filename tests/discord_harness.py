"""Driving the real Discord bot offline: SimCord runs the unmodified discord.py client against an in-memory
Discord, and these helpers read what a player would see.

- :func:`open_service` opens the real :class:`~bot.app.assembly.App` on a SQLite file (a copy of the migrated
  template), with a stand-in solver so hints and verdicts are instant and deterministic.
- :class:`Locales` sets the Discord client language of chosen users (SimCord writes ``en-US`` into every
  interaction; see ``/work/shared/TESTING.md``).
- :func:`text_of`, :func:`buttons_of`, :func:`button` and :func:`menu_of` read a Components V2 message as the player
  sees it; :func:`click` and :func:`choose` act on it.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
import simcord.interactions

from bot.adapters.discord import build_bot
from bot.app.assembly import App
from bot.app.model import BoardStyle, DealVerdict, Hint
from bot.config import Config
from bot.render.tableau import narrow_tableau_text
from bot.store import players as stored_players
from bot.store.database import open_database
from core.deal import GameCode
from core.game import Game

ButtonInfo = dict[str, Any]
#: Discord's interaction callback types, as recorded on the wire.
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE = 6
UPDATE_MESSAGE = 7
IS_COMPONENTS_V2 = 1 << 15

_VARIATION_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")


def fake_hint(state: str, budget: float) -> Hint:
    """The stand-in solver's hint: the first legal action (taps first, then draw, then undo)."""
    game = Game.from_text(state)
    return Hint(next(iter(game.legal_actions()), None), None, None)


def fake_verdict(code: str, budget: float, best: bool) -> DealVerdict:
    """The stand-in solver's verdict. Asked for a deal's best score (the verdict stored when a game ends): unknown,
    so a finished game's status shows no par line. Asked only whether a deal can be won (the search for a
    winnable-only deal): deals whose number is a multiple of 7 can (the search ends at once, in virtual time too)."""
    if best:
        return DealVerdict(None, None)
    return DealVerdict(GameCode.parse(code).number % 7 == 0, None)


@asynccontextmanager
async def open_service(sqlite_template: Path, path: Path, *, board: BoardStyle = BoardStyle.TEXT
                       ) -> AsyncIterator[App]:
    """The real service on the SQLite file ``path``, copied from the migrated template if it does not exist yet
    (opening it again later is what a restarted bot process does). Its new players have the ``board`` setting:
    the text board by default here, as these tests read its code block (tests/test_discord_picture.py plays the
    picture board, every real player's default)."""
    if not path.exists():
        shutil.copyfile(sqlite_template, path)
    database = await open_database(f"sqlite+aiosqlite:///{path}", migrate=False)
    default = stored_players.NEW_PLAYER["board_style"]
    stored_players.NEW_PLAYER["board_style"] = board.value
    try:
        with ThreadPoolExecutor(2) as executor:
            async with App(database, executor=executor, hint_function=fake_hint,
                                   verdict_function=fake_verdict, owns_database=True) as service:
                yield service
    finally:
        stored_players.NEW_PLAYER["board_style"] = default


def make_bot(service: App, *, defer_after: float = 2.0, **config: Any) -> discord.Client:
    """The bot as production builds it, from a :class:`Config` with ``config`` set."""
    return build_bot(service.flow, Config(**config), defer_after=defer_after)


class Locales:
    """The Discord client language of each user (``en-US`` unless set), written into their interactions."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.by_user: dict[int, str] = {}
        #: the server's community language, written as ``guild_locale`` into interactions in a server
        self.guild: str | None = None
        original = simcord.interactions.base_payload

        def base_payload(*args: Any, **kwargs: Any) -> Any:
            record, payload = original(*args, **kwargs)
            locale = self.by_user.get(kwargs["user_id"])
            if locale is not None:
                payload["locale"] = locale
            if self.guild is not None and payload.get("guild_id"):
                payload["guild_locale"] = self.guild
            return record, payload

        monkeypatch.setattr(simcord.interactions, "base_payload", base_payload)

    def set(self, user: Any, locale: str) -> None:
        self.by_user[user.id] = locale


# --- reading messages -----------------------------------------------------------------------------------------


class Installs:
    """Where the app is installed, as each interaction says (``authorizing_integration_owners``): SimCord sends
    none; a user in ``user_only`` has the app installed to their own account only (a user app, Discord's "user
    install"), not to the server they use it in."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.user_only: set[int] = set()
        original = simcord.interactions.base_payload

        def base_payload(*args: Any, **kwargs: Any) -> Any:
            record, payload = original(*args, **kwargs)
            if kwargs["user_id"] in self.user_only:
                payload["authorizing_integration_owners"] = {"1": str(kwargs["user_id"])}
            return record, payload

        monkeypatch.setattr(simcord.interactions, "base_payload", base_payload)


#: Discord's channel type of a group DM, and an interaction's context in one (a private channel).
GROUP_DM, PRIVATE_CHANNEL = 3, 2


class GroupDm:
    """A group DM of ``members`` where the app is installed to each member's own account (Discord's user install).

    SimCord 3.2.1 simulates neither: it has no group DM channel (type 3), writes ``context`` 0 (a server) or 1 (the
    bot's DM) into every interaction and no ``authorizing_integration_owners``. So the first member's DM with the
    bot stands in for the group: every member's DM is pointed at it (each may run commands and click there), and
    every interaction in it is rewritten as Discord sends one from a group DM: the channel of type 3 with its
    recipients, context 2, the app authorized by the install of who ran the command (a click: who ran the clicked
    message's command). The bot is no member of a group DM:
    any request it makes to the channel with its own token is refused (403 Missing Access) as Discord refuses it;
    only the interactions' responses and webhooks reach it."""

    def __init__(self, env: simcord.Env, monkeypatch: pytest.MonkeyPatch, members: list[Any]) -> None:
        self.channel = members[0].dm_channel
        stored = env.backend.get_channel(self.channel.id)
        for member in members:
            env.backend.dm_channels[member.id] = self.channel.id
            if member.id not in stored.recipient_ids:
                stored.recipient_ids.append(member.id)
        emit = env.backend.emit

        def as_in_a_group(event: str, payload: Any) -> None:
            if event == "INTERACTION_CREATE" and payload.get("channel_id") == str(self.channel.id):
                user = payload["user"]["id"]
                # the app as installed by who ran the command: the clicker's own, or the clicked message's command's
                ran = (payload.get("message") or {}).get("interaction_metadata") or {}
                payload = dict(payload, context=PRIVATE_CHANNEL, authorizing_integration_owners={
                    "1": str((ran.get("user") or {}).get("id", user))})
                payload["channel"] = dict(payload["channel"], type=GROUP_DM, name="friends",
                                          owner_id=str(members[0].id))
            emit(event, payload)

        monkeypatch.setattr(env.backend, "emit", as_in_a_group)
        env.inject_error("*", f"/channels/{self.channel.id}*", status=403, code=50001, message="Missing Access",
                         times=None)

    def bot_requests(self, env: simcord.Env) -> list[str]:
        """The requests the bot made to the group's channel with its own token (each refused)."""
        return [f"{entry.method} {entry.path}" for entry in env.http_requests
                if entry.path.startswith(f"/channels/{self.channel.id}")]


def _walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for component in components:
        yield component
        yield from _walk(component.get("components") or [])


def components_of(message: Any) -> list[dict[str, Any]]:
    """The raw components of a SimCord response message or a discord.py message (as Discord stores them)."""
    if isinstance(message, simcord.ResponseMessage):
        return message.components
    return [component.to_dict() for component in message.components]


def text_of(message: Any) -> str:
    """Every text display of a Components V2 message, in order, as one string (markdown as sent)."""
    return "\n".join(c["content"] for c in _walk(components_of(message)) if c.get("type") == 10)


def board_of(message: Any) -> str:
    """The board (the code block) of a game message, without its backticks."""
    found = re.search(r"```\n(.*?)\n```", text_of(message), re.S)
    assert found is not None, f"no board in {text_of(message)!r}"
    return found.group(1)


def shows(message: Any, game: Game) -> bool:
    """Whether the message's board shows ``game`` as Discord draws it (the renderer's narrow board)."""
    return board_of(message) == narrow_tableau_text(game)


def heading(message: Any) -> str:
    """A game message's header: the text before its board."""
    return text_of(message).split("```", 1)[0]


def buttons_of(message: Any) -> list[ButtonInfo]:
    """The message's buttons in order; labels without emoji variation selectors."""
    return [dict(c, label=c.get("label", "").translate(_VARIATION_SELECTORS))
            for c in _walk(components_of(message)) if c.get("type") == 2]


def labels_of(message: Any) -> list[str]:
    return [b["label"] for b in buttons_of(message)]


def button(message: Any, *, label: str | None = None, command: str | None = None) -> ButtonInfo:
    """The one button with that label, or whose game payload ends in ``:<command>``."""
    found = [b for b in buttons_of(message)
             if (label is None or b["label"] == label)
             and (command is None or b.get("custom_id", "").startswith("tp:g:")
                  and b.get("custom_id", "").rsplit(":", 1)[-1] == command)]
    assert len(found) == 1, f"expected one button {label or command!r}, found {[b['label'] for b in found]}"
    return found[0]


def payload_versions(message: Any) -> set[str]:
    """The ``<game id>:<version>`` of every game button on the message."""
    return {m.group(1) for b in buttons_of(message)
            if (m := re.match(r"^tp:g:(\d+:\d+):", b.get("custom_id", "")))}


@dataclass
class Callback:
    """One interaction response the bot sent: its type (4 new message, 7 edit, ...) and whether ephemeral."""

    type: int
    ephemeral: bool
    v2: bool


def lines_since(env: simcord.Env, mark: int) -> list[str]:
    """The text of each interaction response the bot sent after ``mark`` that was a line (a message's content)."""
    bodies = [entry.json or {} for entry in env.http_requests[mark:]
              if entry.method == "POST" and entry.path.endswith("/callback")]
    return [str(body["data"]["content"]) for body in bodies if (body.get("data") or {}).get("content")]


def callbacks_since(env: simcord.Env, mark: int) -> list[Callback]:
    """The interaction responses the bot sent after ``mark`` (a length of ``env.http_requests``)."""
    found = []
    for entry in env.http_requests[mark:]:
        if entry.method == "POST" and entry.path.endswith("/callback"):
            body = entry.json or {}
            flags = (body.get("data") or {}).get("flags") or 0
            found.append(Callback(int(body.get("type", 0)), bool(flags & 64), bool(flags & IS_COMPONENTS_V2)))
    return found


async def click(env: simcord.Env, actor: Any, message: Any, info: ButtonInfo) -> tuple[simcord.ResponseMessage,
                                                                                      Callback]:
    """Click a button; return the message the response shows (the edited message, or a new reply) and the one
    interaction response the bot sent for it."""
    mark = len(env.http_requests)
    result = await actor.click(message, custom_id=info["custom_id"])
    return _answer(env, mark, result)


async def click_seen_before(env: simcord.Env, actor: Any, message: Any, custom_id: str) -> tuple[
        simcord.ResponseMessage, Callback]:
    """A click on a button as the player's client still drew it, ``custom_id`` from an older drawing of
    ``message``, with ``message`` as it is now: what Discord sends for a tap made before the client showed the
    previous tap's board. (SimCord clicks only a button the message has: one of them is clicked, and the
    interaction carries ``custom_id`` instead.)"""
    original = simcord.interactions.base_payload

    def base_payload(*args: Any, **kwargs: Any) -> Any:
        kwargs["data"] = dict(kwargs["data"], custom_id=custom_id)
        return original(*args, **kwargs)

    shown = next(b for b in buttons_of(message) if b.get("custom_id"))
    mark = len(env.http_requests)
    simcord.interactions.base_payload = base_payload
    try:
        result = await actor.click(message, custom_id=shown["custom_id"])
    finally:
        simcord.interactions.base_payload = original
    return _answer(env, mark, result)


def menu_of(message: Any) -> dict[str, Any]:
    """The message's one select menu (a string select, type 3), as Discord stores it."""
    found = [c for c in _walk(components_of(message)) if c.get("type") == 3]
    assert len(found) == 1, f"expected one select menu, found {len(found)}"
    return found[0]


def option(message: Any, label: str) -> dict[str, Any]:
    """The option of the message's select menu with that label."""
    found = [o for o in menu_of(message)["options"] if o["label"] == label]
    assert len(found) == 1, f"expected one option {label!r}, found {[o['label'] for o in menu_of(message)['options']]}"
    return found[0]


async def choose(env: simcord.Env, actor: Any, message: Any, value: str) -> tuple[simcord.ResponseMessage, Callback]:
    """Choose the option of value ``value`` in the message's select menu; return the message the response shows
    and the one interaction response the bot sent for it."""
    mark = len(env.http_requests)
    result = await actor.select(message, [value], custom_id=menu_of(message)["custom_id"])
    return _answer(env, mark, result)


async def slash(env: simcord.Env, actor: Any, channel: Any, command: str, **options: Any) -> tuple[
        simcord.ResponseMessage, Callback]:
    """Run a slash command (``channel`` None for a user's DM); return the reply and its interaction response."""
    mark = len(env.http_requests)
    if channel is None:
        result = await actor.slash(command, **options)
    else:
        result = await actor.slash(channel, command, **options)
    return _answer(env, mark, result)


def _answer(env: simcord.Env, mark: int, result: simcord.InteractionResult) -> tuple[simcord.ResponseMessage,
                                                                                      Callback]:
    sent = callbacks_since(env, mark)
    assert len(sent) == 1, f"expected one interaction response, got {sent}"
    response = result.response
    assert response is not None, "the bot's response shows no message"
    return response, sent[0]


class SlowApp:
    """The real application, but each command of the types ``only`` waits ``delay`` seconds of SimCord's virtual
    clock before it goes through the one door: a second click can then arrive before the first one is answered,
    as a quick double tap does on a real network."""

    def __init__(self, app: App, delay: float, *, only: tuple[type, ...] = (object,)) -> None:
        self._app = app
        self.delay = delay
        self.only = only
        self.flow = self

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)

    async def handle(self, actor: Any, command: Any, *rest: Any) -> Any:
        if isinstance(command, self.only):
            await asyncio.sleep(self.delay)
        return await self._app.flow.handle(actor, command, *rest)

    async def record(self, reports: Any) -> None:
        await self._app.flow.record(reports)
