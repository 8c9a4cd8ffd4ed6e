"""The owner's commands on Telegram, end to end (the real Application against the fake Bot API): ``/owner`` in the
owner's private chat (out of the command menu), refused to anyone else and unknown in a group; the notice on
players' boards; a blocked account answered one line in its language, with nothing stored from it."""

# ruff: noqa: F811 - the fixtures imported from test_telegram_e2e are named as parameters
from __future__ import annotations

import pytest

from bot.app.assembly import App
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_owner import rows
from tests.test_telegram_e2e import (  # noqa: F401 - the fixtures are used by name
    HANDLED,
    api,
    command,
    db_url,
    no_errors_logged,
    service,
    text_boards,
)
from tests.test_telegram_lifecycle import player_of

pytestmark = pytest.mark.timeout(60)


async def test_the_owner_runs_the_bot_from_a_private_chat(api: FakeBotAPI, service: App) -> None:
    olga, ann = api.user("Olga"), api.user("Ann")
    service.owners.owner_ids = frozenset({player_of(olga)})  # OWNER_IDS=telegram:<Olga's id>
    olgas, anns = api.private_chat(olga), api.private_chat(ann)
    assert "owner" not in [name for name, _ in api.visible_commands(olga, olgas)]

    await command(api, ann, anns, "/tripeaks")
    stats = await command(api, olga, olgas, "/owner stats")
    assert stats.text is not None and stats.text.split("\n")[:2] == ["The bot in figures", "Players: 1"]
    assert "Games today: 1, in all: 1" in stats.text and "No notice is shown." in stats.text

    said = await command(api, olga, olgas, "/owner notice Back at 18:00 UTC")
    assert said.text == ("Players see this under their boards from now on:\n"
                         "📢 Notice from the bot's owner: Back at 18:00 UTC")
    board = await command(api, ann, anns, "/resume")
    assert board.text is not None and board.text.endswith("📢 Notice from the bot's owner: Back at 18:00 UTC")
    assert (await command(api, olga, olgas, "/owner notice off")).text == \
        "The notice is off: players no longer see it."
    board = await command(api, ann, anns, "/resume")
    assert board.text is not None and "Notice from" not in board.text

    mistyped = await command(api, olga, olgas, "/owner block")
    assert mistyped.text == ("Write it as: /owner stats | notice <text> | notice off | block <platform:id> | "
                             "unblock <platform:id>")


async def test_anyone_else_is_refused_and_a_group_does_not_know_the_command(api: FakeBotAPI, service: App) -> None:
    olga, ann = api.user("Olga"), api.user("Ann", language_code="uk")
    service.owners.owner_ids = frozenset({player_of(olga)})
    refused = await command(api, ann, api.private_chat(ann), "/owner block telegram:1")
    assert refused.text == "Ця команда не для вас."
    group = api.group(members=[olga, ann])
    handle = api.send_text(olga, group, "/owner stats")
    await api.wait_until(lambda: handle.update_id in HANDLED, what="the bot to handle /owner in a group")
    assert api.bot_messages(group) == []  # no figures where the group reads them, no word at all
    stats = await command(api, olga, api.private_chat(olga), "/owner stats")
    assert stats.text is not None and "Blocked accounts: 0" in stats.text


async def test_a_blocked_account_gets_one_line_and_nothing_is_stored(api: FakeBotAPI, service: App) -> None:
    olga, carol = api.user("Olga"), api.user("Carol", language_code="de")
    service.owners.owner_ids = frozenset({player_of(olga)})
    olgas, carols = api.private_chat(olga), api.private_chat(carol)
    blocked = await command(api, olga, olgas, f"/owner block telegram:{carol.id}")
    assert blocked.text == f"telegram:{carol.id} is blocked: its commands are refused."
    before = await rows(service.db)
    for text in ("/tripeaks", "/daily", "/stats", "/settings", "/start TP1-E-AAAAAAB", "7h"):
        answer = await command(api, carol, carols, text)
        assert answer.text == "Dieser Bot steht dir nicht zur Verfügung.", text
    group = api.group(members=[carol], admins=[olga])
    answer = await command(api, carol, group, "/leaderboard")
    assert answer.text == "Dieser Bot steht dir nicht zur Verfügung."
    assert await rows(service.db) == before  # no player, no game, no community seen, no message id

    await command(api, olga, olgas, f"/owner unblock telegram:{carol.id}")
    board = await command(api, carol, carols, "/tripeaks")
    assert board.buttons  # a board to play
