"""Each platform's abilities, as bot/app/abilities.py's table tells them to a reader, are the values the code uses;
and a Telegram group routes the player's own to their private chat, where Discord shows it to them alone."""

from __future__ import annotations

import dataclasses

from bot.app import abilities
from bot.app.abilities import (
    CONSOLE,
    DISCORD_DM,
    DISCORD_SERVER,
    TABLE,
    TELEGRAM_GROUP,
    TELEGRAM_PRIVATE,
    Abilities,
)

#: The table's columns, in order.
COLUMNS = (TELEGRAM_PRIVATE, TELEGRAM_GROUP, DISCORD_DM, DISCORD_SERVER, CONSOLE, TABLE)


def told(value: bool | float | None) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "none" if value is None else f"{value:g} s"


def test_the_table_in_the_docstring_is_the_code() -> None:
    doc = abilities.__doc__ or ""
    rows = {line.split()[0]: line for line in doc.splitlines()
            if line and line.split()[0] in {field.name for field in dataclasses.fields(Abilities)}}
    assert set(rows) == {field.name for field in dataclasses.fields(Abilities)}
    for name, line in rows.items():
        cells = line[len(name):].split("  ")
        assert [cell.strip() for cell in cells if cell.strip()] == [told(getattr(place, name)) for place in COLUMNS]


def test_private_routing_is_for_a_shared_place_without_ephemeral_messages() -> None:
    assert TELEGRAM_GROUP.private_routing
    assert not (TELEGRAM_PRIVATE.private_routing or DISCORD_SERVER.private_routing or DISCORD_DM.private_routing)
    assert abilities.telegram(True) == TELEGRAM_GROUP and abilities.discord(False) == DISCORD_DM
