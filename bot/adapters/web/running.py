"""Starting the table with the bot (:mod:`bot.runner`): behind the operator's proxy at PUBLIC_URL when a chat is
connected, or on 127.0.0.1 with a one-time link for the console's player."""

from __future__ import annotations

import logging
from typing import TextIO

from bot.adapters.web.auth import WebUser
from bot.adapters.web.discord_auth import ActivityInstances, DiscordOAuth
from bot.adapters.web.gate import connections_cap, raise_open_files_limit
from bot.adapters.web.links import table_signer
from bot.adapters.web.server import Ready, TableServer
from bot.app.effects import PlayerKey
from bot.app.flow import Flow
from bot.config import Config, PortTaken

log = logging.getLogger("tripeaks.web")


async def start_table(flow: Flow, config: Config, ready: Ready | None = None) -> TableServer:
    """The table served for the chats' players on WEB_HOST:WEB_PORT; a move there redraws the chat's board through
    the outbox (a process that runs the platform delivers it). ``ready``: what ``GET /readyz`` answers. A port taken
    by another program is :class:`~bot.config.ConfigError`, naming the port and its setting."""
    discord = instances = None
    if config.discord_client_id and config.discord_client_secret:
        discord = DiscordOAuth(config.discord_client_id, config.discord_client_secret, config.discord_api_url)
        if config.discord_token:
            instances = ActivityInstances(config.discord_client_id, config.discord_token, config.discord_api_url)
    cap = connections_cap(raise_open_files_limit())  # the table's connections leave the rest of the bot its files
    server = TableServer(flow, table_signer(config), telegram_token=config.telegram_token, host=config.web_host,
                         port=config.web_port, discord=discord, instances=instances, connections=cap,
                         ready=ready)
    try:
        await server.start()
    except OSError as error:
        raise PortTaken(f"WEB_PORT {config.web_port} on WEB_HOST {config.web_host} cannot be listened on ({error}): "
                        "stop the program that holds it, or set WEB_PORT to a free port") from None
    return server


async def start_console_table(flow: Flow, config: Config, player: PlayerKey, name: str, out: TextIO) -> TableServer:
    """The table for the console's player on 127.0.0.1 (WEB_PORT, or any free port when that one is taken), and
    the one-time link to it printed to ``out``."""
    server = TableServer(flow, table_signer(config), host="127.0.0.1", port=config.web_port)
    try:
        await server.start()
    except OSError:
        server.port = 0
        await server.start()
    link = server.one_time_link(WebUser(player, name), f"http://127.0.0.1:{server.port}")
    print(f"Play in your browser: {link}", file=out, flush=True)
    return server
