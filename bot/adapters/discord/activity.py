"""The Discord Activity from the bot's side: its Entry Point command and the answer that launches it.

Discord starts an Activity from the app's Entry Point command (application command type 4, PRIMARY_ENTRY_POINT,
in the App Launcher). Ours has the APP_HANDLER handler: Discord sends the bot the interaction, which the bot answers
with LAUNCH_ACTIVITY (callback type 12). discord.py's command tree knows no type-4 command and its ``sync``
overwrites all global commands with the tree's, and Discord refuses (error 50240) or deletes an Entry Point command
left out of that overwrite; so the bot syncs its commands here, the Entry Point among them when the operator has
set the Activity up (:func:`activity_enabled`), and none otherwise. Then ``/tripeaks board`` launches the Activity
too, rather than answering with a link.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord.translator import DISCORD_LOCALES, translate
from bot.config import Config
from bot.render.commands import COMMAND_DESCRIPTIONS

Interaction = discord.Interaction[Any]

#: Discord's application command type of an Entry Point command, and the handler that has the app answer it.
PRIMARY_ENTRY_POINT = 4
APP_HANDLER = 1
#: The Entry Point command's name: Discord's own default one's ("Launch" in the App Launcher).
ENTRY_POINT = "launch"


def activity_enabled(config: Config) -> bool:
    """Whether the operator has set up the Discord Activity: the table served (at PUBLIC_URL, which the Activity's
    URL mapping names) and the application's OAuth2 client, which the page signs in with."""
    return bool(config.public_url and config.discord_client_id and config.discord_client_secret)


def entry_point_command() -> dict[str, Any]:
    """The Entry Point command as Discord's API takes it: launched by the app, in servers, DMs and group DMs, for a
    server install and a user install alike (as ``/tripeaks``); described as ``/tripeaks`` is."""
    description = COMMAND_DESCRIPTIONS["tripeaks"]
    localised = {locale.value: text for locale, language in DISCORD_LOCALES.items()
                 if (text := translate(app_commands.locale_str(description, kind="text"), language))}
    return {"name": ENTRY_POINT, "description": description, "description_localizations": localised,
            "type": PRIMARY_ENTRY_POINT, "handler": APP_HANDLER, "integration_types": [0, 1], "contexts": [0, 1, 2]}


#: Discord's refusal of a bulk overwrite that leaves out the app's Entry Point command.
ENTRY_POINT_REQUIRED = 50240
#: What of an Entry Point command Discord has that a bulk overwrite sends back as it is.
_KEPT = ("name", "description", "type", "handler", "contexts", "integration_types", "name_localizations",
         "description_localizations")


async def sync_commands(tree: app_commands.CommandTree[Any], config: Config) -> int:
    """Overwrite the application's global commands with the tree's (translated), and the Entry Point command when
    the Activity is set up; how many Discord now has. Where Activities are enabled in the developer portal but not
    set up here, Discord keeps its own Entry Point command (its *Launch*, which it launches itself), which is
    sent back as it is rather than have the sync refused."""
    client = tree.client
    assert client.application_id is not None and tree.translator is not None
    payload: list[dict[str, Any]] = [await command.get_translated_payload(tree, tree.translator)
                                     for command in tree.get_commands()]
    if activity_enabled(config):
        payload.append(entry_point_command())
    try:
        return len(await client.http.bulk_upsert_global_commands(client.application_id, payload=payload))
    except discord.HTTPException as error:
        if error.code != ENTRY_POINT_REQUIRED:
            raise
    kept = [{key: command[key] for key in _KEPT if key in command}
            for command in await client.http.get_global_commands(client.application_id)
            if command.get("type") == PRIMARY_ENTRY_POINT]
    return len(await client.http.bulk_upsert_global_commands(client.application_id, payload=payload + kept))


def is_entry_point(interaction: Interaction) -> bool:
    """Whether ``interaction`` is the Entry Point command, invoked from the App Launcher."""
    data: dict[str, Any] = dict(interaction.data or {})
    return interaction.type is discord.InteractionType.application_command and data.get("type") == PRIMARY_ENTRY_POINT


class TriPeaksTree(app_commands.CommandTree[Any]):
    """discord.py's command tree, which leaves the Entry Point command to the bot's ``on_interaction`` (it has no
    such command, and would fail to look one up)."""

    async def interaction_check(self, interaction: Interaction) -> bool:
        return not is_entry_point(interaction)


async def launch(interaction: Interaction) -> None:
    """Answer ``interaction`` by launching the Activity where the player is (LAUNCH_ACTIVITY)."""
    await interaction.response.launch_activity()
