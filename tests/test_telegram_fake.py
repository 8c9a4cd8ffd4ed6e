"""The fake Telegram Bot API, driven by the real python-telegram-bot Application over real HTTP.

A tiny throwaway bot (below) replies to /deal with an inline keyboard and answers and edits on button
presses; the tests check what a player would see and that Telegram's limits come back as PTB errors.
"""

from __future__ import annotations

import asyncio
import html
import io
import json
import socket
import textwrap
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Message,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, InvalidToken, RetryAfter
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakes import telegram_bot_api as fake_module
from tests.fakes.telegram_bot_api import FakeBotAPI, run_polling

pytestmark = pytest.mark.timeout(30)

NOT_MODIFIED = (
    "Message is not modified: specified new message content and reply markup are exactly the same as a "
    "current content and reply markup of the message"
)
QUERY_TOO_OLD = "Query is too old and response timeout expired or query id is invalid"

KEYBOARD = InlineKeyboardMarkup(
    [
        [
            InlineKeyboardButton("Draw", callback_data="draw"),
            InlineKeyboardButton("Same", callback_data="same"),
        ],
        [
            InlineKeyboardButton("Alert", callback_data="alert"),
            InlineKeyboardButton("Hold", callback_data="hold"),
        ],
    ]
)
KEYBOARD_ROWS = [[("Draw", "draw"), ("Same", "same")], [("Alert", "alert"), ("Hold", "hold")]]


@dataclass
class Seen:
    """What the throwaway bot observed."""

    languages: list[str | None] = field(default_factory=list)
    errors: list[Exception] = field(default_factory=list)
    held_queries: list[str] = field(default_factory=list)


AnyApp: TypeAlias = "Application[Any, Any, Any, Any, Any, Any]"
RunningBot: TypeAlias = "tuple[AnyApp, Seen]"


def build_bot(api: FakeBotAPI, seen: Seen) -> AnyApp:
    """A throwaway bot: /deal replies with a keyboard; buttons answer and edit."""
    app = api.application_builder().build()

    async def deal(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_user is not None and update.effective_message is not None
        seen.languages.append(update.effective_user.language_code)
        code = context.args[0] if context.args else "random"
        await update.effective_message.reply_text(
            f"<b>Deal</b> {html.escape(code)}", parse_mode=ParseMode.HTML, reply_markup=KEYBOARD
        )

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and isinstance(query.message, Message)
        if query.data == "draw":
            await query.answer("You drew the 7♠")
            await query.edit_message_text("Stock: 23 cards", reply_markup=KEYBOARD)
        elif query.data == "same":
            await query.answer()
            message = query.message
            assert message.text is not None
            try:
                await query.edit_message_text(
                    message.text, entities=message.entities, reply_markup=message.reply_markup
                )
            except BadRequest as exc:
                seen.errors.append(exc)
        elif query.data == "alert":
            await query.answer("Not your game", show_alert=True)
        elif query.data == "hold":
            seen.held_queries.append(query.id)  # deliberately left unanswered

    app.add_handler(CommandHandler("deal", deal))
    app.add_handler(CallbackQueryHandler(button))
    return app


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI() as fake:
        yield fake
    assert fake.server_errors == []


@pytest.fixture
async def bot(api: FakeBotAPI) -> AsyncIterator[RunningBot]:
    seen = Seen()
    app = build_bot(api, seen)
    async with run_polling(app):
        yield app, seen


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ---- the player's view ------------------------------------------------------------------------------


async def test_command_reply_shows_text_entities_and_keyboard(api: FakeBotAPI, bot: RunningBot) -> None:
    _, seen = bot
    alice = api.user("Alice", language_code="de")
    chat = api.private_chat(alice)

    reply = await api.send_text(alice, chat, "/deal TP1-E-AAAAAAB").reply()

    assert reply.text == "Deal TP1-E-AAAAAAB"
    assert reply.entity_texts("bold") == ["Deal"]
    assert reply.keyboard == KEYBOARD_ROWS
    assert reply.from_bot and reply.parse_mode == "HTML" and reply.raw_text == "<b>Deal</b> TP1-E-AAAAAAB"
    assert seen.languages == ["de"]
    assert [m.text for m in api.messages(chat)] == ["/deal TP1-E-AAAAAAB", "Deal TP1-E-AAAAAAB"]
    assert api.last_message(chat) is reply
    # PTB sends form data; the fake decodes nested JSON fields such as reply_markup.
    request = api.calls("sendMessage")[0]
    assert request.content_type == "application/x-www-form-urlencoded"
    assert request.params["chat_id"] == chat.id
    assert request.params["reply_markup"]["inline_keyboard"][0][0] == {
        "text": "Draw",
        "callback_data": "draw",
    }


async def test_press_shows_toast_and_edited_message(api: FakeBotAPI, bot: RunningBot) -> None:
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    reply = await api.send_text(alice, chat, "/deal").reply()

    press = api.press(alice, chat, reply.message_id, button_text="Draw")
    answer = await press.answer()
    edited = await press.edited()

    assert (answer.text, answer.show_alert) == ("You drew the 7♠", False)
    assert edited is reply and edited.text == "Stock: 23 cards" and edited.entities == []
    assert edited.keyboard == KEYBOARD_ROWS
    assert edited.history[0][0] == "Deal random" and edited.edit_count == 1
    assert api.unanswered_callbacks() == []

    alert = await api.press(alice, chat, reply.message_id, "alert").answer()
    assert (alert.text, alert.show_alert) == ("Not your game", True)


async def test_callback_query_carries_the_message_and_the_users_language(api: FakeBotAPI) -> None:
    got: list[Update] = []
    app = api.application_builder().build()

    async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got.append(update)
        assert update.callback_query is not None
        await update.callback_query.answer()

    app.add_handler(CallbackQueryHandler(on_button))
    bob = api.user("Bob", username="bob", language_code="fr")
    chat = api.private_chat(bob)
    async with run_polling(app):
        sent = await app.bot.send_message(chat.id, "Pick", reply_markup=KEYBOARD)
        await api.press(bob, chat, sent.message_id, "hold").answer()

    query = got[0].callback_query
    assert query is not None and isinstance(query.message, Message)
    assert query.from_user.language_code == "fr" and query.from_user.username == "bob"
    assert query.data == "hold" and query.message.message_id == sent.message_id
    assert query.message.reply_markup == KEYBOARD


async def test_edit_that_changes_nothing_raises_bad_request(api: FakeBotAPI, bot: RunningBot) -> None:
    _, seen = bot
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    reply = await api.send_text(alice, chat, "/deal TP1-E-AAAAAAB").reply()

    press = api.press(alice, chat, reply.message_id, "same")
    await press.answer()
    failed = await press.wait_for_request("editMessageText")

    assert failed.status == 400
    assert failed.error == (
        "Bad Request: message is not modified: specified new message content and reply markup are exactly "
        "the same as a current content and reply markup of the message"
    )
    await api.wait_until(lambda: len(seen.errors) == 1)
    assert isinstance(seen.errors[0], BadRequest) and str(seen.errors[0]) == NOT_MODIFIED
    assert reply.edit_count == 0


async def test_unanswered_presses_are_tracked(api: FakeBotAPI, bot: RunningBot) -> None:
    app, seen = bot
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    reply = await api.send_text(alice, chat, "/deal").reply()

    press = api.press(alice, chat, reply.message_id, "hold")
    await api.wait_until(lambda: seen.held_queries == [press.query_id])
    assert [record.id for record in api.unanswered_callbacks()] == [press.query_id]

    with pytest.raises(BadRequest, match="^Message_too_long$"):
        await app.bot.answer_callback_query(press.query_id, text="x" * 201)
    assert not press.answered
    assert await app.bot.answer_callback_query(press.query_id, text="y" * 200)
    answer = api.callback_answer(press.query_id)
    assert answer is not None and answer.text == "y" * 200
    assert api.unanswered_callbacks() == []

    with pytest.raises(BadRequest) as answered_twice:
        await app.bot.answer_callback_query(press.query_id, text="again")
    assert str(answered_twice.value) == QUERY_TOO_OLD
    with pytest.raises(BadRequest) as unknown:
        await app.bot.answer_callback_query("123456789")
    assert str(unknown.value) == QUERY_TOO_OLD


async def test_group_commands_address_the_bot_by_username(api: FakeBotAPI, bot: RunningBot) -> None:
    _, seen = bot
    alice = api.user("Alice", language_code="es")
    bob = api.user("Bob", language_code="pt")
    group = api.group("TriPeaks club", supergroup=True, members=[alice, bob])
    assert group.type == "supergroup" and group.id < -1_000_000_000_000

    api.send_text(alice, group, "/deal@someone_elses_bot X1")  # for another bot: ignored
    reply = await api.send_text(bob, group, f"/deal@{api.bot_username} TP1-E-AAAAAAB").reply()

    assert reply.text == "Deal TP1-E-AAAAAAB"
    assert seen.languages == ["pt"]
    assert [m.text for m in api.bot_messages(group)] == ["Deal TP1-E-AAAAAAB"]
    command = api.messages(group)[1]
    assert command.entities == [
        {"type": "bot_command", "offset": 0, "length": len(f"/deal@{api.bot_username}")}
    ]


# ---- Telegram's limits come back as PTB errors -----------------------------------------------------


async def test_callback_data_is_limited_to_64_bytes(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    chat = api.private_chat(api.user())

    def markup(data: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("b", callback_data=data)]])

    with pytest.raises(BadRequest, match="^Button_data_invalid$"):
        await app.bot.send_message(chat.id, "x", reply_markup=markup("a" * 65))
    with pytest.raises(BadRequest, match="^Button_data_invalid$"):
        await app.bot.send_message(chat.id, "x", reply_markup=markup("é" * 33))  # 66 bytes, 33 characters
    sent = await app.bot.send_message(chat.id, "x", reply_markup=markup("é" * 32))  # exactly 64 bytes
    assert api.message(chat, sent.message_id).keyboard == [[("b", "é" * 32)]]
    assert len(api.bot_messages(chat)) == 1


async def test_url_buttons_are_kept_with_their_links_and_bad_links_refused(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    chat = api.private_chat(api.user())
    link = f"https://t.me/{api.bot_username}?start=TP1-E-AAAAAAB"
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Play this deal", url=link),
                                    InlineKeyboardButton("b", callback_data="b")]])
    sent = await app.bot.send_message(chat.id, "x", reply_markup=markup)
    stored = api.message(chat, sent.message_id)
    assert stored.links == [("Play this deal", link)]
    assert stored.keyboard == [[("Play this deal", None), ("b", "b")]]  # a link carries no callback data
    with pytest.raises(BadRequest, match="^Button_url_invalid$"):
        await app.bot.send_message(chat.id, "x", reply_markup=InlineKeyboardMarkup(
            [[InlineKeyboardButton("bad", url="not a link")]]))


async def test_keyboards_are_limited_to_8_a_row_and_100_buttons(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    chat = api.private_chat(api.user())

    def grid(rows: int, per_row: int, extra: int = 0) -> InlineKeyboardMarkup:
        buttons = [
            [InlineKeyboardButton(f"{r}.{c}", callback_data=f"{r}.{c}") for c in range(per_row)]
            for r in range(rows)
        ]
        if extra:
            buttons.append([InlineKeyboardButton(f"x{c}", callback_data=f"x{c}") for c in range(extra)])
        return InlineKeyboardMarkup(buttons)

    with pytest.raises(BadRequest, match="^Reply markup is too long$"):
        await app.bot.send_message(chat.id, "nine", reply_markup=grid(1, 9))
    with pytest.raises(BadRequest, match="^Reply markup is too long$"):
        await app.bot.send_message(chat.id, "101", reply_markup=grid(12, 8, extra=5))
    full = await app.bot.send_message(chat.id, "100", reply_markup=grid(12, 8, extra=4))
    assert len(api.message(chat, full.message_id).buttons) == 100

    sent = await app.bot.send_message(chat.id, "ok")
    with pytest.raises(BadRequest, match="^Reply markup is too long$"):
        await app.bot.edit_message_reply_markup(chat.id, sent.message_id, reply_markup=grid(1, 9))
    assert api.message(chat, sent.message_id).reply_markup is None


async def test_message_text_must_be_1_to_4096_characters_after_parsing(
    api: FakeBotAPI, bot: RunningBot
) -> None:
    app, _ = bot
    chat = api.private_chat(api.user())

    with pytest.raises(BadRequest, match="^Message is too long$"):
        await app.bot.send_message(chat.id, "a" * 4097)
    with pytest.raises(BadRequest, match="^Message text is empty$"):
        await app.bot.send_message(chat.id, "")
    with pytest.raises(BadRequest, match="^Message text is empty$"):
        await app.bot.send_message(chat.id, " \n\t ")
    with pytest.raises(BadRequest, match="^Message text is empty$"):
        await app.bot.send_message(chat.id, "<b> </b>", parse_mode=ParseMode.HTML)
    longest = await app.bot.send_message(chat.id, "a" * 4096)
    # The markup does not count, only the text the player sees.
    tagged = await app.bot.send_message(
        chat.id, "<b>" + "b" * 4090 + "</b>&amp;&lt;", parse_mode=ParseMode.HTML
    )
    assert len(longest.text or "") == 4096
    assert api.message(chat, tagged.message_id).text == "b" * 4090 + "&<"
    assert len(api.bot_messages(chat)) == 2

    with pytest.raises(BadRequest, match="^Message is too long$"):
        await app.bot.edit_message_text("c" * 4097, chat.id, longest.message_id)
    assert api.message(chat, longest.message_id).text == "a" * 4096


async def test_edits_of_unknown_or_unchanged_messages_fail(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    alice = api.user()
    chat = api.private_chat(alice)
    sent = await app.bot.send_message(chat.id, "Tableau", reply_markup=KEYBOARD)

    with pytest.raises(BadRequest, match="^Message to edit not found$"):
        await app.bot.edit_message_text("x", chat.id, 999)
    with pytest.raises(BadRequest) as same_markup:
        await app.bot.edit_message_reply_markup(chat.id, sent.message_id, reply_markup=KEYBOARD)
    assert str(same_markup.value) == NOT_MODIFIED
    with pytest.raises(BadRequest) as same_text:
        await app.bot.edit_message_text("Tableau", chat.id, sent.message_id, reply_markup=KEYBOARD)
    assert str(same_text.value) == NOT_MODIFIED
    user_message = api.send_text(alice, chat, "hello").update["message"]["message_id"]
    with pytest.raises(BadRequest, match="^Message can't be edited$"):
        await app.bot.edit_message_text("hijacked", chat.id, user_message)

    # As on Telegram, editing the text without reply_markup removes the keyboard.
    await app.bot.edit_message_text("Tableau", chat.id, sent.message_id)
    assert api.message(chat, sent.message_id).keyboard == []
    assert await app.bot.delete_message(chat.id, sent.message_id)
    assert sent.message_id not in [m.message_id for m in api.messages(chat)]
    with pytest.raises(BadRequest, match="^Message to delete not found$"):
        await app.bot.delete_message(chat.id, sent.message_id)
    with pytest.raises(BadRequest, match="^Message to edit not found$"):
        await app.bot.edit_message_text("gone", chat.id, sent.message_id)


async def test_parse_modes_follow_telegrams_parser(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    chat = api.private_chat(api.user())

    sent = await app.bot.send_message(
        chat.id, "<pre>   7♠ 8♥\n  K♦</pre>\n<i>Score</i>: <code>12</code> /help", parse_mode=ParseMode.HTML
    )
    stored = api.message(chat, sent.message_id)
    # Telegram trims leading whitespace, even inside <pre>, when it starts the message.
    assert stored.text == "7♠ 8♥\n  K♦\nScore: 12 /help"
    assert stored.entity_texts("pre") == ["7♠ 8♥\n  K♦"]
    assert stored.entity_texts("italic") == ["Score"] and stored.entity_texts("code") == ["12"]
    assert stored.entity_texts("bot_command") == ["/help"]
    assert [e.type for e in sent.entities] == ["pre", "italic", "code", "bot_command"]

    with pytest.raises(BadRequest) as html_error:
        await app.bot.send_message(chat.id, "Score < 10", parse_mode=ParseMode.HTML)
    assert str(html_error.value) == 'Can\'t parse entities: unsupported start tag "" at byte offset 6'
    with pytest.raises(BadRequest) as unclosed:
        await app.bot.send_message(chat.id, "<b>bold", parse_mode=ParseMode.HTML)
    assert str(unclosed.value) == "Can't parse entities: can't find end tag corresponding to start tag \"b\""
    with pytest.raises(BadRequest) as v2_error:
        await app.bot.send_message(chat.id, "Version 1.0", parse_mode=ParseMode.MARKDOWN_V2)
    assert "character '.' is reserved and must be escaped with the preceding '\\'" in str(v2_error.value)

    v2 = await app.bot.send_message(chat.id, "*Won* in 1\\.5 s ||secret||", parse_mode=ParseMode.MARKDOWN_V2)
    assert v2.text == "Won in 1.5 s secret"
    assert [(e.type, e.offset, e.length) for e in v2.entities] == [("bold", 0, 3), ("spoiler", 13, 6)]
    legacy = await app.bot.send_message(chat.id, "*Won* _now_", parse_mode=ParseMode.MARKDOWN)
    assert legacy.text == "Won now" and [e.type for e in legacy.entities] == ["bold", "italic"]


async def test_rate_limit_can_be_injected_per_chat(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    busy = api.private_chat(api.user("Busy"))
    calm = api.private_chat(api.user("Calm"))
    api.fail_next(busy, retry_after=1)

    assert (await app.bot.send_message(calm.id, "calm chat is not limited")).text
    with pytest.raises(RetryAfter) as limited:
        await app.bot.send_message(busy.id, "first")
    assert str(limited.value).startswith("Flood control exceeded. Retry in")
    failed = api.calls("sendMessage", chat=busy)[0]
    assert failed.status == 429 and failed.response == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 1",
        "parameters": {"retry_after": 1},
    }
    assert api.bot_messages(busy) == []
    await app.bot.send_message(busy.id, "second")
    assert [m.text for m in api.bot_messages(busy)] == ["second"]


async def test_flood_control_limits_each_chat_as_telegram_does(api: FakeBotAPI, bot: RunningBot) -> None:
    """About one message a second in a chat after a short burst, sends and edits alike; a request made during the
    pause a 429 announced doubles it; answerCallbackQuery is never limited; and the switch turns it all off."""
    app, _ = bot
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    api.flood_control = fake_module.FloodLimits()
    first = await app.bot.send_message(chat.id, "one")
    await app.bot.edit_message_text("one, edited", chat_id=chat.id, message_id=first.message_id)
    await app.bot.send_message(chat.id, "two")  # the burst: three messages at once
    with pytest.raises(RetryAfter):
        await app.bot.edit_message_text("one, again", chat_id=chat.id, message_id=first.message_id)
    refused = api.flood_refusals(chat)
    assert [r.method for r in refused] == ["editMessageText"]
    assert refused[0].response == {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 1",
                                   "parameters": {"retry_after": 1}}
    assert api.message(chat, first.message_id).text == "one, edited"  # the refused edit changed nothing
    with pytest.raises(RetryAfter):
        await app.bot.send_message(chat.id, "ignoring the pause")
    assert api.flood_refusals(chat)[-1].response["parameters"] == {"retry_after": 2}  # a longer pause
    # the taps on the board are still answered: answerCallbackQuery is not limited
    presses = [api.press(alice, chat, first.message_id, "alert", check_button=False) for _ in range(5)]
    assert [(await press.answer()).text for press in presses] == ["Not your game"] * 5
    other = api.private_chat(api.user("Bob"))
    assert (await app.bot.send_message(other.id, "another chat has its own allowance")).text
    api.flood_control = None
    assert (await app.bot.send_message(chat.id, "flood control off")).text == "flood control off"


async def test_flood_control_allows_a_group_20_messages_a_minute(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    group = api.group("Club", members=[api.user("Alice")])
    api.flood_control = fake_module.FloodLimits(burst=100)  # no per-second limit: only the group's minute
    for number in range(20):
        await app.bot.send_message(group.id, f"message {number}")
    with pytest.raises(RetryAfter):
        await app.bot.send_message(group.id, "the 21st")
    seconds = api.flood_refusals(group)[0].response["parameters"]["retry_after"]
    assert 55 <= seconds <= 60  # until the first of the twenty is a minute old
    assert len(api.bot_messages(group)) == 20


async def test_blocked_users_and_unknown_chats(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    api.block_bot(alice)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await app.bot.send_message(chat.id, "hi")
    with pytest.raises(BadRequest, match="^Chat not found$"):
        await app.bot.send_message(424242, "hi")


# ---- photos ---------------------------------------------------------------------------------------------------


def _png(width: int = 720, height: int = 353, colour: str = "green") -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


async def test_photos_are_sent_and_edited_with_their_caption_and_keyboard(api: FakeBotAPI, bot: RunningBot) -> None:
    """sendPhoto and editMessageMedia as python-telegram-bot sends them (multipart, the edit's file named by
    attach://), their limits, and a photo message's caption in place of a text."""
    app, _ = bot
    alice = api.user("Alice")
    chat = api.private_chat(alice)
    first, second = _png(), _png(colour="blue")
    sent = await app.bot.send_photo(chat.id, first, caption="<b>TP1-E-AAAAAAB</b> · Easy", parse_mode=ParseMode.HTML,
                                    reply_markup=KEYBOARD)
    assert sent.photo and (sent.photo[-1].width, sent.photo[-1].height) == (720, 353)
    assert sent.caption == "TP1-E-AAAAAAB · Easy" and sent.text is None
    stored = api.last_message(chat)
    assert stored.is_photo and stored.photo_bytes == first and stored.entity_texts("bold") == ["TP1-E-AAAAAAB"]
    assert stored.keyboard == KEYBOARD_ROWS
    assert api.calls("sendPhoto")[-1].content_type == "multipart/form-data"

    media = InputMediaPhoto(second, caption="Score: 499", parse_mode=ParseMode.HTML)
    edited = await app.bot.edit_message_media(media, chat_id=chat.id, message_id=sent.message_id, reply_markup=KEYBOARD)
    assert isinstance(edited, Message) and edited.caption == "Score: 499"
    assert stored.photo_bytes == second and stored.photo_history == [first] and stored.edit_count == 1
    with pytest.raises(BadRequest, match="^Message is not modified"):
        await app.bot.edit_message_media(InputMediaPhoto(second, caption="Score: 499", parse_mode=ParseMode.HTML),
                                         chat_id=chat.id, message_id=sent.message_id, reply_markup=KEYBOARD)
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await app.bot.edit_message_text("Score: 498", chat_id=chat.id, message_id=sent.message_id)
    await app.bot.edit_message_caption(chat_id=chat.id, message_id=sent.message_id, caption="Score: 498")
    assert stored.text == "Score: 498" and stored.photo_bytes == second

    text = await app.bot.send_message(chat.id, "a text board")
    with pytest.raises(BadRequest, match="There is no media in the message to edit"):
        await app.bot.edit_message_media(InputMediaPhoto(first), chat_id=chat.id, message_id=text.message_id)
    with pytest.raises(BadRequest, match="Message caption is too long"):
        await app.bot.send_photo(chat.id, first, caption="x" * 1025)
    await app.bot.send_photo(chat.id, first, caption="x" * 1024)
    with pytest.raises(BadRequest, match="Photo_invalid_dimensions"):
        await app.bot.send_photo(chat.id, _png(9000, 1001))
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await app.bot.send_photo(chat.id, b"not a picture")
    monkey_limit = fake_module.MAX_PHOTO_BYTES
    try:
        fake_module.MAX_PHOTO_BYTES = len(first) - 1
        with pytest.raises(BadRequest, match="File is too big"):
            await app.bot.send_photo(chat.id, first)
    finally:
        fake_module.MAX_PHOTO_BYTES = monkey_limit
    assert "<" in str(api.calls("sendPhoto")[0]) and "bytes>" in str(api.calls("sendPhoto")[0])  # no bytes dumped


# ---- commands, chats, misc methods ------------------------------------------------------------------


async def test_commands_are_recorded_per_language_and_scope(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    de_user = api.user("Dora", language_code="de")
    fr_user = api.user("Fred", language_code="fr")
    group = api.group("Club", members=[de_user])

    await app.bot.set_my_commands([BotCommand("tripeaks", "Play TriPeaks"), BotCommand("help", "Help")])
    await app.bot.set_my_commands([BotCommand("tripeaks", "TriPeaks spielen")], language_code="de")
    await app.bot.set_my_commands([BotCommand("daily", "Daily deal")], scope=BotCommandScopeAllGroupChats())

    assert api.commands() == [("tripeaks", "Play TriPeaks"), ("help", "Help")]
    assert api.commands(language_code="de") == [("tripeaks", "TriPeaks spielen")]
    assert api.commands("all_group_chats") == [("daily", "Daily deal")]
    assert api.visible_commands(de_user, api.private_chat(de_user)) == [("tripeaks", "TriPeaks spielen")]
    assert api.visible_commands(fr_user, api.private_chat(fr_user)) == api.commands()
    assert api.visible_commands(de_user, group) == [("daily", "Daily deal")]

    german = await app.bot.get_my_commands(language_code="de")
    assert [(c.command, c.description) for c in german] == [("tripeaks", "TriPeaks spielen")]
    await app.bot.set_my_commands([BotCommand("club", "Club game")], scope=BotCommandScopeChat(group.id))
    assert api.visible_commands(de_user, group) == [("club", "Club game")]
    assert await app.bot.delete_my_commands(language_code="de")
    assert api.commands(language_code="de") == [] and await app.bot.get_my_commands(language_code="de") == ()
    with pytest.raises(BadRequest, match="^Bot_command_invalid$"):
        await app.bot.set_my_commands([BotCommand("Bad-Name", "x")])


async def test_chat_methods_return_objects_ptb_can_parse(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    owner, admin, member = api.user("Olga"), api.user("Adam"), api.user("Mia", username="mia")
    group = api.group("Club", owner=owner, admins=[admin], members=[member])
    private = api.private_chat(member)

    info = await app.bot.get_chat(group.id)
    assert (info.id, info.type, info.title) == (group.id, "group", "Club")
    assert (await app.bot.get_chat(private.id)).username == "mia"
    assert (await app.bot.get_chat_member(group.id, member.id)).status == "member"
    assert (await app.bot.get_chat_member(group.id, api.user("Stranger").id)).status == "left"
    assert (await app.bot.get_chat_member(group.id, api.bot_id)).status == "member"
    admins = await app.bot.get_chat_administrators(group.id)
    assert sorted((a.user.first_name, a.status) for a in admins) == [
        ("Adam", "administrator"),
        ("Olga", "creator"),
    ]
    with pytest.raises(BadRequest, match="^There are no administrators in the private chat$"):
        await app.bot.get_chat_administrators(private.id)
    webhook = await app.bot.get_webhook_info()
    assert webhook.url == "" and webhook.pending_update_count == 0
    assert await app.bot.send_chat_action(private.id, "typing")
    assert (await app.bot.get_me()).username == api.bot_username
    assert await app.bot.log_out() and await app.bot.close()
    assert [r.method for r in api.calls()][-2:] == ["logOut", "close"]


# ---- transport: getUpdates, webhooks, raw HTTP ------------------------------------------------------


async def test_get_updates_honours_offset_and_long_polling(api: FakeBotAPI) -> None:
    alice = api.user()
    chat = api.private_chat(alice)
    ids = [api.send_text(alice, chat, f"m{n}").update_id for n in range(3)]

    async with Bot(api.token, base_url=api.base_url) as bot:
        assert [u.update_id for u in await bot.get_updates()] == ids
        assert [u.update_id for u in await bot.get_updates(offset=ids[1])] == ids[1:]
        assert [u["update_id"] for u in api.pending_updates()] == ids[1:]
        assert [u.update_id for u in await bot.get_updates(offset=-1)] == ids[2:]
        assert await bot.get_updates(offset=ids[2] + 1, timeout=0) == ()
        assert api.pending_updates() == []

        loop = asyncio.get_running_loop()
        started = loop.time()
        assert await bot.get_updates(timeout=1) == ()
        assert 0.9 <= loop.time() - started < 20  # held for its timeout; the bound only catches a poll held on

        # a long poll is answered when an update comes, long before its timeout (the bound is generous: a loaded
        # machine is slow, and still far from the minute a poll that was not woken would take)
        poll = asyncio.create_task(bot.get_updates(timeout=60))
        await api.wait_until(lambda: bool(api.in_flight("getUpdates")))
        started = loop.time()
        late = api.send_text(alice, chat, "wake up")
        updates = await poll
        assert [u.update_id for u in updates] == [late.update_id] and loop.time() - started < 30
        assert updates[0].message is not None and updates[0].message.text == "wake up"


async def test_a_poll_repeated_with_the_same_offset_is_held_as_telegram_holds_it() -> None:
    """With ``hold_repeated_polls`` (Telegram's rule): getUpdates with no timeout, repeated within 3 s with the same
    offset, is held like a long poll (an update wakes it), while a first one, or one with another offset, is
    answered at once. PTB's last getUpdates on stopping is such a repeat (tests/test_polling_stop.py)."""
    async with FakeBotAPI(hold_repeated_polls=True) as api, Bot(api.token, base_url=api.base_url) as bot:
        alice = api.user()
        chat = api.private_chat(alice)
        assert await bot.get_updates(offset=5, timeout=0) == ()  # the first: at once
        repeated = asyncio.create_task(bot.get_updates(offset=5, timeout=0))
        await api.wait_until(lambda: bool(api.in_flight("getUpdates")))  # held
        woken = api.send_text(alice, chat, "hello")
        assert [u.update_id for u in await repeated] == [woken.update_id]
        assert await bot.get_updates(offset=woken.update_id + 1, timeout=0) == ()  # another offset: at once


async def test_a_second_poller_ends_the_first_with_conflict(api: FakeBotAPI) -> None:
    async with (
        Bot(api.token, base_url=api.base_url) as first,
        Bot(api.token, base_url=api.base_url) as second,
    ):
        poll = asyncio.create_task(first.get_updates(timeout=20))
        await api.wait_until(lambda: bool(api.in_flight("getUpdates")))
        assert await second.get_updates(timeout=0) == ()
        with pytest.raises(Conflict, match="terminated by other getUpdates request"):
            await poll


async def test_webhook_mode_receives_updates_with_the_secret_token(api: FakeBotAPI) -> None:
    seen = Seen()
    app = build_bot(api, seen)
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg-hook"
    alice = api.user("Alice", language_code="it")
    chat = api.private_chat(alice)
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_webhook(
        listen="127.0.0.1", port=port, url_path="tg-hook", webhook_url=url, secret_token="s3cret-token"
    )
    try:
        assert (api.webhook_url, api.webhook_secret_token) == (url, "s3cret-token")
        with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
            await app.bot.get_updates()

        reply = await api.send_text(alice, chat, "/deal W-1").reply()  # pushed to the webhook by the fake
        assert reply.text == "Deal W-1" and seen.languages == ["it"]
        assert api.webhook_deliveries[-1].ok and api.pending_updates() == []

        forged = api.send_text(alice, chat, "/deal forged", queue=False)
        refused = await api.post_update_to(url, forged, secret_token="wrong")
        assert refused.status == 403
        accepted = await api.post_update_to(url, forged, secret_token="s3cret-token")
        assert accepted.status == 200
        assert (await api.wait_for_message(chat)).text == "Deal forged"
        assert [m.text for m in api.bot_messages(chat)] == ["Deal W-1", "Deal forged"]
    finally:
        await app.updater.stop()
        await app.stop()
        await app.shutdown()


async def test_raw_http_accepts_form_multipart_and_json_and_answers_telegram_json(api: FakeBotAPI) -> None:
    chat = api.private_chat(api.user())
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    url = f"{api.base_url}{api.token}/sendMessage"
    async with aiohttp.ClientSession() as http:
        form = await http.post(
            url, data={"chat_id": str(chat.id), "text": "form", "reply_markup": json.dumps(markup)}
        )
        body = await form.json()
        assert form.status == 200 and body["ok"] and body["result"]["reply_markup"] == markup
        multipart = aiohttp.FormData()
        multipart.add_field("chat_id", str(chat.id))
        multipart.add_field("text", "multipart")
        multipart.add_field("reply_markup", json.dumps(markup))
        multipart.add_field("document", b"unused", filename="x.txt")
        assert (await http.post(url, data=multipart)).status == 200
        as_json = await http.post(url, json={"chat_id": chat.id, "text": "json", "reply_markup": markup})
        assert as_json.status == 200 and (await as_json.json())["result"]["text"] == "json"

        too_long = {"inline_keyboard": [[{"text": "b", "callback_data": "x" * 65}]]}
        refused = await http.post(url, json={"chat_id": chat.id, "text": "x", "reply_markup": too_long})
        assert refused.status == 400
        assert await refused.json() == {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: BUTTON_DATA_INVALID",
        }
        wrong_token = await http.post(f"{api.base_url}1:wrong/getMe")
        assert (wrong_token.status, await wrong_token.json()) == (
            401,
            {"ok": False, "error_code": 401, "description": "Unauthorized"},
        )
        unknown = await http.post(f"{api.base_url}{api.token}/sendPhotoOfCat")
        assert (unknown.status, (await unknown.json())["description"]) == (404, "Not Found")

    requests = api.calls("sendMessage")
    assert [r.content_type for r in requests[:3]] == [
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/json",
    ]
    assert all(r.params["chat_id"] == chat.id and r.params["reply_markup"] == markup for r in requests[:3])
    assert [m.text for m in api.bot_messages(chat)] == ["form", "multipart", "json"]


async def test_ptb_reports_a_wrong_token_as_invalid_token(api: FakeBotAPI) -> None:
    bot = Bot("1:wrong", base_url=api.base_url)
    try:
        with pytest.raises(InvalidToken):
            await bot.initialize()
    finally:
        await bot.shutdown()
    assert api.requests[-1].method == "getMe" and api.requests[-1].status == 401


# ---- the fake's own helpers --------------------------------------------------------------------------


async def test_waiting_fails_loudly_and_presses_need_real_buttons(api: FakeBotAPI, bot: RunningBot) -> None:
    app, _ = bot
    alice = api.user()
    chat = api.private_chat(alice)
    sent = await app.bot.send_message(chat.id, "No buttons here")
    api.send_text(alice, chat, "not a command")

    with pytest.raises(TimeoutError, match="waiting for a sendMessage call"):
        await api.wait_for_request("sendMessage", timeout=0.3)
    with pytest.raises(ValueError, match="has no button"):
        api.press(alice, chat, sent.message_id, "draw")
    stale = api.press(alice, chat, sent.message_id, "draw", check_button=False)
    assert stale.update["callback_query"]["data"] == "draw"
    await api.wait_until(lambda: stale.consumed)


async def test_the_usage_example_in_the_module_docstring_runs() -> None:
    doc = fake_module.__doc__ or ""
    example = textwrap.dedent(doc[doc.index("    from telegram import") : doc.index("Other helpers:")])
    namespace: dict[str, Any] = {}
    exec(compile(example, "telegram_bot_api.__doc__", "exec"), namespace)
    await namespace["test_new_game"]()
