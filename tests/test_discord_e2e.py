"""The Discord bot end to end, offline: the real discord.py client, the real service on SQLite and the real
renderer, driven by SimCord as players would drive Discord (slash commands, button clicks, a restart).

Each test checks what a player sees: the message after the bot's response, whether the response edited the
game message in place (type 7) or posted a new one (type 4), and whether it was ephemeral.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import discord
import pytest
import simcord

from bot.adapters.discord.translator import valid_name
from bot.app.assembly import App
from bot.app.errors import BadPayload, CardNotInPlay
from bot.app.model import PlayerKey
from bot.i18n import translator
from bot.render.commands import COMMAND_DESCRIPTIONS, OPTION_DESCRIPTIONS, command_names
from bot.render.game import HINT_ICON, NEW_GAME_ICON, UNDO_ICON
from bot.render.replies import error_text
from bot.render.tableau import card_cell, card_label
from core.game import DRAW, Game, Tap, Undo
from tests.core_helpers import winning_line
from tests.discord_harness import (
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    UPDATE_MESSAGE,
    Callback,
    Locales,
    SlowApp,
    _walk,
    board_of,
    button,
    buttons_of,
    callbacks_since,
    choose,
    click,
    components_of,
    heading,
    labels_of,
    make_bot,
    menu_of,
    open_service,
    option,
    payload_versions,
    shows,
    slash,
    text_of,
)

CODE = "TP1-E-AAAAAAB"
NOT_ADJACENT_EN = "Must be one rank higher or lower"


def plain_label(card: Any) -> str:
    """A card as its button reads (variation selectors aside): ``10♥``."""
    return str(card_label(card)).translate(str.maketrans("", "", "\ufe0e\ufe0f"))


def fitting_slot(game: Game) -> int:
    return next(s for s in game.playable_slots() if game.fits(s))


def unfitting_slot(game: Game) -> int:
    return next(s for s in game.playable_slots() if not game.fits(s))


@pytest.fixture
async def game_service(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[App]:
    async with open_service(sqlite_template, tmp_path / "tripeaks.db") as service:
        yield service


@dataclass
class Table:
    env: simcord.Env
    channel: Any
    alice: Any
    bob: Any
    locales: Locales

    def public_messages(self) -> list[discord.Message]:
        messages: list[discord.Message] = self.channel.history()
        return messages

    def message(self, message_id: int) -> discord.Message:
        return next(m for m in self.public_messages() if m.id == message_id)

    async def new_game(self, code: str = CODE, actor: Any = None) -> simcord.ResponseMessage:
        result, sent = await slash(self.env, actor or self.alice, self.channel, "tripeaks new", code=code)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        return result


@asynccontextmanager
async def table(service: App, monkeypatch: pytest.MonkeyPatch, *, defer_after: float = 2.0,
                **config: Any) -> AsyncIterator[Table]:
    locales = Locales(monkeypatch)
    async with simcord.run(make_bot(service, defer_after=defer_after, **config)) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("general")
        alice = guild.add_member(env.create_user("alice"))
        bob = guild.add_member(env.create_user("bob"))
        yield Table(env, channel, alice, bob, locales)


# --- a new game ---------------------------------------------------------------------------------------------------


async def test_new_game_by_slash_command_shows_the_deal_and_its_free_cards(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        text = text_of(message)
        # in a server the board names its player; then the deal, the score and the moves
        assert heading(message).startswith("### alice") and f"{CODE} · Easy\nScore: 500 · Moves: 0\n" in text
        # the tableau is a code block: the ten bottom cards face up in one line (those that fit marked), then the
        # stock with its 23 cards and the waste card in brackets
        assert shows(message, game)
        rows = board_of(message).split("\n")
        assert rows[-1].split() == ["▒▒23", f"[{card_cell(game.waste)}]"]
        # one button per free card, then the controls; the cards that fit the waste card stand out
        cards = [plain_label(game.card_at(s)) for s in range(18, 28)]
        assert labels_of(message) == [*cards, "Draw", UNDO_ICON, HINT_ICON, NEW_GAME_ICON]
        styles = {b["label"]: b["style"] for b in buttons_of(message)}
        for slot in range(18, 28):
            fits = game.fits(slot)
            assert styles[plain_label(game.card_at(slot))] == (3 if fits else 2), slot  # green: it fits
        assert button(message, command="u")["disabled"] is True
        # every button names the game, the version shown and the action
        game_id = next(iter(payload_versions(message))).split(":")[0]
        assert payload_versions(message) == {f"{game_id}:0"}
        assert button(message, label=cards[0])["custom_id"] == f"tp:g:{game_id}:0:18"
        assert len(t.public_messages()) == 1


async def test_a_bad_code_is_answered_only_to_the_player(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks new", code="TP1-X-NOPE")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert "TP1-E-AAAAAAB" in result.content and "code" in result.content
        assert t.public_messages() == []


async def test_new_game_with_classic_rules_and_no_code(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks new", rules="classic")
        assert sent.type == CHANNEL_MESSAGE and not sent.ephemeral
        assert re.search(r"\nTP1-C-[A-Z]{7} · Classic", heading(result))


# --- taps ---------------------------------------------------------------------------------------------------------


async def test_a_legal_tap_edits_the_game_message_in_place(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    slot = fitting_slot(game)
    card = game.card_at(slot)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        result, sent = await click(t.env, t.alice, message, button(message, command=str(slot)))
        assert sent == Callback(UPDATE_MESSAGE, ephemeral=False, v2=True)  # answered at once, by editing
        after = result
        assert after.id == message.id and len(t.public_messages()) == 1
        assert "Score: 499 · Moves: 1" in text_of(after)
        assert f"[{card_cell(card)}]" in text_of(after)  # the tapped card is the waste card now
        assert plain_label(card) not in labels_of(after)
        assert {v.split(":")[1] for v in payload_versions(after)} == {"1"}
        assert button(after, command="u")["disabled"] is False


async def test_a_refused_tap_explains_why_in_the_status_line(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    slot = unfitting_slot(game)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        shown = payload_versions(message)  # (a ResponseMessage reads the message as it stands)
        result, sent = await click(t.env, t.alice, message, button(message, command=str(slot)))
        assert sent == Callback(UPDATE_MESSAGE, ephemeral=False, v2=True)
        after = result
        # the status line, set apart as a quote, names the card refused
        assert f"\n> {card_label(game.card_at(slot))} was not played. {NOT_ADJACENT_EN}" in text_of(after)
        assert "Score: 500 · Moves: 0" in text_of(after)  # nothing changed
        assert payload_versions(after) == shown
        assert len(t.public_messages()) == 1  # no extra message in the channel
        # the explanation goes with the next move
        result, _ = await click(t.env, t.alice, after, button(after, command=str(fitting_slot(game))))
        assert NOT_ADJACENT_EN not in text_of(result)


async def test_with_explanations_off_a_refused_tap_changes_nothing_visible(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks settings")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        panel = result
        assert "Explain refused moves" not in text_of(panel)  # each value once: on its button
        result, sent = await click(t.env, t.alice, panel, button(panel, label="✓ Explanations: on"))
        assert sent.type == UPDATE_MESSAGE and result.id == panel.id  # the settings message is redrawn
        assert result.ephemeral
        assert button(result, label="Explanations: off")

        message = await t.new_game()
        shown = text_of(message)
        result, sent = await click(t.env, t.alice, message, button(message, command=str(unfitting_slot(game))))
        assert sent.type == UPDATE_MESSAGE
        assert text_of(result) == shown


async def test_draw_then_undo(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    first = game.deal.stock[0]
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        result, sent = await click(t.env, t.alice, message, button(message, command="d"))
        assert sent.type == UPDATE_MESSAGE
        drawn = result
        game.apply(DRAW)
        assert "Score: 499 · Moves: 1\n" in text_of(drawn) and shows(drawn, game)
        assert f"[{card_cell(first)}]" in text_of(drawn)
        assert "Draw" in labels_of(drawn)

        result, sent = await click(t.env, t.alice, drawn, button(drawn, command="u"))
        assert sent.type == UPDATE_MESSAGE
        undone = result
        # the card goes back, and so do its points; the move counter never goes down
        game.apply(Undo())
        assert "Score: 500 · Moves: 1\n" in text_of(undone) and shows(undone, game)
        assert f"[{card_cell(game.waste)}]" in text_of(undone)
        assert "Draw" in labels_of(undone)
        assert button(undone, command="u")["disabled"] is True


async def test_a_scripted_deal_played_to_a_win(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    line = winning_line(CODE)
    won = Game.from_code(CODE)
    for action in line:
        won.apply(action)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        for action in line:
            command = str(action) if isinstance(action, Tap) else "d"
            result, sent = await click(t.env, t.alice, message, button(message, command=command))
            assert sent.type == UPDATE_MESSAGE
            message = result
        text = text_of(message)
        score = 500 - len(line) + 3 * 100
        assert f"You won! Final score: {score}" in text
        assert f"Moves: {len(line)}\n" in text and shows(message, won)
        # a won game is over: its ending buttons share, replay or review it, or start a new game
        assert labels_of(message) == ["Share", "Replay", "Review", "New game"]
        assert len(t.public_messages()) == 1

        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks stats")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        stats = text_of(result)
        assert "1 game played" in stats and "1 win" in stats and f"Best score: {score}" in stats

        # New game on the won game's board: the new game is a new message; the won board keeps its result, with
        # Share and Review
        result, sent = await click(t.env, t.alice, message, button(message, command="n"))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True) and result.id != message.id
        assert "Score: 500 · Moves: 0" in text_of(result)
        finished = t.message(message.id)
        assert f"You won! Final score: {score}" in text_of(finished) and shows(finished, won)
        assert labels_of(finished) == ["Share", "Review"]
        assert len(t.public_messages()) == 2


async def test_someone_elses_tap_gets_a_private_answer_and_changes_nothing(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        before = components_of(t.message(message.id))
        result, sent = await click(t.env, t.bob, message, button(message, command=str(fitting_slot(game))))
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert result.content == "This is not your game; start your own with /tripeaks new"
        assert components_of(t.message(message.id)) == before
        assert len(t.public_messages()) == 1
        # alice's game is untouched: her tap on the same button still plays
        result, sent = await click(t.env, t.alice, message, button(message, command=str(fitting_slot(game))))
        assert sent.type == UPDATE_MESSAGE and "Moves: 1" in text_of(result)


async def test_after_a_restart_a_tap_on_the_old_message_plays(
        sqlite_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    path = tmp_path / "restart.db"
    async with open_service(sqlite_template, path) as first, table(first, monkeypatch) as t:
        message = await t.new_game()
        result, _ = await click(t.env, t.alice, message, button(message, command="d"))
        drawn = result
        await first.close()  # the old process is gone, its database connections too
        async with open_service(sqlite_template, path) as second:
            await t.env.restart_bot(make_bot(second))
            result, sent = await click(t.env, t.alice, drawn, button(drawn, command="u"))
            assert sent == Callback(UPDATE_MESSAGE, ephemeral=False, v2=True)
            assert "Score: 500 · Moves: 1\n" in text_of(result) and shows(result, game)
            assert f"[{card_cell(game.waste)}]" in text_of(result)


async def test_a_slow_tap_is_acknowledged_within_the_deadline_then_shown(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = SlowApp(game_service, delay=60.0)
    async with table(cast(App, slow), monkeypatch, defer_after=0.5) as t:
        slow.delay = 0.0
        message = await t.new_game()
        slow.delay = 60.0
        mark = len(t.env.http_requests)
        result = await t.alice.click(message, custom_id=button(message, command="d")["custom_id"])
        await t.env.advance_time(1.0)
        # after defer_after the bot acknowledges (a deferred update) though the service has not answered yet
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_UPDATE]
        assert result.deferred
        assert "Moves: 0" in text_of(t.message(message.id))
        await t.env.advance_time(60.0)
        # then the answer is edited into the game message
        assert any(e.method == "PATCH" and e.path.endswith("/messages/@original")
                   for e in t.env.http_requests[mark:])
        drawn = Game.from_code(CODE)
        drawn.apply(DRAW)
        assert "Moves: 1\n" in text_of(t.message(message.id)) and shows(t.message(message.id), drawn)
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_UPDATE]


async def test_a_hint_names_a_move_and_marks_its_button(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    hinted = next(iter(game.legal_actions()))  # what the stand-in solver suggests
    assert isinstance(hinted, Tap)
    card = game.card_at(hinted.slot)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        result, sent = await click(t.env, t.alice, message, button(message, command="h"))
        assert sent.type == UPDATE_MESSAGE
        assert f"> Hint: play {plain_label(card)}" in text_of(result).translate({0xFE0E: None, 0xFE0F: None})
        assert button(result, command=str(hinted.slot))["style"] == 1  # primary (blurple): the hinted card
        assert "Moves: 0" in text_of(result)


async def test_daily_deal_by_command_and_by_the_play_button_under_a_daily_post(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.adapters.discord.views import layout
    from bot.app import daily
    from bot.render.replies import render_daily
    from core.deal import GameCode

    day = dt.date(2026, 11, 29)
    codes = {day: GameCode.parse(CODE), day + dt.timedelta(days=1): GameCode.parse("TP1-E-AAAAAAC")}
    monkeypatch.setattr(daily, "daily_code", lambda day, secret: codes[day])  # the day's deal is bot.app.daily's business
    today = [day]
    monkeypatch.setattr(daily, "today", lambda now=None: today[0])
    async with table(game_service, monkeypatch) as t:
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks daily")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)  # the ranked attempt: alice's alone
        # the day and the rules: the code would deal every card to whoever reads the board while the day runs
        assert "\nDaily deal · Nov 29, 2026\nEasy · ranked attempt: no undo\n" in heading(result)
        assert CODE not in heading(result)

        tomorrow = day + dt.timedelta(days=1)
        today[0] = tomorrow  # the next day's post
        channel = t.env.bot.get_channel(t.channel.id)
        assert isinstance(channel, discord.TextChannel)
        post = await channel.send(view=layout(render_daily(tomorrow, "en")))
        result, sent = await click(t.env, t.bob, post, button(post, label="Play"))
        # the post stays for everyone; bob's attempt is a new message of his own, for him alone
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        assert heading(result).startswith("### bob") and "\nDaily deal · Nov 30, 2026\nEasy · ranked attempt: no undo\n" in heading(result)
        assert labels_of(t.message(post.id)) == ["Play"]
        stored = await game_service.games.current_game(PlayerKey("discord", str(t.bob.id)))
        assert stored is not None and stored.daily == tomorrow


async def test_default_rules_setting_applies_to_new_games_without_a_code(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        panel, _ = await slash(t.env, t.alice, t.channel, "tripeaks settings")
        assert button(panel, label="✓ Easy")
        result, _ = await click(t.env, t.alice, panel, button(panel, label="Classic"))
        assert button(result, label="✓ Classic") and button(result, label="Easy")
        result, _ = await slash(t.env, t.alice, t.channel, "tripeaks new")
        assert re.search(r"\nTP1-C-[A-Z]{7} · Classic", heading(result))


async def test_a_slow_new_game_shows_thinking_then_the_game(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = SlowApp(game_service, delay=60.0)
    async with table(cast(App, slow), monkeypatch, defer_after=0.5) as t:
        mark = len(t.env.http_requests)
        result = await t.alice.slash(t.channel, "tripeaks new", code=CODE)
        await t.env.advance_time(1.0)
        assert [c.type for c in callbacks_since(t.env, mark)] == [DEFERRED_CHANNEL_MESSAGE]  # "thinking..."
        assert all("Score:" not in text_of(m) for m in t.public_messages())  # no game shown yet
        await t.env.advance_time(60.0)
        message = result.response
        assert message is not None and not message.ephemeral
        assert f"{CODE} · Easy\nScore: 500" in heading(message)
        assert "Draw" in labels_of(message)
        assert [m.id for m in t.public_messages()] == [message.id]


# --- languages ------------------------------------------------------------------------------------------------------

# The original app's wording (RULES.md): the rule set, the refusal of a card that does not fit, and a blocked card.
APP_WORDING = {
    "uk": ("Легкий", "Має бути на один ранг вищою або нижчою", "Ця карта заблокована"),
    "ja": ("イージー", "ランクが1つ上か1つ下である必要があります", "このカードはブロックされています"),
}


@pytest.mark.parametrize("locale", ["uk", "ja"])
async def test_replies_in_the_players_discord_language(
        locale: str, game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    easy, not_adjacent, _ = APP_WORDING[locale]
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        t.locales.set(t.alice, locale)
        t.locales.set(t.bob, locale)
        message = await t.new_game()
        assert f"{CODE} · {easy}\n" in heading(message)
        result, _ = await click(t.env, t.alice, message, button(message, command=str(unfitting_slot(game))))
        assert not_adjacent in text_of(result)
        # a card that is face down, typed by name, is not in play yet: said privately, revealing nothing
        hidden = game.card_at(0)
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks play", card=str(hidden))
        assert sent.ephemeral and result.content == error_text(CardNotInPlay(str(hidden)), locale)
        # someone else's tap is answered in the tapper's language, naming the owner
        result, sent = await click(t.env, t.bob, message, button(message, command=str(fitting_slot(game))))
        assert sent.ephemeral
        reply = result.content
        new_command = f"/tripeaks {command_names(locale)['new']}"  # as the player's Discord client names it
        assert "alice" not in reply and new_command in reply and new_command != "/tripeaks new"
        assert reply == translator(locale).gettext("This is not your game; start your own with {command}").format(
            command=new_command)
        assert reply != "This is not your game; start your own with /tripeaks new"


async def test_the_language_setting_wins_over_the_discord_client_language(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """The language is a select menu on the settings message (no language buttons): choosing 日本語 edits the
    message in place, in Japanese, 日本語 now the menu's choice; Automatic gives the client's language back."""
    async with table(game_service, monkeypatch) as t:
        result, _ = await slash(t.env, t.alice, t.channel, "tripeaks settings")
        panel = result
        assert not [b for b in buttons_of(panel) if b["custom_id"].startswith("tp:set:lang:")]
        menu = menu_of(panel)
        assert [o["label"] for o in menu["options"]][:3] == ["Automatic", "English", "Українська"]
        assert [o["label"] for o in menu["options"] if o.get("default")] == ["Automatic"]
        result, sent = await choose(t.env, t.alice, panel, option(panel, "日本語")["value"])
        assert sent.type == UPDATE_MESSAGE and result.ephemeral
        assert text_of(result).startswith("### " + translator("ja").gettext("Settings"))
        assert [o["label"] for o in menu_of(result)["options"] if o.get("default")] == ["日本語"]
        message = await t.new_game()
        assert f"{CODE} · イージー\n" in heading(message)
        assert translator("ja").pgettext("button", "Draw") in labels_of(message)
        # back to automatic: the Discord client's language (en-US) again
        result, _ = await slash(t.env, t.alice, t.channel, "tripeaks settings")
        panel = result
        automatic = translator("ja").pgettext("button", "Automatic")
        result, sent = await choose(t.env, t.alice, panel, option(panel, automatic)["value"])
        assert sent.type == UPDATE_MESSAGE and text_of(result).startswith("### Settings")
        message = await t.new_game()
        assert f"{CODE} · Easy\n" in heading(message)


@pytest.mark.parametrize("value", ["tp:set:lang:xx", "tp:set:lang", "garbage"])
async def test_a_tampered_language_option_gets_the_usual_refusal(
        value: str, game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """A select menu whose option's value is no setting (a damaged message, a tampered client) is answered with
    the renderer's "could not be read", privately and in the player's language, and changes nothing."""
    async with table(game_service, monkeypatch) as t:
        t.locales.set(t.alice, "uk")
        forged = discord.ui.LayoutView(timeout=None)
        forged.add_item(discord.ui.ActionRow(discord.ui.Select(custom_id="tpm:0", options=[
            discord.SelectOption(label="Deutsch", value=value)])))
        channel = t.env.bot.get_channel(t.channel.id)
        assert isinstance(channel, discord.TextChannel)
        sent_message = await channel.send(view=forged)
        message = t.message(sent_message.id)
        result, sent = await choose(t.env, t.alice, message, value)
        assert sent.type == CHANNEL_MESSAGE and sent.ephemeral
        assert result.content == error_text(BadPayload(value), "uk", f"/tripeaks {command_names('uk')['new']}")
        player = PlayerKey("discord", str(t.alice.id))
        assert (await game_service.players.get_settings(player)).language is None



async def test_commands_are_described_in_the_bots_languages(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        bot = t.env.bot
        assert isinstance(bot, discord.ext.commands.Bot)
        commands = {command.name: command for command in await bot.tree.fetch_commands()}  # as Discord stored them
        assert set(commands) == {"tripeaks", "tripeaks-owner"}
        group, owner = commands["tripeaks"], commands["tripeaks-owner"]
        # the owner's command: shown to a server's administrators alone, described in the bot's languages
        assert owner.default_member_permissions == discord.Permissions(administrator=True)
        assert {o.name for o in owner.options} == {"stats", "notice", "block", "unblock"}
        assert owner.description_localizations.get(discord.Locale.ukrainian) == \
            translator("uk").gettext(COMMAND_DESCRIPTIONS["owner"])
        subcommands = {o.name: o for o in group.options if isinstance(o, discord.app_commands.AppCommandGroup)}
        assert set(subcommands) == {"new", "daily", "resume", "play", "rules", "stats", "settings",
                                    "leaderboard", "subscribe", "unsubscribe", "round"}
        assert group.description == COMMAND_DESCRIPTIONS["tripeaks"]
        described_commands: list[tuple[str, Any]] = [("tripeaks", group), *subcommands.items()]
        for key, described in described_commands:
            english = COMMAND_DESCRIPTIONS[key]
            assert described.description == english
            for locale, language in ((discord.Locale.ukrainian, "uk"), (discord.Locale.japanese, "ja"),
                                     (discord.Locale.russian, "ru")):
                assert described.description_localizations.get(locale) == translator(language).gettext(english)
        options: dict[str, Any] = {o.name: o for o in (*subcommands["new"].options, *subcommands["play"].options)}
        assert set(options) == {"code", "rules", "winnable", "card"}
        assert options["winnable"].type is discord.AppCommandOptionType.boolean and not options["winnable"].required
        for key, option in options.items():
            if key not in OPTION_DESCRIPTIONS:
                continue  # not described by the renderer yet: Discord shows its placeholder
            english = OPTION_DESCRIPTIONS[key]
            assert option.description == english
            assert option.description_localizations.get(discord.Locale.ukrainian) == \
                translator("uk").gettext(english)
        rules = options["rules"]
        names = {c.value: c.name_localizations.get(discord.Locale.japanese) for c in rules.choices}
        assert names == {"easy": "イージー", "classic": "クラシック"}
        for option in (*group.options, *subcommands["new"].options, *subcommands["play"].options):
            for localized in option.name_localizations.values():
                assert valid_name(localized)
        # names too are in the player's language, as the catalogues give them
        for locale, language in ((discord.Locale.ukrainian, "uk"), (discord.Locale.japanese, "ja"),
                                 (discord.Locale.russian, "ru")):
            names = command_names(language)
            for key, described in [*subcommands.items(), *options.items()]:
                if key in names:
                    assert described.name_localizations.get(locale) == names[key] != key
        assert subcommands["new"].name_localizations[discord.Locale.ukrainian] == "нова"
        assert group.name_localizations == {}  # the group keeps its name everywhere


# --- typing a card, DMs, other commands -----------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["{rank}{suit_letter}", "{rank}{suit_symbol}", "{rank_lower}{suit_lower}"])
async def test_play_a_card_by_name(spelling: str, game_service: App,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    slot = fitting_slot(game)
    card = game.card_at(slot)
    typed = spelling.format(rank=card.rank.label, suit_letter=card.suit.letter, suit_symbol=card.suit.symbol,
                            rank_lower=card.rank.label.lower(), suit_lower=card.suit.letter.lower())
    async with table(game_service, monkeypatch) as t:
        board = await t.new_game()
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks play", card=typed)
        # a short private acknowledgement; the live board is edited in place, and the channel gets no new message
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert result.content == f"You played {card_label(card)}"
        played = Game.from_code(CODE)
        played.apply(Tap(slot))
        edited = t.message(board.id)
        assert "Score: 499 · Moves: 1" in text_of(edited) and shows(edited, played)
        assert len(t.public_messages()) == 1


async def test_play_autocomplete_offers_the_free_cards(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    free = [game.card_at(s) for s in game.playable_slots()]
    async with table(game_service, monkeypatch) as t:
        assert await t.alice.autocomplete(t.channel, "tripeaks play", "card", "") == []  # no game yet
        await t.new_game()
        choices = await t.alice.autocomplete(t.channel, "tripeaks play", "card", "")
        assert [c["value"] for c in choices] == [str(c) for c in free]
        assert [c["name"] for c in choices] == [card_label(c) for c in free]
        # the deal's free cards: 2♣ A♦ 6♠ K♣ K♥ 10♥ 10♠ J♠ 10♦ 8♠
        for typed, wanted in (("k", ["KC", "KH"]), ("K♥", ["KH"]), ("10", ["TH", "TS", "TD"]), ("10d", ["TD"]),
                              ("q", [str(c) for c in free])):
            choices = await t.alice.autocomplete(t.channel, "tripeaks play", "card", typed)
            assert [c["value"] for c in choices] == wanted, typed


async def test_an_abandoned_games_board_is_closed(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        old = await t.new_game()
        await t.new_game("TP1-E-AAAAAAC")  # no move yet: nothing to lose, so no question
        # the old board says so and keeps no button that could play it
        closed = t.message(old.id)
        assert "> This game was abandoned" in text_of(closed) and shows(closed, Game.from_code(CODE))
        assert labels_of(closed) == []


async def test_play_a_card_that_does_not_fit_is_refused_privately(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    card = game.card_at(unfitting_slot(game))
    async with table(game_service, monkeypatch) as t:
        board = await t.new_game()
        before = components_of(t.message(board.id))
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks play", card=card.symbol())
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert result.content == f"{card_label(card)} was not played. {NOT_ADJACENT_EN}"
        assert components_of(t.message(board.id)) == before  # nothing changed, so the board is left as it is
        # text that is no card: said privately, with how to write one
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks play", card="7X")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert result.content.startswith("That is not a card") and "7h" in result.content
        assert components_of(t.message(board.id)) == before
        assert len(t.public_messages()) == 1


async def test_a_game_in_a_direct_message(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        carol = t.env.create_user("carol")
        result, sent = await slash(t.env, carol, None, "tripeaks new", code=CODE)
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=False, v2=True)
        result, sent = await click(t.env, carol, result, button(result, command=str(fitting_slot(game))))
        assert sent.type == UPDATE_MESSAGE
        assert "Moves: 1" in text_of(result)
        stored = await game_service.games.current_game(PlayerKey("discord", str(carol.id)))
        assert stored is not None and stored.game.moves == 1


async def test_rules_and_resume_without_a_game(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch) as t:
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks rules")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=True)
        assert text_of(result).startswith("### How to play TriPeaks")
        assert "772" in text_of(result)
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks resume")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert "/tripeaks new" in result.content
        assert t.public_messages() == []


async def test_a_sharded_bot_plays_the_same(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    async with table(game_service, monkeypatch, discord_shard_count=2) as t:
        assert isinstance(t.env.bot, discord.AutoShardedClient)
        message = await t.new_game()
        result, sent = await click(t.env, t.alice, message, button(message, command="d"))
        assert sent.type == UPDATE_MESSAGE and "Moves: 1" in text_of(result)



# --- the command translator -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("translated", "expected"), [
    ("нова", "нова"),  # a lower-case word: taken
    ("新規", "新規"),  # letters without case: taken
    ("Нова гра", None),  # a space, and upper case: Discord would refuse the whole sync, so left out
    ("new", None),  # untranslated: Discord's default stays
])
def test_a_command_name_discord_would_refuse_is_left_out(
        translated: str, expected: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    from discord.app_commands import locale_str

    from bot.adapters.discord import translator as module

    class Catalogue:
        def pgettext(self, context: str, message: str) -> str:
            assert context == "command"
            return translated

    monkeypatch.setattr(module, "translator", lambda locale: Catalogue())
    assert module.translate(locale_str("new", kind="name"), "uk") == expected


def card_places(message: Any) -> tuple[dict[int, tuple[int, int]], list[list[dict[str, Any]]]]:
    """Where each card button is: slot -> (action row, column); and the rows of buttons."""
    rows = [[b for b in c.get("components") or [] if b.get("type") == 2]
            for c in _walk(components_of(message)) if c.get("type") == 1]
    where = {}
    for r, row in enumerate(rows):
        for c, info in enumerate(row):
            found = re.match(r"^tp:g:\d+:\d+:(\d+)$", info.get("custom_id", ""))
            if found:
                where[int(found.group(1))] = (r, c)
    return where, rows


async def test_a_card_keeps_its_button_place_while_it_is_free(
        game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Taps that remove cards (and draws) never move another free card's button: a peak a row, a greyed blank
    where a card went before a card still free, the rows below in place."""
    game = Game.from_code(CODE)
    async with table(game_service, monkeypatch) as t:
        message = await t.new_game()
        blanks_seen = 0
        for _ in range(12):
            before, _ = card_places(message)
            fits = [s for s in game.playable_slots() if game.fits(s)]
            action = Tap(fits[0]) if fits else DRAW
            message, _ = await click(t.env, t.alice, message, button(message, command=str(action)))
            game.push(action)
            after, rows = card_places(message)
            assert sorted(after) == game.playable_slots()
            for slot, where in after.items():
                if slot in before:
                    assert where == before[slot], (slot, before, after)
            assert [b["label"] for b in rows[3]][:2] == ["Draw", UNDO_ICON]  # three rows of cards, then the controls
            blanks = [b for row in rows[:3] for b in row if b.get("custom_id", "").startswith("tp:-:")]
            assert all(b["disabled"] and b["label"].strip("\u2800") == "" for b in blanks)
            blanks_seen = max(blanks_seen, len(blanks))
        assert blanks_seen > 0


async def test_play_a_rank_alone(game_service: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/tripeaks play K``: the only free card of that rank is played; with two free, a private message lists
    them and nothing is played."""
    async with table(game_service, monkeypatch) as t:
        board = await t.new_game()  # free: 2♣ A♦ 6♠ K♣ K♥ 10♥ 10♠ J♠ 10♦ 8♠, on Q♣
        result, sent = await slash(t.env, t.alice, t.channel, "tripeaks play", card="K")
        assert sent == Callback(CHANNEL_MESSAGE, ephemeral=True, v2=False)
        assert result.content == "More than one free card has that rank: K♣\ufe0e, K♥\ufe0f. Add the suit, such as kc"
        assert "Moves: 0" in text_of(t.message(board.id))
        result, _ = await slash(t.env, t.alice, t.channel, "tripeaks play", card="j")
        assert result.content.startswith("You played J♠")
        assert "Score: 499 · Moves: 1" in text_of(t.message(board.id))
