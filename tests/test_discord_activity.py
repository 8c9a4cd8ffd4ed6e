"""The Discord Activity launched by the bot, end to end (the real discord.py client on SimCord): where the Activity
is set up (PUBLIC_URL and the application's OAuth2 client), the commands synced carry the Entry Point command
(type 4, the app's own handler) besides ``/tripeaks``, and the Entry Point, or ``/tripeaks board``, is answered by
launching the Activity (callback type 12); elsewhere there is no Entry Point and ``/tripeaks board`` gives a link.

SimCord 3.2.1 models none of it: its command sync refuses the ``handler`` field, its interaction callback refuses
type 12, and it lets a bulk overwrite drop an Entry Point command, which Discord refuses (error 50240). The fixture
:func:`activities` teaches it all three, as real Discord behaves for an app with Activities enabled
(https://discord.com/developers/docs/interactions/application-commands#entry-point-commands and
.../receiving-and-responding#interaction-response-object-interaction-callback-type)."""

# ruff: noqa: F811 - the fixture imported from test_discord_e2e is named as a parameter
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
import simcord
import simcord.actors
from simcord.backend import errors as simcord_errors
from simcord.backend.ops import commands as simcord_commands
from simcord.enums import InteractionType
from simcord.http import router as simcord_router
from simcord.http.routes import commands as command_routes

from bot.adapters.discord.activity import sync_commands
from bot.app.assembly import App
from bot.app.effects import PlayerKey
from bot.config import Config
from tests.discord_harness import buttons_of, callbacks_since, slash
from tests.test_discord_e2e import game_service, table  # noqa: F401 - the fixture is used by name

pytestmark = pytest.mark.timeout(120)

ACTIVITY: dict[str, Any] = {"public_url": "https://tripeaks.example.org", "web_secret": "a web secret of enough length",
            "discord_client_id": "1234567890", "discord_client_secret": "the application's secret"}
LAUNCH_ACTIVITY = 12
PRIMARY_ENTRY_POINT = 4
CALLBACK = ["interactions", "{interaction_id}", "{token}", "callback"]


@dataclass
class Launches:
    """The Activities Discord launched, as (interaction id, user id, channel id)."""

    made: list[tuple[int, int, int]] = field(default_factory=list)


@pytest.fixture
def activities(monkeypatch: pytest.MonkeyPatch) -> Launches:
    """SimCord as Discord is for an app with Activities enabled: a command sync may carry an Entry Point command's
    ``handler``, and an application command or a component interaction may be answered with LAUNCH_ACTIVITY,
    recorded here (the player's client then opens the Activity)."""
    fields = (*simcord_commands.COMMAND_FIELDS, "handler")
    monkeypatch.setattr(simcord_commands, "COMMAND_FIELDS", fields)
    monkeypatch.setattr(command_routes, "COMMAND_FIELDS", fields)
    launches = Launches()
    routes = [(template, handler) for template, handler in simcord_router._ROUTES["POST"]]
    (original,) = [handler for template, handler in routes if template == CALLBACK]

    def callback(ctx: Any) -> Any:
        if ctx.body().get("type") != LAUNCH_ACTIVITY:
            return original(ctx)
        record = ctx.backend.interactions.get(ctx.int_arg("interaction_id"))
        if record is None or record.token != ctx.args["token"]:
            raise simcord_errors.unknown_interaction()
        if record.responded:
            raise simcord_errors.already_acknowledged()
        if record.type not in (InteractionType.APPLICATION_COMMAND, InteractionType.MESSAGE_COMPONENT):
            raise simcord_errors.invalid_form_body("LAUNCH_ACTIVITY answers a command or a component only")
        record.responded = True
        launches.made.append((record.id, record.user_id, record.channel_id))
        instance = f"i-{record.id}"
        return {"interaction": {"id": str(record.id), "type": record.type, "activity_instance_id": instance,
                                "response_message_id": None, "response_message_loading": False,
                                "response_message_ephemeral": False},
                "resource": {"type": LAUNCH_ACTIVITY, "activity_instance": {"id": instance}}}

    patched = [(template, callback if template == CALLBACK else handler) for template, handler in routes]
    monkeypatch.setitem(simcord_router._ROUTES, "POST", patched)

    def overwrite(ctx: Any) -> Any:
        had = any(kind == PRIMARY_ENTRY_POINT for _, kind in ctx.backend.commands.get(None, {}))
        if had and not any(command.get("type") == PRIMARY_ENTRY_POINT for command in ctx.json or []):
            raise simcord_errors.BackendError(400, 50240, "You cannot remove this app's Entry Point command in a "
                                                          "bulk update operation")
        return command_routes.bulk_upsert_global_commands(ctx)

    monkeypatch.setitem(simcord_router._ROUTES, "PUT", [
        (template, overwrite if handler is command_routes.bulk_upsert_global_commands else handler)
        for template, handler in simcord_router._ROUTES["PUT"]])
    return launches


def synced(env: simcord.Env) -> list[dict[str, Any]]:
    """The commands of the bot's last global command sync, as it sent them."""
    (*_, last) = [entry for entry in env.http_requests
                  if entry.method == "PUT" and entry.path.endswith("/commands") and "/guilds/" not in entry.path]
    assert isinstance(last.json, list)
    return last.json


async def open_app_launcher(env: simcord.Env, actor: Any, channel: Any) -> simcord.InteractionResult:
    """The player starts the app from Discord's App Launcher: an application command interaction for the app's
    Entry Point command (SimCord has no invocation of its own for one)."""
    guild = getattr(actor, "guild", None)
    root = env.backend.find_command("launch", guild.id if guild is not None else None, type=PRIMARY_ENTRY_POINT)
    assert root is not None, "no Entry Point command synced"
    data = {"id": root["id"], "name": root["name"], "type": PRIMARY_ENTRY_POINT}
    return await simcord.actors._dispatch_actor_interaction(actor, InteractionType.APPLICATION_COMMAND, channel, data)


async def test_the_sync_carries_the_entry_point_and_it_launches_the_activity(
        game_service: App, monkeypatch: pytest.MonkeyPatch, activities: Launches) -> None:
    async with table(game_service, monkeypatch, **ACTIVITY) as t:
        commands = synced(t.env)
        assert sorted((c["name"], c.get("type", 1)) for c in commands) == [
            ("launch", 4), ("tripeaks", 1), ("tripeaks-owner", 1)]
        (entry,) = [c for c in commands if c.get("type") == PRIMARY_ENTRY_POINT]
        assert entry["handler"] == 1  # APP_HANDLER: the interaction comes to the bot, which launches
        assert entry["description"] == "Play TriPeaks solitaire"
        assert entry["description_localizations"]["fr"] == "Jouer au solitaire TriPeaks"
        assert entry["contexts"] == [0, 1, 2] and entry["integration_types"] == [0, 1]
        mark = len(t.env.http_requests)
        await open_app_launcher(t.env, t.alice, t.channel)
        (answer,) = callbacks_since(t.env, mark)
        assert answer.type == LAUNCH_ACTIVITY
        assert [(user, channel) for _, user, channel in activities.made] == [(t.alice.id, t.channel.id)]
        assert t.public_messages() == []  # nothing posted: the player's client opens the table
        # a launch starts nothing: the page, once open, resumes the player's game or starts one
        assert await game_service.games.current_game(PlayerKey("discord", str(t.alice.id))) is None


async def test_the_board_command_launches_the_activity_where_it_is_set_up(
        game_service: App, monkeypatch: pytest.MonkeyPatch, activities: Launches) -> None:
    async with table(game_service, monkeypatch, **ACTIVITY) as t:
        mark = len(t.env.http_requests)
        await t.bob.slash(t.channel, "tripeaks board")
        assert [c.type for c in callbacks_since(t.env, mark)] == [LAUNCH_ACTIVITY]
        assert [user for _, user, _ in activities.made] == [t.bob.id]


async def test_without_the_activity_there_is_no_entry_point_and_the_board_is_a_link(
        game_service: App, monkeypatch: pytest.MonkeyPatch, activities: Launches) -> None:
    settings: dict[str, Any] = {key: ACTIVITY[key] for key in ("public_url", "web_secret")}
    async with table(game_service, monkeypatch, **settings) as t:
        assert [(c["name"], c.get("type", 1)) for c in synced(t.env)] == [("tripeaks", 1), ("tripeaks-owner", 1)]
        assert t.env.backend.find_command("launch", t.channel.guild.id, type=PRIMARY_ENTRY_POINT) is None
        response, sent = await slash(t.env, t.alice, t.channel, "tripeaks board")
        assert sent.ephemeral and sent.type != LAUNCH_ACTIVITY
        (link,) = [b for b in buttons_of(response) if "url" in b]
        assert link["url"].startswith(f"{ACTIVITY['public_url']}/#token=")
        assert activities.made == []


async def test_activities_enabled_in_the_portal_alone_keep_discords_own_entry_point(
        game_service: App, monkeypatch: pytest.MonkeyPatch, activities: Launches) -> None:
    """Activities enabled in the developer portal, not set up here: Discord has made its default Entry Point
    (launched by Discord itself, handler 2), refuses a sync that would drop it, and the bot starts all the same,
    keeping it."""
    settings: dict[str, Any] = {key: ACTIVITY[key] for key in ("public_url", "web_secret")}
    async with table(game_service, monkeypatch, **settings) as t:
        t.env.backend.commands[None][("launch", PRIMARY_ENTRY_POINT)] = {
            "id": "99", "application_id": str(t.env.backend.application_id), "name": "launch",
            "description": "Launch an activity", "type": PRIMARY_ENTRY_POINT, "handler": 2, "options": []}
        mark = len(t.env.http_requests)
        assert await sync_commands(t.env.bot.tree, Config(**settings)) == 3  # as at the bot's next start
        kept = t.env.backend.find_command("launch", None, type=PRIMARY_ENTRY_POINT)
        assert kept is not None and kept["handler"] == 2 and kept["description"] == "Launch an activity"
        assert t.env.backend.find_command("tripeaks", None) is not None
        overwrites = [e for e in t.env.http_requests[mark:] if e.method == "PUT"]
        assert len(overwrites) == 2  # the first refused (50240), the second with Discord's Entry Point
