"""A local fake of the Telegram Bot API, for end-to-end tests of a python-telegram-bot (PTB) bot.

``FakeBotAPI`` is a small aiohttp server on 127.0.0.1 (ephemeral port). The real, unmodified PTB
``Application`` talks to it over real HTTP, because PTB builds every request URL as
``f"{base_url}{token}/{method}"`` (see ``telegram._bot._parse_base_url``); ``api.base_url`` is
therefore ``http://127.0.0.1:PORT/bot``.

The fake keeps chats and messages in memory, hands out queued updates through long polling (or pushes
them to a webhook), records every request, and answers with Telegram's JSON, including Telegram's
real errors when the bot breaks a limit:

* message text must be 1-4096 characters after entity parsing (``parse_mode`` HTML, MarkdownV2 and
  Markdown are parsed with the same rules and error texts as Telegram's TDLib parser; leading and
  trailing whitespace is trimmed as Telegram does);
* ``callback_data`` must be 1-64 bytes (``BUTTON_DATA_INVALID``); at most 8 buttons a row and 100 a
  keyboard; text-only inline buttons are refused;
* ``answerCallbackQuery`` text at most 200 characters; each query can be answered once;
* edits that change nothing give "message is not modified"; unknown messages "message to edit not found";
* photos (``sendPhoto``, ``editMessageMedia`` with an uploaded PNG or JPEG, multipart as python-telegram-bot sends
  them: ``attach://<field>``): at most 10 MB, width + height at most 10,000, a caption of at most 1,024 characters;
  a photo message has a ``caption``, no ``text`` (``editMessageText`` on it: "there is no text in the message to
  edit"); ``editMessageCaption`` edits its caption; ``message.photo_bytes`` is the image the chat shows.

Usage (inside an ``async def`` test; pytest-asyncio runs it)::

    from telegram import InlineKeyboardButton, InlineKeyboardMarkup
    from telegram.ext import CallbackQueryHandler, CommandHandler
    from tests.fakes.telegram_bot_api import FakeBotAPI, run_polling

    async def test_new_game() -> None:
        async with FakeBotAPI() as api:
            app = api.application_builder().build()   # token, base_url, base_file_url set

            async def new(update, context):
                kb = InlineKeyboardMarkup([[InlineKeyboardButton("Draw", callback_data="draw")]])
                await update.effective_message.reply_text("<b>Your deal</b>", parse_mode="HTML", reply_markup=kb)

            async def draw(update, context):
                await update.callback_query.answer("You drew a card")
                await update.callback_query.edit_message_text("Stock: 23")

            app.add_handler(CommandHandler("tripeaks", new))
            app.add_handler(CallbackQueryHandler(draw))
            alice = api.user("Alice", language_code="de")
            chat = api.private_chat(alice)               # or api.group("Club", members=[alice])
            async with run_polling(app):                 # initialize/start/start_polling ... shutdown
                sent = api.send_text(alice, chat, "/tripeaks TP1-E-AAAAAAB")
                reply = await sent.reply()               # the bot's next message in that chat
                assert reply.text == "Your deal" and reply.entity_texts("bold") == ["Your deal"]
                assert reply.keyboard == [[("Draw", "draw")]]
                press = api.press(alice, chat, reply.message_id, "draw")   # or button_text="Draw"
                assert (await press.answer()).text == "You drew a card"   # the toast
                assert (await press.edited()).text == "Stock: 23"
                assert api.unanswered_callbacks() == []

Other helpers: ``api.messages(chat)``, ``api.last_message(chat)`` (the bot's latest),
``api.requests``/``api.calls("sendMessage", chat=chat)`` (method, decoded params, answer),
``api.commands(scope, language_code)`` and ``api.visible_commands(user, chat)`` for setMyCommands,
``api.fail_next(chat, retry_after=1)``/``api.inject_error(...)`` for failures (``polling=True`` fails the long
polls too), ``api.delay_next(method, seconds=...)`` for requests that outlast the client's timeout,
``FakeBotAPI(hold_repeated_polls=True)`` to hold a getUpdates repeated with the same offset within 3 s, as
Telegram does (what makes PTB's last getUpdates on stopping wait), ``api.revoke_token()`` for a token Telegram
rejects (401 to everything), and for webhook mode
``api.webhook_url``/``api.webhook_secret_token`` (queued updates are then pushed to the webhook) and
``await api.post_update_to(url, update, secret_token=...)``. ``api.transcript()`` prints the calls.

Waiting: every user action (``send_text``, ``press``, ``queue_update``, ``post_update_to``) moves a
mark; ``wait_for_request``/``wait_for_message`` look only at requests made after the latest mark (or
after ``since=``), including ones that already happened, so there is no race and no sleep.
``wait_until(predicate)`` re-checks the predicate whenever a request arrives or is answered (and every
20 ms, for predicates over the test's own state). Timeouts (``WAIT_TIMEOUT`` by default, generous) raise
``TimeoutError`` with a transcript.

Inline mode (``FakeBotAPI(supports_inline_queries=True)``, as BotFather's ``/setinline`` turns it on):
``api.inline_query(user, "text")`` queues an ``inline_query`` update and returns a handle whose ``answer()`` is the
bot's ``answerInlineQuery``, checked as Telegram does (at most 50 results, each id 1-64 bytes and unique, an
article with a title and a valid message text and keyboard; each query answered once);
``api.choose_inline_result(user, chat, answer, result_id)`` posts the chosen result to a chat as the user's message
"via" the bot.

Limits of the fake: only the methods listed in ``FakeBotAPI._METHODS`` exist (others answer 404 Not
Found, as Telegram does for unknown methods); no media, payments, forums or channels; inline mode has only article
results with a text message;
photos are the only media (no file_id reuse, albums, documents);
auto-detected entities are limited to bot_command, mention, hashtag and http(s) URLs; Telegram also
splits bold/italic entities around other entities, which the fake does not; lengths are counted in
UTF-16 code units (Telegram's entity unit), which is the stricter reading of "characters"; webhooks may
use http:// URLs (Telegram requires https).

Flood control (``FakeBotAPI(flood_control=FloodLimits())``, or ``api.flood_control = ...``; None, the default,
turns it off; /work/shared/TESTING.md has the figures): every message sent or edited counts against its chat, about
one a second with short bursts (a bucket of ``burst`` refilled ``per_second``), in a group also at most
``group_per_minute`` in any 60 s, and at most ``total_per_second`` in all; ``answerCallbackQuery`` and the other
methods are not limited. Past a limit the request changes nothing and is answered 429 "Too Many Requests: retry
after N" with ``parameters.retry_after`` (whole seconds until it would pass); a request made to a chat before the
pause it was told of is over doubles that pause, as Telegram's repeated 429s earn longer pauses.
``api.flood_refusals(chat)`` lists the 429s met.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import itertools
import json
import logging
import re
import time
from array import array
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web

if TYPE_CHECKING:
    from telegram.ext import Application, ApplicationBuilder

__all__ = [
    "BotAPIError",
    "InlineAnswer",
    "InlineQueryHandle",
    "CallbackAnswer",
    "CallbackHandle",
    "CallbackQueryRecord",
    "FakeBotAPI",
    "FakeChat",
    "FakeUser",
    "FloodLimits",
    "RecordedRequest",
    "StoredMessage",
    "UpdateHandle",
    "WebhookDelivery",
    "parse_html",
    "parse_markdown",
    "parse_markdown_v2",
    "run_polling",
]

log = logging.getLogger(__name__)
_HTTP_STATUSES = frozenset(status.value for status in HTTPStatus)

DEFAULT_TOKEN = "7000000001:AAFakeTokenForTripeaksTestsOnly0000"

MAX_MESSAGE_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_PHOTO_SIDES = 10_000  # width + height
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200
MAX_BUTTONS_PER_ROW = 8
MAX_BUTTONS = 100
MAX_COMMANDS = 100
MAX_INLINE_RESULTS = 50
MAX_INLINE_RESULT_ID_BYTES = 64

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same "
    "as a current content and reply markup of the message"
)
#: How long Telegram holds a getUpdates repeated with the same offset (``FakeBotAPI(hold_repeated_polls=True)``).
REPEATED_POLL_HOLD = 3.0
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"

#: How long the ``wait_*`` helpers wait by default (seconds) before they fail. What they wait for must happen; how
#: quickly is not their question, and a loaded machine can be slow: a burst of twenty updates at once, handled in
#: about a second on a quiet machine, took 20-35 s with the test process niced on two busy cores.
WAIT_TIMEOUT = 60.0


#: What Telegram counts against a chat's flood limits: every message sent or edited.
FLOOD_LIMITED = frozenset({
    "sendMessage", "sendPhoto", "editMessageText", "editMessageCaption", "editMessageMedia",
    "editMessageReplyMarkup",
})


@dataclass(frozen=True)
class FloodLimits:
    """Telegram's flood control as the fake applies it (the defaults are Telegram's documented figures)."""

    #: messages a chat may take at once, and how fast that allowance comes back (one a second)
    burst: int = 3
    per_second: float = 1.0
    #: messages a group may take in any 60 s
    group_per_minute: int = 20
    #: messages the bot may send in all in any second
    total_per_second: int = 30


@dataclass
class _ChatFlood:
    """One chat's allowance: the bucket, the messages of the last minute, and a pause a 429 announced."""

    tokens: float
    refilled: float
    recent: list[float] = field(default_factory=list)
    paused_until: float = 0.0
    pause: float = 0.0


class _Flood:
    """The state of flood control, on the fake's monotonic clock."""

    def __init__(self, limits: FloodLimits) -> None:
        self.limits = limits
        self.chats: dict[int, _ChatFlood] = {}
        self.sent: list[float] = []

    def check(self, chat: FakeChat, now: float) -> None:
        """Count one message to ``chat`` at ``now``, or raise the 429 Telegram answers when it is over a limit."""
        limits = self.limits
        state = self.chats.setdefault(chat.id, _ChatFlood(float(limits.burst), now))
        if now < state.paused_until:  # told to wait and did not: a longer pause
            state.pause = min(state.pause * 2, 3600.0)
            state.paused_until = now + state.pause
            raise self._too_many(state.pause)
        state.tokens = min(float(limits.burst), state.tokens + (now - state.refilled) * limits.per_second)
        state.refilled = now
        state.recent = [t for t in state.recent if t > now - 60.0]
        self.sent = [t for t in self.sent if t > now - 1.0]
        waits = [0.0]
        if state.tokens < 1.0:
            waits.append((1.0 - state.tokens) / limits.per_second)
        if chat.is_group and len(state.recent) >= limits.group_per_minute:
            waits.append(state.recent[-limits.group_per_minute] + 60.0 - now)
        if len(self.sent) >= limits.total_per_second:
            waits.append(self.sent[-limits.total_per_second] + 1.0 - now)
        wait = max(waits)
        if wait > 0:
            state.pause = float(max(1, int(wait + 0.999)))
            state.paused_until = now + state.pause
            raise self._too_many(state.pause)
        state.tokens -= 1.0
        state.recent.append(now)
        self.sent.append(now)

    @staticmethod
    def _too_many(seconds: float) -> BotAPIError:
        whole = int(seconds)
        return BotAPIError(f"Too Many Requests: retry after {whole}", 429, retry_after=whole)


# --------------------------------------------------------------------------------------------------
# Errors


class BotAPIError(Exception):
    """An error answer of the Bot API: ``{"ok": false, "error_code": ..., "description": ...}``."""

    def __init__(self, description: str, error_code: int = 400, *, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.description = description
        self.error_code = error_code
        self.retry_after = retry_after

    def to_json(self) -> dict[str, Any]:
        """The JSON body Telegram sends for this error."""
        body: dict[str, Any] = {"ok": False, "error_code": self.error_code, "description": self.description}
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def _bad(description: str) -> BotAPIError:
    return BotAPIError(f"Bad Request: {description}")


def _parse_error(description: str) -> BotAPIError:
    return _bad(f"can't parse entities: {description}")


# --------------------------------------------------------------------------------------------------
# UTF-16 helpers (Telegram counts entity offsets and lengths in UTF-16 code units)


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def utf16_slice(text: str, offset: int, length: int) -> str:
    """The part of ``text`` an entity with this UTF-16 ``offset`` and ``length`` covers."""
    raw = text.encode("utf-16-le")
    return raw[2 * offset : 2 * (offset + length)].decode("utf-16-le", errors="replace")


def _units(text: str) -> list[int]:
    return list(memoryview(text.encode("utf-16-le")).cast("H"))


def _from_units(units: Iterable[int]) -> str:
    return array("H", units).tobytes().decode("utf-16-le", errors="surrogatepass")


def _u16_prefix(text: str) -> list[int]:
    """``prefix[i]`` is the UTF-16 offset of the character ``text[i]``."""
    prefix = [0]
    for ch in text:
        prefix.append(prefix[-1] + (2 if ord(ch) > 0xFFFF else 1))
    return prefix


def _w(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8", errors="surrogatepass"))


def _is_space(ch: str) -> bool:
    # TDLib's is_space(); "\0" stands for the end of the text.
    return ch in " \t\r\n\0\v\f"


# --------------------------------------------------------------------------------------------------
# Entities: parse_mode parsers (ports of TDLib's parse_html / parse_markdown_v2 / parse_markdown)

_SPLITTABLE = frozenset({"bold", "italic", "underline", "strikethrough", "spoiler"})
_BLOCKQUOTES = frozenset({"blockquote", "expandable_blockquote"})
_HIDDEN_DATA = frozenset({"text_link", "text_mention", "custom_emoji"})
_PRIORITY = {
    "blockquote": 0,
    "expandable_blockquote": 0,
    "pre": 11,
    "code": 20,
    "text_link": 49,
    "text_mention": 49,
    "bold": 90,
    "italic": 91,
    "underline": 92,
    "strikethrough": 93,
    "spoiler": 94,
    "custom_emoji": 99,
}
_HTML_TAGS = frozenset(
    {"a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji", "span"}
    | {"pre", "code", "blockquote"}
)
_HTML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def _entity_sort_key(entity: Mapping[str, Any]) -> tuple[int, int, int]:
    kind = entity["type"]
    priority = 10 if kind == "pre" and entity.get("language") else _PRIORITY.get(kind, 50)
    return (entity["offset"], -entity["length"], priority)


def _checked_link(url: str) -> str | None:
    """Roughly TDLib's LinkManager::get_checked_link: a usable URL, or None to drop the entity."""
    url = url.strip()
    if not url or any(ch.isspace() for ch in url):
        return None
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", url):
        return url
    if re.match(r"^[\w-]+(\.[\w-]+)*\.[A-Za-z]{2,}([/?#].*)?$", url):
        return "http://" + url if re.search(r"[/?#]", url) else f"http://{url}/"
    return None


def _link_entity(offset: int, length: int, url: str) -> dict[str, Any] | None:
    match = re.fullmatch(r"tg://user\?id=(\d+)", url.strip())
    if match:
        user = {"id": int(match.group(1)), "is_bot": False, "first_name": ""}
        return {"type": "text_mention", "offset": offset, "length": length, "user": user}
    checked = _checked_link(url)
    if checked is None:
        return None
    return {"type": "text_link", "offset": offset, "length": length, "url": checked}


def _decode_html_entity(text: str, pos: int) -> tuple[str | None, int]:
    """Decode ``&...;`` at ``pos``: (character, position after it), or (None, pos)."""
    n = len(text)
    end = pos + 1
    if end < n and text[end] == "#":
        end += 1
        code = 0
        if end < n and text[end] == "x":
            end += 1
            while end < n and text[end] in "0123456789abcdefABCDEF":
                code = code * 16 + int(text[end], 16)
                end += 1
        else:
            while end < n and text[end] in "0123456789":
                code = code * 10 + int(text[end])
                end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return None, pos
        if 0xD800 <= code <= 0xDFFF:
            raise _parse_error(
                "Text contains invalid Unicode characters after decoding HTML entities, check for "
                "unmatched surrogate code units"
            )
        char = chr(code)
    else:
        while end < n and text[end].isascii() and text[end].isalpha():
            end += 1
        named = _HTML_NAMED.get(text[pos + 1 : end])
        if named is None:
            return None, pos
        char = named
    if end < n and text[end] == ";":
        end += 1
    return char, end


def parse_html(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram's HTML style into (plain text, entities), raising Telegram's errors."""
    n = len(text)

    def at(j: int) -> str:
        return text[j] if j < n else "\0"

    def bo(j: int) -> int:
        return _byte_offset(text, j)

    out: list[str] = []
    u16 = 0
    entities: list[dict[str, Any]] = []
    stack: list[tuple[str, str, int, int]] = []  # tag, argument, utf16 offset, index in out
    i = 0
    while i < n:
        c = text[i]
        if c == "&":
            char, after = _decode_html_entity(text, i)
            if char is not None:
                out.append(char)
                u16 += _w(char)
                i = after
                continue
        if c != "<":
            out.append(c)
            u16 += _w(c)
            i += 1
            continue
        begin = i
        i += 1
        if at(i) != "/":
            while not _is_space(at(i)) and at(i) != ">":
                i += 1
            if i >= n:
                raise _parse_error(f"Unclosed start tag at byte offset {bo(begin)}")
            tag = text[begin + 1 : i].lower()
            if tag not in _HTML_TAGS:
                raise _parse_error(f'Unsupported start tag "{tag}" at byte offset {bo(begin)}')
            argument = ""
            while at(i) != ">":
                while i < n and _is_space(text[i]):
                    i += 1
                if at(i) == ">":
                    break
                attribute_begin = i
                while not _is_space(at(i)) and at(i) not in "=>":
                    i += 1
                attribute = text[attribute_begin:i]
                if not attribute:
                    raise _parse_error(f'Empty attribute name in the tag "{tag}" at byte offset {bo(begin)}')
                while i < n and _is_space(text[i]):
                    i += 1
                if tag == "blockquote" and attribute.lower() == "expandable" and at(i) != "=":
                    argument = "expandable"
                    continue
                if at(i) != "=":
                    raise _parse_error(
                        f'Expected equal sign in declaration of an attribute of the tag "{tag}" '
                        f"at byte offset {bo(begin)}"
                    )
                i += 1
                while i < n and _is_space(text[i]):
                    i += 1
                if i >= n:
                    raise _parse_error(f'Unclosed start tag "{tag}" at byte offset {bo(begin)}')
                if text[i] not in "'\"":
                    token_begin = i
                    while i < n and ((text[i].isascii() and text[i].isalnum()) or text[i] in ".-"):
                        i += 1
                    value = text[token_begin:i].lower()
                    if not _is_space(at(i)) and at(i) != ">":
                        raise _parse_error(f"Unexpected end of name token at byte offset {bo(token_begin)}")
                else:
                    quote = text[i]
                    i += 1
                    chars: list[str] = []
                    while i < n and text[i] != quote:
                        if text[i] == "&":
                            char, after = _decode_html_entity(text, i)
                            if char is not None:
                                chars.append(char)
                                i = after
                                continue
                        chars.append(text[i])
                        i += 1
                    if i < n:
                        i += 1
                    value = "".join(chars)
                if i >= n:
                    raise _parse_error(f"Unclosed start tag at byte offset {bo(begin)}")
                name = attribute.lower()
                if tag == "a" and name == "href":
                    argument = value
                elif tag == "code" and name == "class" and value.startswith("language-"):
                    argument = value[len("language-") :]
                elif tag == "span" and name == "class" and value.startswith("tg-"):
                    argument = value[len("tg-") :]
                elif tag == "tg-emoji" and name == "emoji-id":
                    argument = value
            if tag == "span" and argument != "spoiler":
                raise _parse_error(f'Tag "span" must have class "tg-spoiler" at byte offset {bo(begin)}')
            stack.append((tag, argument, u16, len(out)))
            i += 1
            continue

        # an end tag
        if not stack:
            raise _parse_error(f"Unexpected end tag at byte offset {bo(begin)}")
        while not _is_space(at(i)) and at(i) != ">":
            i += 1
        end_tag = text[begin + 2 : i].lower()
        while i < n and _is_space(text[i]):
            i += 1
        if at(i) != ">":
            raise _parse_error(f"Unclosed end tag at byte offset {bo(begin)}")
        tag, argument, start, out_start = stack[-1]
        if end_tag and end_tag != tag:
            raise _parse_error(
                f'Unmatched end tag at byte offset {bo(begin)}, expected "</{tag}>", found "</{end_tag}>"'
            )
        length = u16 - start
        if length > 0:
            simple = {
                "i": "italic",
                "em": "italic",
                "b": "bold",
                "strong": "bold",
                "s": "strikethrough",
                "strike": "strikethrough",
                "del": "strikethrough",
                "u": "underline",
                "ins": "underline",
                "tg-spoiler": "spoiler",
                "span": "spoiler",
            }
            last = entities[-1] if entities else None
            same_span = last is not None and last["offset"] == start and last["length"] == length
            if tag in simple:
                entities.append({"type": simple[tag], "offset": start, "length": length})
            elif tag == "tg-emoji":
                if not argument.isdigit() or int(argument) == 0:
                    raise _parse_error("Invalid custom emoji identifier specified")
                entities.append(
                    {"type": "custom_emoji", "offset": start, "length": length, "custom_emoji_id": argument}
                )
            elif tag == "a":
                link = _link_entity(start, length, argument or "".join(out[out_start:]))
                if link is not None:
                    entities.append(link)
            elif tag == "pre":
                if last is not None and same_span and last["type"] == "code" and last.get("_language"):
                    last["type"] = "pre"
                    last["language"] = last.pop("_language")
                else:
                    entities.append({"type": "pre", "offset": start, "length": length})
            elif tag == "code":
                if last is not None and same_span and last["type"] == "pre" and argument:
                    last["language"] = argument
                else:
                    code: dict[str, Any] = {"type": "code", "offset": start, "length": length}
                    if argument:
                        code["_language"] = argument
                    entities.append(code)
            else:  # blockquote
                kind = "expandable_blockquote" if argument == "expandable" else "blockquote"
                entities.append({"type": kind, "offset": start, "length": length})
        stack.pop()
        i += 1
    if stack:
        raise _parse_error(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    for entity in entities:
        entity.pop("_language", None)
    entities.sort(key=_entity_sort_key)
    return "".join(out), entities


_MDV2_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "code": "Code",
    "pre": "Pre",
    "pre_code": "PreCode",
    "text_link": "TextUrl",
    "custom_emoji": "CustomEmoji",
    "blockquote": "BlockQuote",
}


def _reserved(ch: str) -> BotAPIError:
    return _parse_error(f"Character '{ch}' is reserved and must be escaped with the preceding '\\'")


def parse_markdown_v2(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram's MarkdownV2 into (plain text, entities), raising Telegram's errors."""
    n = len(text)

    def at(j: int) -> str:
        return text[j] if j < n else "\0"

    def escapable(ch: str) -> bool:
        return 0 < ord(ch) <= 126

    out: list[str] = []
    u16 = 0
    entities: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    have_blockquote = False
    i = 0
    while i < n:
        c = text[i]
        if c == "\\" and escapable(at(i + 1)):
            out.append(text[i + 1])
            u16 += 1
            i += 2
            continue
        reserved = "_*[]()~`>#+-=|{}.!\n"
        if stack and stack[-1]["type"] in ("code", "pre", "pre_code"):
            reserved = "`"
        if c not in reserved:
            out.append(c)
            u16 += _w(c)
            i += 1
            continue

        is_end = False
        if stack:
            top = stack[-1]["type"]
            if have_blockquote and c == "\n" and (i + 1 == n or text[i + 1] != ">"):
                is_end = True
            elif top == "bold":
                is_end = c == "*"
            elif top == "italic":
                is_end = c == "_" and at(i + 1) != "_"
            elif top == "code":
                is_end = c == "`"
            elif top in ("pre", "pre_code"):
                is_end = c == "`" and at(i + 1) == "`" and at(i + 2) == "`"
            elif top in ("text_link", "custom_emoji"):
                is_end = c == "]"
            elif top == "underline":
                is_end = c == "_" and at(i + 1) == "_"
            elif top == "strikethrough":
                is_end = c == "~"
            elif top == "spoiler":
                is_end = c == "|" and at(i + 1) == "|"

        if not is_end:
            byte_begin = _byte_offset(text, i)
            kind: str | None
            argument = ""
            if c == "_":
                if at(i + 1) == "_":
                    kind = "underline"
                    i += 1
                else:
                    kind = "italic"
            elif c == "*":
                kind = "bold"
            elif c == "~":
                kind = "strikethrough"
            elif c == "|":
                if at(i + 1) != "|":
                    raise _reserved(c)
                kind = "spoiler"
                i += 1
            elif c == "[":
                kind = "text_link"
            elif c == "`":
                if at(i + 1) == "`" and at(i + 2) == "`":
                    i += 3
                    kind = "pre"
                    language_end = i
                    while not _is_space(at(language_end)) and at(language_end) != "`":
                        language_end += 1
                    if i != language_end and language_end < n and text[language_end] != "`":
                        kind = "pre_code"
                        argument = text[i:language_end]
                        i = language_end
                    if at(i) in "\n\r":
                        if at(i + 1) in "\n\r" and at(i) != at(i + 1):
                            i += 2
                        else:
                            i += 1
                    i -= 1
                else:
                    kind = "code"
            elif c == "!":
                if at(i + 1) != "[":
                    raise _reserved(c)
                kind = "custom_emoji"
                i += 1
            elif c == "\n":
                out.append("\n")
                u16 += 1
                kind = None
                if i + 1 < n and text[i + 1] == ">":
                    i += 1
                    if not have_blockquote:
                        kind = "blockquote"
                        have_blockquote = True
            elif c == ">":
                if i != 0:
                    raise _reserved(c)
                kind = "blockquote"
                have_blockquote = True
            else:
                raise _reserved(c)
            if kind is not None:
                stack.append(
                    {"type": kind, "argument": argument, "u16": u16, "byte": byte_begin, "out": len(out)}
                )
            i += 1
            continue

        # the end of an entity
        top_entity = stack[-1]
        kind = top_entity["type"]
        if c == "\n" and kind != "blockquote":
            raise _parse_error(
                f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset {top_entity['byte']}"
            )
        start = top_entity["u16"]
        skip = u16 == start
        made: dict[str, Any] | None = None
        if kind in ("underline", "spoiler"):
            i += 1
        elif kind in ("pre", "pre_code"):
            i += 2
        elif kind in ("text_link", "custom_emoji"):
            if at(i + 1) != "(":
                if kind == "custom_emoji":
                    raise _parse_error("Custom emoji entity must contain a tg://emoji URL")
                url = "".join(out[top_entity["out"] :])
            else:
                i += 2
                url_begin = i
                chars: list[str] = []
                while i < n and text[i] != ")":
                    if text[i] == "\\" and escapable(at(i + 1)):
                        chars.append(text[i + 1])
                        i += 2
                        continue
                    chars.append(text[i])
                    i += 1
                if at(i) != ")":
                    what = "a custom emoji URL" if kind == "custom_emoji" else "a URL"
                    raise _parse_error(
                        f"Can't find end of {what} at byte offset {_byte_offset(text, url_begin)}"
                    )
                url = "".join(chars)
            if kind == "custom_emoji":
                match = re.fullmatch(r"tg://emoji\?id=(\d+)", url)
                if match is None:
                    raise _parse_error("Invalid custom emoji URL specified")
                made = {"type": "custom_emoji", "custom_emoji_id": match.group(1)}
            elif not skip:
                link = _link_entity(start, u16 - start, url)
                skip = link is None
                made = link
        elif kind == "blockquote":
            have_blockquote = False
            out.append(text[i])
            u16 += 1
        if not skip:
            entity = dict(made or {})
            entity.update(type=entity.get("type", "pre" if kind == "pre_code" else kind), offset=start)
            entity["length"] = u16 - start
            if kind == "pre_code":
                entity["language"] = top_entity["argument"]
            entities.append(entity)
        stack.pop()
        i += 1

    if have_blockquote and stack and stack[-1]["type"] == "blockquote":
        start = stack[-1]["u16"]
        if u16 > start:
            entities.append({"type": "blockquote", "offset": start, "length": u16 - start})
        stack.pop()
    if stack:
        top_entity = stack[-1]
        raise _parse_error(
            f"Can't find end of {_MDV2_NAMES[top_entity['type']]} entity at byte offset {top_entity['byte']}"
        )
    entities.sort(key=_entity_sort_key)
    return "".join(out), entities


def parse_markdown(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram's legacy Markdown into (plain text, entities), raising Telegram's errors."""
    n = len(text)

    def at(j: int) -> str:
        return text[j] if j < n else "\0"

    out: list[str] = []
    u16 = 0
    entities: list[dict[str, Any]] = []
    i = 0
    while i < n:
        c = text[i]
        if c == "\\" and at(i + 1) in ("_", "*", "`", "["):
            out.append(text[i + 1])
            u16 += 1
            i += 2
            continue
        if c not in ("_", "*", "`", "["):
            out.append(c)
            u16 += _w(c)
            i += 1
            continue
        begin = i
        end_char = "]" if c == "[" else c
        is_pre = False
        language = ""
        i += 1
        if c == "`" and at(i) == "`" and at(i + 1) == "`":
            i += 2
            is_pre = True
            language_end = i
            while not _is_space(at(language_end)) and at(language_end) != "`":
                language_end += 1
            if i != language_end and language_end < n and text[language_end] != "`":
                language = text[i:language_end]
                i = language_end
            if at(i) in ("\n", "\r"):
                if at(i + 1) in ("\n", "\r") and at(i) != at(i + 1):
                    i += 2
                else:
                    i += 1
        start = u16
        while i < n and (text[i] != end_char or (is_pre and not (at(i + 1) == "`" and at(i + 2) == "`"))):
            out.append(text[i])
            u16 += _w(text[i])
            i += 1
        if i == n:
            raise _parse_error(
                f"Can't find end of the entity starting at byte offset {_byte_offset(text, begin)}"
            )
        if u16 != start:
            length = u16 - start
            if c == "_":
                entities.append({"type": "italic", "offset": start, "length": length})
            elif c == "*":
                entities.append({"type": "bold", "offset": start, "length": length})
            elif c == "[":
                if at(i + 1) != "(":
                    url = text[begin + 1 : i]
                else:
                    i += 2
                    url_chars: list[str] = []
                    while i < n and text[i] != ")":
                        url_chars.append(text[i])
                        i += 1
                    url = "".join(url_chars)
                link = _link_entity(start, length, url)
                if link is not None:
                    entities.append(link)
            elif is_pre:
                pre: dict[str, Any] = {"type": "pre", "offset": start, "length": length}
                if language:
                    pre["language"] = language
                entities.append(pre)
            else:
                entities.append({"type": "code", "offset": start, "length": length})
        if is_pre:
            i += 2
        i += 1
    entities.sort(key=_entity_sort_key)
    return "".join(out), entities


# --------------------------------------------------------------------------------------------------
# Entities: Telegram's clean-up (TDLib fix_formatted_text) and auto-detected entities

_BOT_COMMAND_RE = re.compile(r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>@])")
_MENTION_RE = re.compile(r"(?<!\w)@[A-Za-z0-9_]{2,32}(?!\w)")
_HASHTAG_RE = re.compile(r"(?<!\w)#\w+")
_URL_RE = re.compile(r"(?<![\w/])https?://[^\s<>\"]+", re.IGNORECASE)


def _detect_entities(text: str) -> list[dict[str, Any]]:
    prefix = _u16_prefix(text)
    found: list[dict[str, Any]] = []

    def add(kind: str, start: int, end: int) -> None:
        found.append({"type": kind, "offset": prefix[start], "length": prefix[end] - prefix[start]})

    for match in _BOT_COMMAND_RE.finditer(text):
        add("bot_command", match.start(), match.end())
    for match in _MENTION_RE.finditer(text):
        add("mention", match.start(), match.end())
    for match in _HASHTAG_RE.finditer(text):
        body = match.group()[1:257]
        if any(ch.isalpha() for ch in body) and not text.startswith("#", match.end()):
            add("hashtag", match.start(), match.start() + 1 + len(body))
    for match in _URL_RE.finditer(text):
        url = match.group().rstrip(".,;:!?'\")]")
        add("url", match.start(), match.start() + len(url))
    found.sort(key=_entity_sort_key)
    return found


def _overlaps(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return bool(a["offset"] < b["offset"] + b["length"] and b["offset"] < a["offset"] + a["length"])


def _clean_entities(entities: Any, text_length: int) -> list[dict[str, Any]]:
    """Validate an explicit ``entities`` parameter."""
    if not isinstance(entities, list):
        raise _bad("can't parse entities JSON object")
    result = []
    for entity in entities:
        if not isinstance(entity, dict) or not isinstance(entity.get("type"), str):
            raise _bad('can\'t parse MessageEntity: Field "type" must be of type String')
        offset, length = entity.get("offset"), entity.get("length")
        if not isinstance(offset, int) or not isinstance(length, int) or offset < 0 or length < 0:
            raise _bad('can\'t parse MessageEntity: Field "offset" must be of type Integer')
        if offset + length > text_length:
            raise _bad(
                f"entity beginning at UTF-16 offset {offset} ends after the end of the text at UTF-16 "
                f"offset {offset + length}"
            )
        if length > 0:
            result.append(dict(entity))
    result.sort(key=_entity_sort_key)
    return result


def _fix_formatted_text(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Telegram's clean-up of a formatted text: control characters, whitespace trimming, new entities."""
    # 1. control characters become spaces, "\r" and a few invisible characters disappear
    units: list[int] = []
    old_to_new: dict[int, int] = {}
    old = 0
    for ch in text:
        code = ord(ch)
        old_to_new[old] = len(units)
        if code == 13 or 0x2028 <= code <= 0x202E or code in (0x030A, 0x0333, 0x033F):
            pass
        elif code < 32 and code != 10:
            units.append(32)
        else:
            units.extend(_units(ch))
        if code > 0xFFFF:
            old_to_new[old + 1] = len(units)
        old += _w(ch)
    old_to_new[old] = len(units)
    fixed: list[dict[str, Any]] = []
    for entity in entities:
        start = old_to_new[entity["offset"]]
        end = old_to_new[entity["offset"] + entity["length"]]
        if end > start:
            fixed.append({**entity, "offset": start, "length": end - start})

    # 2. entities lose their leading whitespace; whitespace-only entities disappear
    blank = (32, 10)
    kept: list[dict[str, Any]] = []
    for entity in fixed:
        if entity["type"] not in _HIDDEN_DATA:
            while entity["length"] > 0 and units[entity["offset"]] in blank:
                entity["offset"] += 1
                entity["length"] -= 1
            if entity["length"] == 0:
                continue
        kept.append(entity)

    # 3. the text must have something visible; trailing whitespace is cut
    last = max((k for k, unit in enumerate(units) if unit not in blank), default=-1)
    if last < 0:
        raise _bad("message text is empty")
    units = units[: last + 1]
    trimmed = []
    for entity in kept:
        if entity["offset"] > last:
            continue
        entity["length"] = min(entity["length"], last + 1 - entity["offset"])
        trimmed.append(entity)

    # 4. leading whitespace is cut up to the first entity
    first_entity = min((entity["offset"] for entity in trimmed), default=len(units))
    cut = 0
    while cut < first_entity and units[cut] in blank:
        cut += 1
    units = units[cut:]
    for entity in trimmed:
        entity["offset"] -= cut
    result_text = _from_units(units)

    # 5. Telegram adds the entities it detects itself, where they do not cross continuous entities
    continuous = [e for e in trimmed if e["type"] not in _SPLITTABLE and e["type"] not in _BLOCKQUOTES]
    for detected in _detect_entities(result_text):
        if not any(_overlaps(detected, other) for other in continuous):
            trimmed.append(detected)
            continuous.append(detected)
    trimmed.sort(key=_entity_sort_key)
    return result_text, trimmed


def format_text(
    text: Any, parse_mode: Any = None, entities: Any = None, *, limit: int = MAX_MESSAGE_LENGTH
) -> tuple[str, list[dict[str, Any]]]:
    """What Telegram stores for a message text: (plain text, entities), or a ``BotAPIError``."""
    if text is None or text == "":
        raise _bad("message text is empty")
    text = str(text)
    if entities:
        plain, parsed = text, _clean_entities(entities, utf16_len(text))
    elif parse_mode:
        mode = str(parse_mode).lower()
        if mode == "html":
            plain, parsed = parse_html(text)
        elif mode == "markdownv2":
            plain, parsed = parse_markdown_v2(text)
        elif mode == "markdown":
            plain, parsed = parse_markdown(text)
        else:
            raise _bad("unsupported parse_mode")
    else:
        plain, parsed = text, []
    plain, parsed = _fix_formatted_text(plain, parsed)
    if utf16_len(plain) > limit:
        raise _bad("message is too long")
    return plain, parsed


# --------------------------------------------------------------------------------------------------
# Reply markup

_BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)


#: The colours an inline button's ``style`` may name (Bot API 9.4, February 2026).
BUTTON_STYLES = ("primary", "success", "danger")


def check_reply_markup(markup: Any) -> dict[str, Any] | None:
    """Validate ``reply_markup`` as Telegram does; returns the stored markup (None for no keyboard)."""
    if markup is None or markup == "":
        return None
    if isinstance(markup, str):
        try:
            markup = json.loads(markup)
        except ValueError:
            raise _bad("can't parse reply keyboard markup JSON object") from None
    if not isinstance(markup, dict):
        raise _bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        if not any(key in markup for key in ("keyboard", "remove_keyboard", "force_reply")):
            raise _bad("can't parse reply keyboard markup JSON object")
        copied: dict[str, Any] = json.loads(json.dumps(markup))
        return copied
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise _bad('can\'t parse inline keyboard: Field "inline_keyboard" must be an Array of Arrays')
    total = 0
    for row in rows:
        if len(row) > MAX_BUTTONS_PER_ROW:
            raise _bad("reply markup is too long")
        total += len(row)
        for button in row:
            if not isinstance(button, dict):
                raise _bad("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
            if not isinstance(button.get("text"), str):
                raise _bad('can\'t parse inline keyboard button: Field "text" must be of type String')
            if not any(action in button for action in _BUTTON_ACTIONS):
                raise _bad("text buttons are unallowed in the inline keyboard")
            if "callback_data" in button:
                data = button["callback_data"]
                if not isinstance(data, str):
                    raise _bad(
                        'can\'t parse inline keyboard button: Field "callback_data" must be of type String'
                    )
                if not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
                    raise _bad("BUTTON_DATA_INVALID")
            if "url" in button and _checked_link(str(button["url"])) is None:
                raise _bad("BUTTON_URL_INVALID")
            if "style" in button and button["style"] not in BUTTON_STYLES:
                raise _bad("BUTTON_STYLE_INVALID")
    if total > MAX_BUTTONS:
        raise _bad("reply markup is too long")
    kept_rows = [[dict(button) for button in row] for row in rows if row]
    if not kept_rows:
        return None
    return {"inline_keyboard": kept_rows}


# --------------------------------------------------------------------------------------------------
# People, chats, messages, records


@dataclass(frozen=True)
class FakeUser:
    """A simulated Telegram user."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "en"
    last_name: str | None = None
    is_bot: bool = False
    is_premium: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The Bot API ``User`` object."""
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code", "is_premium"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@dataclass(frozen=True)
class FakeChat:
    """A simulated chat: ``private``, ``group`` or ``supergroup``."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None

    @property
    def is_group(self) -> bool:
        """True for groups and supergroups."""
        return self.type in ("group", "supergroup")

    def to_dict(self) -> dict[str, Any]:
        """The Bot API ``Chat`` object."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name", "last_name"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


ChatRef = FakeChat | int | str


@dataclass
class StoredMessage:
    """A message as the chat shows it; edits update it in place (old versions are in ``history``)."""

    chat: FakeChat
    message_id: int
    sender: dict[str, Any]
    date: int
    text: str
    entities: list[dict[str, Any]]
    reply_markup: dict[str, Any] | None = None
    raw_text: str = ""
    parse_mode: str | None = None
    edit_date: int | None = None
    deleted: bool = False
    reply_to_message_id: int | None = None
    #: the bot an inline result was sent through (``choose_inline_result``)
    via_bot: str | None = None
    history: list[tuple[str, list[dict[str, Any]], dict[str, Any] | None]] = field(default_factory=list)
    #: a photo message: its image (``text`` and ``entities`` are then its caption)
    photo_bytes: bytes | None = None
    photo_size: tuple[int, int] = (0, 0)
    #: the images it showed before each edit, for a photo message (in step with ``history``)
    photo_history: list[bytes | None] = field(default_factory=list)

    @property
    def is_photo(self) -> bool:
        """True for a photo message (its ``text`` is the caption)."""
        return self.photo_bytes is not None

    @property
    def chat_id(self) -> int:
        """The id of the chat the message is in."""
        return self.chat.id

    @property
    def from_bot(self) -> bool:
        """True if the bot sent this message."""
        return bool(self.sender.get("is_bot"))

    @property
    def edit_count(self) -> int:
        """How many times the message was edited."""
        return len(self.history)

    @property
    def keyboard(self) -> list[list[tuple[str, str | None]]]:
        """The inline keyboard as rows of (button text, callback_data or None); [] without one."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [[(button["text"], button.get("callback_data")) for button in row] for row in rows]

    @property
    def styles(self) -> list[list[str | None]]:
        """The ``style`` of each inline button, row by row (None where the bot sent none)."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [[button.get("style") for button in row] for row in rows]

    @property
    def buttons(self) -> list[tuple[str, str | None]]:
        """All inline buttons, row by row."""
        return [button for row in self.keyboard for button in row]

    @property
    def links(self) -> list[tuple[str, str]]:
        """The URL buttons of the inline keyboard: (button text, url), row by row."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [(button["text"], button["url"]) for row in rows for button in row if "url" in button]

    def callback_data(self, button_text: str) -> str:
        """The callback_data of the button labelled ``button_text``."""
        for text, data in self.buttons:
            if text == button_text and data is not None:
                return data
        raise KeyError(f"no callback button {button_text!r} on message {self.message_id}: {self.buttons}")

    def entity_texts(self, entity_type: str) -> list[str]:
        """The text covered by each entity of this type (e.g. ``"bold"``, ``"pre"``)."""
        return [
            utf16_slice(self.text, entity["offset"], entity["length"])
            for entity in self.entities
            if entity["type"] == entity_type
        ]

    def to_api(self) -> dict[str, Any]:
        """The Bot API ``Message`` object."""
        data: dict[str, Any] = {
            "message_id": self.message_id,
            "from": dict(self.sender),
            "chat": self.chat.to_dict(),
            "date": self.date,
        }
        if self.photo_bytes is not None:
            digest = hashlib.sha256(self.photo_bytes).hexdigest()[:32]
            width, height = self.photo_size
            data["photo"] = [{"file_id": f"photo-{digest}", "file_unique_id": digest[:16], "width": width,
                              "height": height, "file_size": len(self.photo_bytes)}]
            if self.text:
                data["caption"] = self.text
            if self.entities:
                data["caption_entities"] = [dict(entity) for entity in self.entities]
        else:
            data["text"] = self.text
            if self.entities:
                data["entities"] = [dict(entity) for entity in self.entities]
        if self.reply_markup is not None and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = json.loads(json.dumps(self.reply_markup))
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        return data


@dataclass
class RecordedRequest:
    """One HTTP call the bot made: method, decoded parameters and the answer it got."""

    index: int
    method: str
    params: dict[str, Any]
    http_method: str
    content_type: str
    time: float
    status: int | None = None
    response: dict[str, Any] | None = None
    done: bool = False
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        """True if the answer was ``ok: true``."""
        return bool(self.response and self.response.get("ok"))

    @property
    def result(self) -> Any:
        """The ``result`` of a successful answer."""
        return (self.response or {}).get("result")

    @property
    def error(self) -> str | None:
        """The error description of a failed answer."""
        if self.response is None or self.response.get("ok"):
            return None
        return str(self.response.get("description"))

    @property
    def chat_id(self) -> int | str | None:
        """The ``chat_id`` parameter, if any."""
        return self.params.get("chat_id")

    def __str__(self) -> str:
        shown = {
            key: value for key, value in self.params.items() if key not in ("timeout", "allowed_updates")
        }
        outcome = "…" if not self.done else ("ok" if self.ok else f"{self.status} {self.error}")
        text = json.dumps(shown, ensure_ascii=False, default=lambda data: f"<{len(data)} bytes>")
        return f"#{self.index} {self.method} {text} -> {outcome}"


@dataclass
class CallbackAnswer:
    """What the bot answered to a callback query (the toast or alert the user saw)."""

    query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None


def inline_message_id(message: StoredMessage) -> str:
    """The id Telegram gives a message sent through inline mode (opaque to the bot)."""
    return f"AgAAA{abs(message.chat.id)}x{message.message_id}"


@dataclass
class CallbackQueryRecord:
    """A simulated button press and its answer, if any."""

    id: str
    user: FakeUser
    chat: FakeChat
    message_id: int
    data: str
    created: float
    answer: CallbackAnswer | None = None


@dataclass
class WebhookDelivery:
    """One POST of an update to a webhook URL."""

    url: str
    update_id: int | None
    status: int | None
    body: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True for a 2xx answer."""
        return self.status is not None and 200 <= self.status < 300


@dataclass
class _Webhook:
    url: str
    secret_token: str | None
    max_connections: int
    allowed_updates: list[str] | None
    last_error_date: int | None = None
    last_error_message: str | None = None


@dataclass
class _InjectedError:
    method: str | None
    chat_id: int | None
    error: BotAPIError
    remaining: int
    polling: bool = False


@dataclass
class _InjectedDelay:
    method: str | None
    chat_id: int | None
    seconds: float
    remaining: int
    answer_late: bool = False


@dataclass
class HeldRequest:
    """A request the fake holds before handling it (:meth:`FakeBotAPI.hold_next`) until the test releases it: as
    one that took longer on its way than a later request of another process."""

    method: str
    chat_id: int | None
    #: set once the request arrived and is being held; ``request`` is then its record
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    request: RecordedRequest | None = None

    def release(self) -> None:
        """Let the request be handled (and answered)."""
        self.released.set()


class UpdateHandle:
    """An update the simulated users queued; await the bot's reaction through it."""

    def __init__(self, api: FakeBotAPI, update: dict[str, Any], mark: int, chat: FakeChat) -> None:
        self.api = api
        self.update = update
        self.mark = mark
        self.chat = chat

    @property
    def update_id(self) -> int:
        """The update's ``update_id``."""
        return int(self.update["update_id"])

    @property
    def consumed(self) -> bool:
        """True once the bot confirmed the update (getUpdates offset) or its webhook took it."""
        return not any(u["update_id"] == self.update_id for u in self.api._queue)

    async def wait_consumed(self, timeout: float = WAIT_TIMEOUT) -> None:
        """Wait until the bot has fetched and confirmed this update."""
        await self.api.wait_until(
            lambda: self.consumed, timeout, what=f"update {self.update_id} to be consumed"
        )

    async def wait_for_request(
        self, method: str | None = None, *, timeout: float = WAIT_TIMEOUT, **kwargs: Any
    ) -> RecordedRequest:
        """The first matching request made after this update was queued."""
        return await self.api.wait_for_request(method, since=self.mark, timeout=timeout, **kwargs)

    async def reply(self, timeout: float = WAIT_TIMEOUT) -> StoredMessage:
        """The first message the bot sent to this update's chat after the update was queued."""
        return await self.api.wait_for_message(self.chat, since=self.mark, timeout=timeout)


@dataclass
class InlineAnswer:
    """The bot's ``answerInlineQuery``, as Telegram accepted it."""

    results: list[dict[str, Any]]
    cache_time: int | None
    is_personal: bool

    def result(self, result_id: str) -> dict[str, Any]:
        return next(r for r in self.results if r["id"] == result_id)


@dataclass
class InlineQueryRecord:
    """An inline query a user made (typing ``@bot ...``)."""

    id: str
    user: FakeUser
    query: str
    answer: InlineAnswer | None = None


class InlineQueryHandle:
    """A queued inline query; ``answer()`` waits for the bot's answer."""

    def __init__(self, api: FakeBotAPI, update: dict[str, Any], mark: int, record: InlineQueryRecord) -> None:
        self.api = api
        self.update = update
        self.mark = mark
        self.record = record

    async def answer(self, timeout: float = WAIT_TIMEOUT) -> InlineAnswer:
        await self.api.wait_until(lambda: self.record.answer is not None, timeout,
                                  what=f"an answer to inline query {self.record.id}")
        assert self.record.answer is not None
        return self.record.answer


class CallbackHandle(UpdateHandle):
    """A queued button press."""

    def __init__(
        self, api: FakeBotAPI, update: dict[str, Any], mark: int, record: CallbackQueryRecord
    ) -> None:
        super().__init__(api, update, mark, record.chat)
        self.record = record
        self.edits_at_press = api.message(record.chat, record.message_id).edit_count

    @property
    def query_id(self) -> str:
        """The callback query id."""
        return self.record.id

    @property
    def answered(self) -> bool:
        """True once the bot answered the query."""
        return self.record.answer is not None

    async def answer(self, timeout: float = WAIT_TIMEOUT) -> CallbackAnswer:
        """Wait for the bot's answerCallbackQuery for this press."""
        await self.api.wait_until(
            lambda: self.answered, timeout, what=f"an answer to callback query {self.query_id}"
        )
        assert self.record.answer is not None
        return self.record.answer

    async def edited(self, timeout: float = WAIT_TIMEOUT) -> StoredMessage:
        """Wait until the pressed message has been edited after the press; returns it."""
        message = self.api.message(self.chat, self.record.message_id)
        await self.api.wait_until(
            lambda: message.edit_count > self.edits_at_press,
            timeout,
            what=f"an edit of message {message.message_id}",
        )
        return message


# --------------------------------------------------------------------------------------------------
# Parameter decoding

_JSON_PARAMS = frozenset(
    {
        "reply_markup",
        "entities",
        "caption_entities",
        "commands",
        "scope",
        "allowed_updates",
        "link_preview_options",
        "reply_parameters",
        "media",
        "menu_button",
        "message_ids",
        "results",
    }
)
_INT_PARAMS = frozenset(
    {
        "chat_id",
        "message_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "cache_time",
        "max_connections",
        "reply_to_message_id",
        "message_thread_id",
        "from_chat_id",
    }
)
_BOOL_PARAMS = frozenset(
    {
        "show_alert",
        "drop_pending_updates",
        "disable_notification",
        "protect_content",
        "allow_sending_without_reply",
        "disable_web_page_preview",
        "allow_paid_broadcast",
        "for_channels",
        "is_personal",
    }
)


def _decode_params(raw: Mapping[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            if key in _JSON_PARAMS:
                try:
                    value = json.loads(value)
                except ValueError:
                    if key == "reply_markup":
                        raise _bad("can't parse reply keyboard markup JSON object") from None
                    raise _bad(f"can't parse {key} JSON object") from None
            elif key in _INT_PARAMS and re.fullmatch(r"-?\d+(\.0+)?", value.strip()):
                value = int(float(value)) if "." in value else int(value)
            elif key in _BOOL_PARAMS:
                value = value.strip().lower() in ("true", "1")
        params[key] = value
    return params


# --------------------------------------------------------------------------------------------------
# The server


class FakeBotAPI:
    """An in-memory Telegram Bot API served over HTTP on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "tripeaks_test_bot",
        bot_first_name: str = "TriPeaks Test Bot",
        host: str = "127.0.0.1",
        callback_query_ttl: float | None = None,
        webhook_retry_delay: float = 0.2,
        supports_inline_queries: bool = False,
        flood_control: FloodLimits | None = None,
        hold_repeated_polls: bool = False,
    ) -> None:
        self.token = token
        #: Telegram's rule for a getUpdates repeated within 3 s with the same offset and a timeout under 3 s: it is
        #: held 3 s (a long poll), so a client that polls in a loop does not spin (telegram-bot-api's
        #: ``process_get_updates_query``). Off by default, so that a test's own short polls are answered at once.
        self.hold_repeated_polls = hold_repeated_polls
        self._previous_poll: tuple[int, float] | None = None  # (offset, the loop time it came)
        self.host = host
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_user: dict[str, Any] = {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": bot_first_name,
            "username": bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": supports_inline_queries,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }
        self.callback_query_ttl = callback_query_ttl
        self.webhook_retry_delay = webhook_retry_delay
        self._flood: _Flood | None = None
        self.flood_control = flood_control

        self.requests: list[RecordedRequest] = []
        self.callback_queries: dict[str, CallbackQueryRecord] = {}
        self.inline_queries: dict[str, InlineQueryRecord] = {}
        self.webhook_deliveries: list[WebhookDelivery] = []
        self.server_errors: list[BaseException] = []

        self._users: dict[int, FakeUser] = {}
        self._chats: dict[int, FakeChat] = {}
        self._members: dict[int, dict[int, str]] = {}
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self._next_message_id: dict[int, int] = {}
        self._blocked_by: set[int] = set()
        self._commands: dict[tuple[tuple[Any, ...], str], list[dict[str, str]]] = {}
        self._bot_texts: dict[tuple[str, str], str] = {}
        self._menu_buttons: dict[int | None, dict[str, Any]] = {}
        self._queue: list[dict[str, Any]] = []
        self._allowed_updates: list[str] | None = None
        self._webhook: _Webhook | None = None
        self._injected: list[_InjectedError] = []
        self._delays: list[_InjectedDelay] = []
        self._holds: list[HeldRequest] = []
        #: ``revoke_token()``: every request is answered 401 Unauthorized, as Telegram does for a revoked token
        self.token_revoked = False
        self._waiters: set[asyncio.Future[None]] = set()
        self._poll_generation = 0
        self._last_mark = 0
        self._closing = False

        self._update_ids = itertools.count(583_000_001)
        self._user_ids = itertools.count(100_000_001)
        self._group_ids = itertools.count(1)
        self._query_ids = itertools.count(1)

        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._delivery_task: asyncio.Task[None] | None = None
        self._port: int | None = None

    # ---- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start serving on an ephemeral port of ``host``."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(
            app, handle_signals=False, shutdown_timeout=1.0, handler_cancellation=True
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        self._closing = False

    async def stop(self) -> None:
        """Stop serving; pending long polls return at once."""
        self._closing = True
        self._notify()
        if self._delivery_task is not None:
            self._delivery_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._delivery_task
            self._delivery_task = None
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeBotAPI:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        if self._port is None:
            raise RuntimeError("FakeBotAPI is not started")
        return self._port

    @property
    def url(self) -> str:
        """The server root, e.g. ``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder().base_url()``: PTB appends the token, then ``/method``."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """For ``ApplicationBuilder().base_file_url()`` (files are not served: 404)."""
        return f"{self.url}/file/bot"

    @property
    def bot_username(self) -> str:
        """The bot's username (``getMe``)."""
        return str(self.bot_user["username"])

    def application_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """A PTB ``ApplicationBuilder`` already pointed at this server (token, base URLs)."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder().token(self.token).base_url(self.base_url).base_file_url(self.base_file_url)
        )

    # ---- users and chats --------------------------------------------------------------------------

    def user(
        self,
        first_name: str = "Alice",
        *,
        username: str | None = None,
        language_code: str | None = "en",
        last_name: str | None = None,
        is_premium: bool | None = None,
        id: int | None = None,
    ) -> FakeUser:
        """Create a simulated user (``language_code`` None means the client sent none)."""
        user = FakeUser(
            id=id if id is not None else next(self._user_ids),
            first_name=first_name,
            username=username,
            language_code=language_code,
            last_name=last_name,
            is_premium=is_premium,
        )
        self._users[user.id] = user
        return user

    def private_chat(self, user: FakeUser) -> FakeChat:
        """The private chat between ``user`` and the bot (as if the user had pressed Start)."""
        self._users.setdefault(user.id, user)
        chat = FakeChat(
            id=user.id,
            type="private",
            username=user.username,
            first_name=user.first_name,
            last_name=user.last_name,
        )
        return self._register_chat(chat, {user.id: "member"})

    def group(
        self,
        title: str = "Test group",
        *,
        supergroup: bool = False,
        members: Iterable[FakeUser] = (),
        admins: Iterable[FakeUser] = (),
        owner: FakeUser | None = None,
        username: str | None = None,
    ) -> FakeChat:
        """A group (or supergroup) with the bot as a member."""
        n = next(self._group_ids)
        chat_id = -(1_002_000_000_000 + n) if supergroup else -(4_100_000_000 + n)
        chat = FakeChat(
            id=chat_id, type="supergroup" if supergroup else "group", title=title, username=username
        )
        statuses: dict[int, str] = {self.bot_id: "member"}
        for person, status in itertools.chain(
            ((m, "member") for m in members), ((a, "administrator") for a in admins), ((owner, "creator"),)
        ):
            if person is not None:
                self._users.setdefault(person.id, person)
                statuses[person.id] = status
        return self._register_chat(chat, statuses)

    def set_member_status(self, chat: ChatRef, user: FakeUser | None, status: str) -> None:
        """Set ``user``'s (None: the bot's) status: creator, administrator, member, left, kicked."""
        resolved = self._chat(chat)
        user_id = self.bot_id if user is None else user.id
        if user is not None:
            self._users.setdefault(user.id, user)
        self._members[resolved.id][user_id] = status

    def block_bot(self, user: FakeUser, blocked: bool = True) -> None:
        """The user blocks (or unblocks) the bot: sends to them fail with 403."""
        if blocked:
            self._blocked_by.add(user.id)
        else:
            self._blocked_by.discard(user.id)

    def chat(self, chat_id: int | str) -> FakeChat:
        """The chat with this id (or ``@username``)."""
        return self._chat(chat_id)

    def _register_chat(self, chat: FakeChat, statuses: dict[int, str]) -> FakeChat:
        self._chats[chat.id] = chat
        self._members.setdefault(chat.id, {}).update(statuses)
        self._messages.setdefault(chat.id, {})
        self._next_message_id.setdefault(chat.id, 1)
        return chat

    def _chat(self, chat: ChatRef) -> FakeChat:
        if isinstance(chat, FakeChat):
            return self._chats.get(chat.id) or self._register_chat(chat, {})
        found = self._find_chat(chat)
        if found is None:
            raise KeyError(f"unknown chat {chat!r}")
        return found

    def _find_chat(self, chat_id: Any) -> FakeChat | None:
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            name = chat_id[1:].lower()
            return next((c for c in self._chats.values() if (c.username or "").lower() == name), None)
        try:
            return self._chats.get(int(chat_id))
        except (TypeError, ValueError):
            return None

    # ---- messages ---------------------------------------------------------------------------------

    def messages(self, chat: ChatRef, *, include_deleted: bool = False) -> list[StoredMessage]:
        """Every message in the chat (users' and the bot's), oldest first."""
        stored = self._messages.get(self._chat(chat).id, {})
        return [m for m in stored.values() if include_deleted or not m.deleted]

    def bot_messages(self, chat: ChatRef) -> list[StoredMessage]:
        """The bot's messages in the chat, oldest first."""
        return [m for m in self.messages(chat) if m.from_bot]

    def last_message(self, chat: ChatRef) -> StoredMessage:
        """The bot's latest (not deleted) message in the chat."""
        sent = self.bot_messages(chat)
        if not sent:
            raise LookupError(f"the bot has sent nothing to chat {self._chat(chat).id}")
        return sent[-1]

    def message(self, chat: ChatRef, message_id: int) -> StoredMessage:
        """A message by id (also deleted ones)."""
        return self._messages[self._chat(chat).id][message_id]

    def _store(
        self,
        chat: FakeChat,
        sender: dict[str, Any],
        text: str,
        entities: list[dict[str, Any]],
        *,
        reply_markup: dict[str, Any] | None = None,
        raw_text: str | None = None,
        parse_mode: str | None = None,
        reply_to: int | None = None,
        photo: tuple[bytes, tuple[int, int]] | None = None,
    ) -> StoredMessage:
        message_id = self._next_message_id[chat.id]
        self._next_message_id[chat.id] = message_id + 1
        message = StoredMessage(
            chat=chat,
            message_id=message_id,
            sender=sender,
            date=int(time.time()),
            text=text,
            entities=entities,
            reply_markup=reply_markup,
            raw_text=text if raw_text is None else raw_text,
            parse_mode=parse_mode,
            reply_to_message_id=reply_to,
        )
        if photo is not None:
            message.photo_bytes, message.photo_size = photo
        self._messages[chat.id][message_id] = message
        return message

    def _message_api(self, message: StoredMessage) -> dict[str, Any]:
        data = message.to_api()
        if message.reply_to_message_id is not None:
            replied = self._messages[message.chat.id].get(message.reply_to_message_id)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = replied.to_api()
        return data

    # ---- simulated users' actions --------------------------------------------------------------------

    def send_text(
        self,
        user: FakeUser,
        chat: ChatRef,
        text: str,
        *,
        entities: list[dict[str, Any]] | None = None,
        reply_to: int | None = None,
        queue: bool = True,
        on_behalf_of: ChatRef | None = None,
    ) -> UpdateHandle:
        """The user sends ``text`` to the chat; bot commands get their ``bot_command`` entity.

        ``queue=False`` builds the update without queueing it (for ``post_update_to``). ``on_behalf_of``: the
        message is sent as that chat (``sender_chat``), as an anonymous group administrator's or a channel's post
        is (Telegram then gives ``user`` as GroupAnonymousBot or Channel_Bot).
        """
        resolved = self._chat(chat)
        self._users.setdefault(user.id, user)
        if resolved.is_group:
            self._members[resolved.id].setdefault(user.id, "member")
        if entities is None:
            plain, found = text, _detect_entities(text)
        else:
            plain, found = text, [dict(e) for e in entities]
        message = self._store(resolved, user.to_dict(), plain, found, reply_to=reply_to)
        sent = self._message_api(message)
        if on_behalf_of is not None:
            sent["sender_chat"] = self._chat(on_behalf_of).to_dict()
        update = {"update_id": next(self._update_ids), "message": sent}
        return UpdateHandle(self, update, self._queue_update(update, queue), resolved)

    def press(
        self,
        user: FakeUser,
        chat: ChatRef,
        message_id: int,
        callback_data: str | None = None,
        *,
        button_text: str | None = None,
        check_button: bool = True,
        queue: bool = True,
    ) -> CallbackHandle:
        """The user presses an inline button (by ``callback_data`` or ``button_text``) under a message.

        With ``check_button`` (default) the button must be on the message as it is now, as for a
        real user; ``check_button=False`` simulates a press on a stale keyboard.
        """
        resolved = self._chat(chat)
        message = self._messages[resolved.id].get(message_id)
        if message is None:
            raise KeyError(f"no message {message_id} in chat {resolved.id}")
        if button_text is not None:
            callback_data = message.callback_data(button_text)
        if callback_data is None:
            raise ValueError("press() needs callback_data or button_text")
        if check_button:
            if message.deleted:
                raise ValueError(f"message {message_id} was deleted; nobody can press its buttons")
            if callback_data not in [data for _, data in message.buttons]:
                raise ValueError(
                    f"message {message_id} has no button with callback_data {callback_data!r}: {message.buttons}"
                )
        self._users.setdefault(user.id, user)
        record = CallbackQueryRecord(
            id=str(4_620_000_000_000_000_000 + next(self._query_ids)),
            user=user,
            chat=resolved,
            message_id=message_id,
            data=callback_data,
            created=time.monotonic(),
        )
        self.callback_queries[record.id] = record
        if message.deleted:
            attached: dict[str, Any] = {"chat": resolved.to_dict(), "message_id": message_id, "date": 0}
        else:
            attached = self._message_api(message)
        query = {
            "id": record.id,
            "from": user.to_dict(),
            "message": attached,
            "chat_instance": str(abs(resolved.id) * 7919 % 10**18 + 10**17),
            "data": callback_data,
        }
        update = {"update_id": next(self._update_ids), "callback_query": query}
        return CallbackHandle(self, update, self._queue_update(update, queue), record)

    def press_inline(self, user: FakeUser, message: StoredMessage, callback_data: str) -> CallbackHandle:
        """The user presses a callback button under ``message``, a message sent through inline mode
        (``choose_inline_result``): Telegram hands over its ``inline_message_id`` and not the message. The
        button is not checked: the bot's inline results carry link buttons only, so this is a modified client's."""
        assert message.via_bot is not None, "not a message sent through inline mode"
        self._users.setdefault(user.id, user)
        record = CallbackQueryRecord(id=str(4_620_000_000_000_000_000 + next(self._query_ids)), user=user,
                                     chat=message.chat, message_id=message.message_id, data=callback_data,
                                     created=time.monotonic())
        self.callback_queries[record.id] = record
        query = {"id": record.id, "from": user.to_dict(), "inline_message_id": inline_message_id(message),
                 "chat_instance": str(abs(message.chat.id) * 7919 % 10**18 + 10**17), "data": callback_data}
        update = {"update_id": next(self._update_ids), "callback_query": query}
        return CallbackHandle(self, update, self._queue_update(update, True), record)

    def inline_query(self, user: FakeUser, query: str = "", *, chat_type: str = "private") -> InlineQueryHandle:
        """The user types ``@bot query`` in a chat of ``chat_type``: an ``inline_query`` update."""
        self._users.setdefault(user.id, user)
        record = InlineQueryRecord(id=str(7_310_000_000_000 + next(self._query_ids)), user=user, query=query)
        self.inline_queries[record.id] = record
        update = {"update_id": next(self._update_ids), "inline_query": {
            "id": record.id, "from": user.to_dict(), "query": query, "offset": "", "chat_type": chat_type}}
        return InlineQueryHandle(self, update, self._queue_update(update, True), record)

    def choose_inline_result(self, user: FakeUser, chat: ChatRef, answer: InlineAnswer,
                             result_id: str) -> StoredMessage:
        """The user picks a result of ``answer``: its message is posted to ``chat`` as the user's, via the bot."""
        result = answer.result(result_id)
        content = result["input_message_content"]
        text, entities = format_text(content["message_text"], content.get("parse_mode"), content.get("entities"))
        message = self._store(self._chat(chat), user.to_dict(), text, entities,
                              reply_markup=check_reply_markup(result.get("reply_markup")),
                              raw_text=content["message_text"], parse_mode=content.get("parse_mode"))
        message.via_bot = self.bot_username
        return message

    def queue_update(self, update: dict[str, Any]) -> int:
        """Queue a raw update dict (an ``update_id`` is added if missing); returns its update_id."""
        update = dict(update)
        update.setdefault("update_id", next(self._update_ids))
        self._queue_update(update, True)
        return int(update["update_id"])

    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates queued and not yet confirmed by the bot."""
        return list(self._queue)

    def _queue_update(self, update: dict[str, Any], queue: bool) -> int:
        mark = len(self.requests)
        if queue:
            self._queue.append(update)
            self._last_mark = mark
            self._notify()
        return mark

    # ---- callback queries -----------------------------------------------------------------------

    def callback_answer(self, query_id: str) -> CallbackAnswer | None:
        """The bot's answer to a callback query, or None."""
        return self.callback_queries[query_id].answer

    def unanswered_callbacks(self) -> list[CallbackQueryRecord]:
        """Presses the bot has not answered (Telegram clients show a spinner for these)."""
        return [record for record in self.callback_queries.values() if record.answer is None]

    # ---- bot commands -------------------------------------------------------------------------------

    def commands(
        self, scope: str | Mapping[str, Any] = "default", language_code: str = ""
    ) -> list[tuple[str, str]]:
        """The command list set exactly for this scope and language ([] if none)."""
        scope_dict = {"type": scope} if isinstance(scope, str) else dict(scope)
        key = (self._scope_key(scope_dict), language_code or "")
        return [(c["command"], c["description"]) for c in self._commands.get(key, [])]

    def visible_commands(self, user: FakeUser, chat: ChatRef) -> list[tuple[str, str]]:
        """The command menu ``user`` sees in ``chat``, resolved by Telegram's documented scope order."""
        resolved = self._chat(chat)
        language = user.language_code or ""
        is_admin = self._members.get(resolved.id, {}).get(user.id) in ("creator", "administrator")
        if resolved.is_group:
            scopes: list[tuple[Any, ...]] = [("chat_member", resolved.id, user.id)]
            if is_admin:
                scopes.append(("chat_administrators", resolved.id))
            scopes.append(("chat", resolved.id))
            if is_admin:
                scopes.append(("all_chat_administrators",))
            scopes.append(("all_group_chats",))
        else:
            scopes = [("chat", resolved.id), ("all_private_chats",)]
        scopes.append(("default",))
        languages = [language, ""] if language else [""]
        for scope in scopes:
            for lang in languages:
                found = self._commands.get((scope, lang))
                if found:
                    return [(c["command"], c["description"]) for c in found]
        return []

    def _scope_key(self, scope: Mapping[str, Any]) -> tuple[Any, ...]:
        kind = scope.get("type", "default")
        if kind in ("default", "all_private_chats", "all_group_chats", "all_chat_administrators"):
            return (kind,)
        if kind in ("chat", "chat_administrators", "chat_member"):
            chat = self._find_chat(scope.get("chat_id"))
            if chat is None:
                raise _bad("chat not found")
            if kind == "chat_member":
                user_id = scope.get("user_id")
                if not isinstance(user_id, int) or user_id not in self._users:
                    raise _bad("user not found")
                return (kind, chat.id, user_id)
            return (kind, chat.id)
        raise _bad("can't parse BotCommandScope: unknown scope type")

    # ---- webhooks -------------------------------------------------------------------------------------

    @property
    def webhook_url(self) -> str:
        """The webhook URL the bot set ("" if none)."""
        return self._webhook.url if self._webhook else ""

    @property
    def webhook_secret_token(self) -> str | None:
        """The secret_token the bot set with its webhook."""
        return self._webhook.secret_token if self._webhook else None

    async def post_update_to(
        self, url: str, update: dict[str, Any] | UpdateHandle, *, secret_token: str | None = None
    ) -> WebhookDelivery:
        """POST an update to a webhook URL as Telegram does (with ``X-Telegram-Bot-Api-Secret-Token``).

        Like the other user actions it moves the mark that ``wait_for_*`` look after.
        """
        if isinstance(update, UpdateHandle):
            update = update.update
        self._last_mark = len(self.requests)
        return await self._post_update(url, update, secret_token)

    async def _post_update(
        self, url: str, update: dict[str, Any], secret_token: str | None
    ) -> WebhookDelivery:
        headers = {}
        if secret_token is not None:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret_token
        session = self._session or aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        try:
            async with session.post(url, json=update, headers=headers) as response:
                body = await response.text()
                delivery = WebhookDelivery(url, update.get("update_id"), response.status, body)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            delivery = WebhookDelivery(
                url, update.get("update_id"), None, error=f"{type(exc).__name__}: {exc}"
            )
        finally:
            if session is not self._session:
                await session.close()
        self.webhook_deliveries.append(delivery)
        self._notify()
        return delivery

    async def _deliver_webhooks(self) -> None:
        while not self._closing:
            webhook = self._webhook
            if webhook is None:
                return
            pending = self._deliverable(webhook.allowed_updates)
            if not pending:
                await self._wait_change(None)
                continue
            update = pending[0]
            delivery = await self._post_update(webhook.url, update, webhook.secret_token)
            if delivery.ok:
                self._queue = [u for u in self._queue if u["update_id"] != update["update_id"]]
                self._notify()
            else:
                webhook.last_error_date = int(time.time())
                if delivery.status is None:
                    webhook.last_error_message = "Connection refused"
                else:
                    phrase = HTTPStatus(delivery.status).phrase if delivery.status in _HTTP_STATUSES else ""
                    webhook.last_error_message = (
                        f"Wrong response from the webhook: {delivery.status} {phrase}".strip()
                    )
                await asyncio.sleep(self.webhook_retry_delay)

    def _deliverable(self, allowed: list[str] | None) -> list[dict[str, Any]]:
        if not allowed:
            return list(self._queue)
        return [u for u in self._queue if next(k for k in u if k != "update_id") in allowed]

    # ---- injected failures ----------------------------------------------------------------------------

    @property
    def flood_control(self) -> FloodLimits | None:
        """Telegram's flood limits as applied now (None: off)."""
        return None if self._flood is None else self._flood.limits

    @flood_control.setter
    def flood_control(self, limits: FloodLimits | None) -> None:
        self._flood = None if limits is None else _Flood(limits)

    def flood_refusals(self, chat: ChatRef | None = None) -> list[RecordedRequest]:
        """The requests (to ``chat``, or to any) answered 429 Too Many Requests."""
        chat_id = None if chat is None else self._chat(chat).id
        return [r for r in self.requests if r.status == 429
                and (chat_id is None or self._request_chat_id(r) == chat_id)]

    def _check_flood(self, method: str, params: Mapping[str, Any]) -> None:
        if self._flood is None or method not in FLOOD_LIMITED:
            return
        chat = self._find_chat(params.get("chat_id"))
        if chat is not None:
            self._flood.check(chat, time.monotonic())

    def fail_next(
        self, chat: ChatRef | None = None, *, retry_after: int = 1, count: int = 1, method: str | None = None
    ) -> None:
        """The next ``count`` requests to ``chat`` (any chat if None) get 429 Too Many Requests."""
        self.inject_error(
            method,
            chat=chat,
            error_code=429,
            description=f"Too Many Requests: retry after {retry_after}",
            retry_after=retry_after,
            count=count,
        )

    def inject_error(
        self,
        method: str | None = None,
        *,
        chat: ChatRef | None = None,
        error_code: int = 400,
        description: str = "Bad Request: injected error",
        retry_after: int | None = None,
        count: int = 1,
        polling: bool = False,
    ) -> None:
        """The next ``count`` matching requests fail with this error and change nothing. ``getUpdates`` and
        ``getMe`` are spared unless ``polling`` (then an error for every method, or ``method="getUpdates"``, also
        fails the long polls: updates wait in the queue until the errors are used up)."""
        chat_id = None if chat is None else self._chat(chat).id
        self._injected.append(
            _InjectedError(
                method, chat_id, BotAPIError(description, error_code, retry_after=retry_after), count, polling
            )
        )

    def delay_next(
        self, method: str | None = None, *, chat: ChatRef | None = None, seconds: float = 1.0, count: int = 1,
        answer_late: bool = False,
    ) -> None:
        """The next ``count`` matching requests (never ``getUpdates``) wait ``seconds`` before the fake handles
        them: longer than the client's read timeout, the client gives up first, and the request (cancelled with
        the connection) changes nothing, like a request lost on the way. With ``answer_late`` the request is
        handled at once and only its answer waits: the client times out on a message that was sent all the same,
        like an answer lost on the way back."""
        chat_id = None if chat is None else self._chat(chat).id
        self._delays.append(_InjectedDelay(method, chat_id, seconds, count, answer_late))

    def hold_next(self, method: str, *, chat: ChatRef | None = None) -> HeldRequest:
        """The next ``method`` request (to ``chat``) is held, not handled, until the test releases it; the requests
        after it go on meanwhile. Waiting on its ``arrived`` says it came."""
        held = HeldRequest(method, None if chat is None else self._chat(chat).id)
        self._holds.append(held)
        return held

    def _take_hold(self, method: str, params: Mapping[str, Any]) -> HeldRequest | None:
        for held in self._holds:
            if self._matches(method, params, held.method, held.chat_id):
                self._holds.remove(held)
                return held
        return None

    def revoke_token(self, revoked: bool = True) -> None:
        """Answer every request 401 Unauthorized, as Telegram does once a token is revoked."""
        self.token_revoked = revoked

    def _matches(self, method: str, params: Mapping[str, Any], wanted: str | None, chat_id: int | None) -> bool:
        if wanted is not None and wanted.lower() != method.lower():
            return False
        if chat_id is not None:
            target = self._find_chat(params.get("chat_id"))
            if target is None or target.id != chat_id:
                return False
        return True

    def _take_delay(self, method: str, params: Mapping[str, Any]) -> tuple[float, bool]:
        """How long the request waits, and whether after being handled (``answer_late``)."""
        if method == "getUpdates":
            return 0.0, False
        for delay in self._delays:
            if self._matches(method, params, delay.method, delay.chat_id):
                delay.remaining -= 1
                if delay.remaining <= 0:
                    self._delays.remove(delay)
                return delay.seconds, delay.answer_late
        return 0.0, False

    def _take_injected(self, method: str, params: Mapping[str, Any]) -> BotAPIError | None:
        for injected in self._injected:
            if method in ("getUpdates", "getMe") and not injected.polling:
                continue
            if injected.method is not None and injected.method.lower() != method.lower():
                continue
            if injected.chat_id is not None:
                target = self._find_chat(params.get("chat_id"))
                if target is None or target.id != injected.chat_id:
                    continue
            injected.remaining -= 1
            if injected.remaining <= 0:
                self._injected.remove(injected)
            return injected.error
        return None

    # ---- waiting ----------------------------------------------------------------------------------------

    def mark(self) -> int:
        """The current position in ``requests``; pass it as ``since=`` to look only at later ones."""
        return len(self.requests)

    def calls(
        self, method: str | None = None, *, chat: ChatRef | None = None, since: int = 0
    ) -> list[RecordedRequest]:
        """Finished requests, optionally only one method and/or one chat."""
        chat_id = None if chat is None else self._chat(chat).id
        return [
            request
            for request in self.requests[since:]
            if request.done
            and (method is None or request.method.lower() == method.lower())
            and (chat_id is None or self._request_chat_id(request) == chat_id)
        ]

    def in_flight(self, method: str | None = None) -> list[RecordedRequest]:
        """Requests that arrived and are not answered yet (a pending long poll, for instance)."""
        return [
            request
            for request in self.requests
            if not request.done and not request.cancelled and (method is None or request.method == method)
        ]

    async def wait_until(
        self, predicate: Callable[[], bool], timeout: float = WAIT_TIMEOUT, *, what: str | None = None
    ) -> None:
        """Wait until ``predicate()`` is true.

        It is re-checked whenever the fake answers or receives a request, and at least every 20 ms so
        that predicates over the test's own state (lists a handler appends to) work too.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"timed out after {timeout}s waiting for {what or 'the condition'}\n"
                    f"requests since the last user action:\n{self.transcript(since=self._last_mark)}"
                )
            await self._wait_change(min(remaining, 0.02))

    async def wait_for_request(
        self,
        method: str | None = None,
        *,
        chat: ChatRef | None = None,
        since: int | UpdateHandle | None = None,
        predicate: Callable[[RecordedRequest], bool] | None = None,
        ok: bool | None = None,
        timeout: float = WAIT_TIMEOUT,
    ) -> RecordedRequest:
        """The first finished matching request after ``since`` (default: the latest user action)."""
        start = self._since(since)
        found: list[RecordedRequest] = []

        def check() -> bool:
            for request in self.calls(method, chat=chat, since=start):
                if (ok is None or request.ok == ok) and (predicate is None or predicate(request)):
                    found.append(request)
                    return True
            return False

        await self.wait_until(check, timeout, what=f"a {method or 'request'} call")
        return found[0]

    async def wait_for_message(
        self, chat: ChatRef, *, since: int | UpdateHandle | None = None, timeout: float = WAIT_TIMEOUT
    ) -> StoredMessage:
        """The first message (a text or a photo) the bot sent successfully to ``chat`` after ``since``."""
        resolved = self._chat(chat)
        request = await self.wait_for_request(
            None, chat=resolved, since=since, ok=True, timeout=timeout,
            predicate=lambda sent: sent.method in ("sendMessage", "sendPhoto"),
        )
        return self.message(resolved, int(request.result["message_id"]))

    def transcript(self, since: int = 0, *, polls: bool = False) -> str:
        """The requests as text, one a line (empty getUpdates polls are left out unless ``polls``)."""
        lines = [
            str(request)
            for request in self.requests[since:]
            if polls or request.method != "getUpdates" or request.result
        ]
        return "\n".join(lines) or "(none)"

    def _since(self, since: int | UpdateHandle | None) -> int:
        if since is None:
            return self._last_mark
        if isinstance(since, UpdateHandle):
            return since.mark
        return since

    def _request_chat_id(self, request: RecordedRequest) -> int | None:
        chat = self._find_chat(request.params.get("chat_id"))
        return chat.id if chat else None

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, set()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def _wait_change(self, timeout: float | None) -> None:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            pass
        finally:
            self._waiters.discard(waiter)

    # ---- HTTP ----------------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        match = re.fullmatch(r"bot([^/]+)/([A-Za-z0-9_]+)", request.match_info["tail"])
        if match is None:
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        token, name = match.groups()
        handler_name = self._METHODS.get(name.lower())
        method = handler_name[0] if handler_name else name
        record = RecordedRequest(
            index=len(self.requests),
            method=method,
            params={},
            http_method=request.method,
            content_type=request.content_type,
            time=time.time(),
        )
        self.requests.append(record)
        self._notify()
        try:
            try:
                raw = await self._read_params(request)
                record.params = raw
                record.params = _decode_params(raw)
                if token != self.token or self.token_revoked:
                    raise BotAPIError("Unauthorized", 401)
                if handler_name is None:
                    raise BotAPIError("Not Found", 404)
                held = self._take_hold(method, record.params)
                if held is not None:
                    held.request = record
                    held.arrived.set()
                    await held.released.wait()
                delay, answer_late = self._take_delay(method, record.params)
                if delay and not answer_late:
                    await asyncio.sleep(delay)
                injected = self._take_injected(method, record.params)
                if injected is not None:
                    raise injected
                self._check_flood(method, record.params)
                result = await getattr(self, handler_name[1])(record.params)
                if delay and answer_late:
                    await asyncio.sleep(delay)
                payload: dict[str, Any] = {"ok": True, "result": result}
                status = 200
            except BotAPIError as exc:
                payload, status = exc.to_json(), exc.error_code
            except asyncio.CancelledError:
                record.cancelled = True
                raise
            except Exception as exc:  # a bug in the fake: make it loud
                log.exception("FakeBotAPI failed on %s", method)
                self.server_errors.append(exc)
                payload = {
                    "ok": False,
                    "error_code": 500,
                    "description": f"Internal Server Error: fake: {exc!r}",
                }
                status = 500
            record.status, record.response = status, payload
            return web.json_response(
                payload, status=status, dumps=lambda o: json.dumps(o, ensure_ascii=False)
            )
        finally:
            record.done = not record.cancelled
            self._notify()

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            body = await request.read()
            if body.strip():
                try:
                    data = json.loads(body)
                except ValueError:
                    raise _bad("can't parse JSON encoded request parameters") from None
                if not isinstance(data, dict):
                    raise _bad("request parameters must be a JSON object")
                params.update(data)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    data = value.file.read()
                    params[key] = {"file_name": value.filename, "size": len(data), "data": data}
                else:
                    params[key] = value
        return params

    # ---- method implementations -----------------------------------------------------------------------

    _METHODS: dict[str, tuple[str, str]] = {
        name.lower(): (name, "_m_" + re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower())
        for name in (
            "getMe",
            "logOut",
            "close",
            "getUpdates",
            "setWebhook",
            "deleteWebhook",
            "getWebhookInfo",
            "sendMessage",
            "editMessageText",
            "editMessageReplyMarkup",
            "sendPhoto",
            "editMessageMedia",
            "editMessageCaption",
            "deleteMessage",
            "deleteMessages",
            "answerCallbackQuery",
            "answerInlineQuery",
            "sendChatAction",
            "getChat",
            "getChatMember",
            "getChatAdministrators",
            "getChatMemberCount",
            "setMyCommands",
            "getMyCommands",
            "deleteMyCommands",
            "setMyName",
            "getMyName",
            "setMyDescription",
            "getMyDescription",
            "setMyShortDescription",
            "getMyShortDescription",
            "setChatMenuButton",
            "getChatMenuButton",
        )
    }

    def _target_chat(self, params: Mapping[str, Any], *, sending: bool = False) -> FakeChat:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise _bad("chat_id is empty")
        chat = self._find_chat(chat_id)
        if chat is None:
            raise _bad("chat not found")
        if sending:
            if chat.type == "private" and chat.id in self._blocked_by:
                raise BotAPIError("Forbidden: bot was blocked by the user", 403)
            if chat.is_group and self._members[chat.id].get(self.bot_id) in ("left", "kicked"):
                kind = "group" if chat.type == "group" else "supergroup"
                raise BotAPIError(f"Forbidden: bot was kicked from the {kind} chat", 403)
        return chat

    def _message_id(self, params: Mapping[str, Any]) -> int:
        message_id = params.get("message_id")
        if message_id is None or message_id == "":
            raise _bad("message_id is empty" if "inline_message_id" not in params else "MESSAGE_ID_INVALID")
        if not isinstance(message_id, int):
            raise _bad("invalid message_id specified")
        return message_id

    async def _m_get_me(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return dict(self.bot_user)

    async def _m_log_out(self, params: Mapping[str, Any]) -> bool:
        return True

    async def _m_close(self, params: Mapping[str, Any]) -> bool:
        return True

    async def _m_get_updates(self, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        if self._webhook is not None:
            raise BotAPIError(
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
                "the webhook first",
                409,
            )
        offset = int(params.get("offset") or 0)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        loop = asyncio.get_running_loop()
        previous, self._previous_poll = self._previous_poll, (offset, loop.time())
        if (self.hold_repeated_polls and previous is not None and previous[0] == offset and timeout < 3
                and loop.time() < previous[1] + REPEATED_POLL_HOLD):
            timeout = REPEATED_POLL_HOLD
        if "allowed_updates" in params:
            allowed = params["allowed_updates"]
            self._allowed_updates = list(allowed) if allowed else None
        if offset > 0:
            self._queue = [u for u in self._queue if u["update_id"] >= offset]
        elif offset < 0:
            self._queue = self._queue[offset:]
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older long poll of another bot instance ends with 409
        deadline = loop.time() + timeout
        while True:
            updates = self._deliverable(self._allowed_updates)[:limit]
            if updates or self._closing:
                return updates
            if generation != self._poll_generation:
                raise BotAPIError(
                    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
                    "is running",
                    409,
                )
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            await self._wait_change(remaining)

    async def _m_set_webhook(self, params: Mapping[str, Any]) -> bool:
        url = str(params.get("url") or "")
        if params.get("drop_pending_updates"):
            self._queue.clear()
        if not url:
            self._webhook = None
            self._notify()
            return True
        if not re.match(r"^https?://[^/\s]+", url):
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise _bad("secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        self._webhook = _Webhook(
            url=url,
            secret_token=None if secret is None else str(secret),
            max_connections=int(params.get("max_connections") or 40),
            allowed_updates=list(allowed) if allowed else None,
        )
        self._poll_generation += 1
        self._notify()
        if self._delivery_task is None or self._delivery_task.done():
            self._delivery_task = asyncio.get_running_loop().create_task(self._deliver_webhooks())
        return True

    async def _m_delete_webhook(self, params: Mapping[str, Any]) -> bool:
        if params.get("drop_pending_updates"):
            self._queue.clear()
        self._webhook = None
        self._notify()
        return True

    async def _m_get_webhook_info(self, params: Mapping[str, Any]) -> dict[str, Any]:
        info: dict[str, Any] = {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._queue),
        }
        if self._webhook is not None:
            info["max_connections"] = self._webhook.max_connections
            if self._webhook.allowed_updates:
                info["allowed_updates"] = self._webhook.allowed_updates
            if self._webhook.last_error_date is not None:
                info["last_error_date"] = self._webhook.last_error_date
                info["last_error_message"] = self._webhook.last_error_message
        return info

    async def _m_send_message(self, params: Mapping[str, Any]) -> dict[str, Any]:
        text, entities = format_text(params.get("text"), params.get("parse_mode"), params.get("entities"))
        chat = self._target_chat(params, sending=True)
        markup = check_reply_markup(params.get("reply_markup"))
        reply_to = params.get("reply_to_message_id")
        reply_parameters = params.get("reply_parameters")
        allow_without = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply_parameters, dict):
            reply_to = reply_parameters.get("message_id")
            allow_without = bool(reply_parameters.get("allow_sending_without_reply", allow_without))
        if reply_to is not None:
            replied = self._messages[chat.id].get(int(reply_to))
            if replied is None or replied.deleted:
                if not allow_without:
                    raise _bad("message to be replied not found")
                reply_to = None
        message = self._store(
            chat,
            dict(self._bot_sender()),
            text,
            entities,
            reply_markup=markup,
            raw_text=str(params.get("text")),
            parse_mode=params.get("parse_mode"),
            reply_to=None if reply_to is None else int(reply_to),
        )
        return self._message_api(message)

    def _bot_sender(self) -> dict[str, Any]:
        return {key: self.bot_user[key] for key in ("id", "is_bot", "first_name", "username")}

    def _editable(self, params: Mapping[str, Any]) -> StoredMessage:
        if params.get("inline_message_id"):  # a message sent through inline mode: the bot may edit it too
            sent = [message for messages in self._messages.values() for message in messages.values()
                    if message.via_bot is not None and inline_message_id(message) == params["inline_message_id"]]
            if not sent or sent[0].deleted:
                raise _bad("MESSAGE_ID_INVALID")
            return sent[0]
        chat = self._target_chat(params)
        message = self._messages[chat.id].get(self._message_id(params))
        if message is None or message.deleted:
            raise _bad("message to edit not found")
        if not message.from_bot:
            raise _bad("message can't be edited")
        return message

    def _apply_edit(
        self,
        message: StoredMessage,
        text: str,
        entities: list[dict[str, Any]],
        markup: dict[str, Any] | None,
        *,
        raw_text: str,
        parse_mode: str | None,
        photo: tuple[bytes, tuple[int, int]] | None = None,
    ) -> dict[str, Any]:
        same_photo = photo is None or photo[0] == message.photo_bytes
        if (message.text, message.entities, message.reply_markup) == (text, entities, markup) and same_photo:
            raise _bad(NOT_MODIFIED)
        message.history.append((message.text, message.entities, message.reply_markup))
        message.photo_history.append(message.photo_bytes)
        if photo is not None:
            message.photo_bytes, message.photo_size = photo
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.raw_text, message.parse_mode = raw_text, parse_mode
        message.edit_date = int(time.time())
        return self._message_api(message)

    async def _m_edit_message_text(self, params: Mapping[str, Any]) -> dict[str, Any]:
        message = self._editable(params)
        if message.is_photo:
            raise _bad("there is no text in the message to edit")
        text, entities = format_text(params.get("text"), params.get("parse_mode"), params.get("entities"))
        markup = check_reply_markup(params.get("reply_markup"))
        return self._apply_edit(
            message,
            text,
            entities,
            markup,
            raw_text=str(params.get("text")),
            parse_mode=params.get("parse_mode"),
        )

    async def _m_edit_message_reply_markup(self, params: Mapping[str, Any]) -> dict[str, Any]:
        message = self._editable(params)
        markup = check_reply_markup(params.get("reply_markup"))
        return self._apply_edit(
            message,
            message.text,
            message.entities,
            markup,
            raw_text=message.raw_text,
            parse_mode=message.parse_mode,
        )

    def _caption(self, caption: Any, parse_mode: Any, entities: Any) -> tuple[str, list[dict[str, Any]]]:
        """A photo's caption as Telegram stores it: empty, or at most 1,024 characters after parsing."""
        if caption is None or caption == "":
            return "", []
        try:
            return format_text(caption, parse_mode, entities, limit=MAX_CAPTION_LENGTH)
        except BotAPIError as error:
            if error.description.endswith("message is too long"):
                raise _bad("message caption is too long") from None
            raise

    def _uploaded_photo(self, params: Mapping[str, Any], field_name: str) -> tuple[bytes, tuple[int, int]]:
        """The photo uploaded in the multipart field ``field_name``: its bytes and size, within Telegram's
        limits."""
        upload = params.get(field_name)
        if not isinstance(upload, dict) or "data" not in upload:
            if isinstance(upload, str) and upload:
                raise _bad("wrong file identifier/HTTP URL specified")  # the fake takes uploads only
            raise _bad("there is no photo in the request")
        data: bytes = upload["data"]
        if len(data) > MAX_PHOTO_BYTES:
            raise _bad("file is too big")
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(io.BytesIO(data)) as image:
                size = image.size
        except (UnidentifiedImageError, OSError):
            raise _bad("IMAGE_PROCESS_FAILED") from None
        if sum(size) > MAX_PHOTO_SIDES:
            raise _bad("PHOTO_INVALID_DIMENSIONS")
        return data, size

    async def _m_send_photo(self, params: Mapping[str, Any]) -> dict[str, Any]:
        chat = self._target_chat(params, sending=True)
        photo = self._uploaded_photo(params, "photo")
        caption, entities = self._caption(params.get("caption"), params.get("parse_mode"),
                                          params.get("caption_entities"))
        markup = check_reply_markup(params.get("reply_markup"))
        reply_to = params.get("reply_to_message_id")
        reply_parameters = params.get("reply_parameters")
        allow_without = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply_parameters, dict):
            reply_to = reply_parameters.get("message_id")
            allow_without = bool(reply_parameters.get("allow_sending_without_reply", allow_without))
        if reply_to is not None:
            replied = self._messages[chat.id].get(int(reply_to))
            if replied is None or replied.deleted:
                if not allow_without:
                    raise _bad("message to be replied not found")
                reply_to = None
        message = self._store(chat, dict(self._bot_sender()), caption, entities, reply_markup=markup,
                              raw_text=str(params.get("caption") or ""), parse_mode=params.get("parse_mode"),
                              reply_to=None if reply_to is None else int(reply_to), photo=photo)
        return self._message_api(message)

    async def _m_edit_message_media(self, params: Mapping[str, Any]) -> dict[str, Any]:
        message = self._editable(params)
        media = params.get("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise _bad("can't parse InputMedia: media type photo expected")  # the fake knows photos only
        if not message.is_photo:
            raise _bad("there is no media in the message to edit")
        attached = str(media.get("media", ""))
        if not attached.startswith("attach://"):
            raise _bad("wrong file identifier/HTTP URL specified")
        photo = self._uploaded_photo(params, attached.removeprefix("attach://"))
        caption, entities = self._caption(media.get("caption"), media.get("parse_mode"),
                                          media.get("caption_entities"))
        markup = check_reply_markup(params.get("reply_markup"))
        return self._apply_edit(message, caption, entities, markup, raw_text=str(media.get("caption") or ""),
                                parse_mode=media.get("parse_mode"), photo=photo)

    async def _m_edit_message_caption(self, params: Mapping[str, Any]) -> dict[str, Any]:
        message = self._editable(params)
        if not message.is_photo:
            raise _bad("there is no caption in the message to edit")
        caption, entities = self._caption(params.get("caption"), params.get("parse_mode"),
                                          params.get("caption_entities"))
        markup = check_reply_markup(params.get("reply_markup"))
        return self._apply_edit(message, caption, entities, markup, raw_text=str(params.get("caption") or ""),
                                parse_mode=params.get("parse_mode"))

    async def _m_delete_message(self, params: Mapping[str, Any]) -> bool:
        chat = self._target_chat(params)
        message = self._messages[chat.id].get(self._message_id(params))
        if message is None or message.deleted:
            raise _bad("message to delete not found")
        # the Bot API: a bot deletes its own messages, anything in a private chat, others' in a group only as an
        # admin (the fake's admins may delete messages)
        theirs = message.sender.get("id") != self.bot_id
        if theirs and chat.is_group and self._members[chat.id].get(self.bot_id) not in ("administrator", "creator"):
            raise _bad("message can't be deleted")
        message.deleted = True
        return True

    async def _m_delete_messages(self, params: Mapping[str, Any]) -> bool:
        chat = self._target_chat(params)
        ids = params.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise _bad("message_ids must be a non-empty list of at most 100 identifiers")
        for message_id in ids:
            message = self._messages[chat.id].get(int(message_id))
            if message is not None:
                message.deleted = True
        return True

    async def _m_answer_callback_query(self, params: Mapping[str, Any]) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        record = self.callback_queries.get(query_id)
        too_old = (
            record is not None
            and self.callback_query_ttl is not None
            and time.monotonic() - record.created > self.callback_query_ttl
        )
        if record is None or record.answer is not None or too_old:
            raise _bad(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and utf16_len(str(text)) > MAX_CALLBACK_ANSWER_LENGTH:
            raise _bad("MESSAGE_TOO_LONG")
        cache_time = params.get("cache_time")
        record.answer = CallbackAnswer(
            query_id=query_id,
            text=None if text is None else str(text),
            show_alert=bool(params.get("show_alert")),
            url=params.get("url"),
            cache_time=None if cache_time is None else int(cache_time),
        )
        return True

    async def _m_answer_inline_query(self, params: Mapping[str, Any]) -> bool:
        record = self.inline_queries.get(str(params.get("inline_query_id") or ""))
        if record is None or record.answer is not None:
            raise _bad(QUERY_TOO_OLD)
        results = params.get("results")
        if not isinstance(results, list):
            raise _bad("can't parse inline query results JSON object")
        if len(results) > MAX_INLINE_RESULTS:
            raise _bad("RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for result in results:
            result_id = result.get("id") if isinstance(result, dict) else None
            if not isinstance(result_id, str) or not 1 <= len(result_id.encode("utf-8")) <= MAX_INLINE_RESULT_ID_BYTES:
                raise _bad("RESULT_ID_INVALID")
            if result_id in seen:
                raise _bad("RESULT_ID_DUPLICATE")
            seen.add(result_id)
            if result.get("type") != "article" or not result.get("title"):
                raise _bad("RESULT_TYPE_INVALID")
            content = result.get("input_message_content")
            if not isinstance(content, dict) or "message_text" not in content:
                raise _bad("MESSAGE_EMPTY")
            format_text(content["message_text"], content.get("parse_mode"), content.get("entities"))
            check_reply_markup(result.get("reply_markup"))
        cache_time = params.get("cache_time")
        record.answer = InlineAnswer(results, int(cache_time) if cache_time is not None else None,
                                     bool(params.get("is_personal")))
        return True

    async def _m_send_chat_action(self, params: Mapping[str, Any]) -> bool:
        self._target_chat(params, sending=True)
        if not params.get("action"):
            raise _bad("action is empty")
        return True

    async def _m_get_chat(self, params: Mapping[str, Any]) -> dict[str, Any]:
        chat = self._target_chat(params)
        info = chat.to_dict()
        info.update(
            accent_color_id=chat.id % 7,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return info

    def _member_json(self, user: dict[str, Any], status: str) -> dict[str, Any]:
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            rights = dict.fromkeys(
                (
                    "can_be_edited",
                    "is_anonymous",
                    "can_manage_chat",
                    "can_delete_messages",
                    "can_manage_video_chats",
                    "can_restrict_members",
                    "can_promote_members",
                    "can_change_info",
                    "can_invite_users",
                    "can_post_stories",
                    "can_edit_stories",
                    "can_delete_stories",
                    "can_pin_messages",
                ),
                False,
            )
            rights.update(can_manage_chat=True, can_delete_messages=True, can_invite_users=True)
            return {"status": "administrator", "user": user, **rights}
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        return {"status": status, "user": user}

    def _user_json(self, user_id: int) -> dict[str, Any]:
        if user_id == self.bot_id:
            return self._bot_sender()
        user = self._users.get(user_id)
        if user is None:
            raise _bad("user not found")
        return user.to_dict()

    async def _m_get_chat_member(self, params: Mapping[str, Any]) -> dict[str, Any]:
        chat = self._target_chat(params)
        user_id = params.get("user_id")
        if not isinstance(user_id, int):
            raise _bad("user_id is empty" if not user_id else "invalid user_id specified")
        user = self._user_json(user_id)
        status = self._members[chat.id].get(user_id, "left")
        return self._member_json(user, status)

    async def _m_get_chat_administrators(self, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        chat = self._target_chat(params)
        if not chat.is_group:
            raise _bad("there are no administrators in the private chat")
        return [
            self._member_json(self._user_json(user_id), status)
            for user_id, status in self._members[chat.id].items()
            if status in ("creator", "administrator")
        ]

    async def _m_get_chat_member_count(self, params: Mapping[str, Any]) -> int:
        chat = self._target_chat(params)
        if not chat.is_group:
            return 2
        return sum(1 for status in self._members[chat.id].values() if status not in ("left", "kicked"))

    def _commands_key(self, params: Mapping[str, Any]) -> tuple[tuple[Any, ...], str]:
        scope = params.get("scope") or {"type": "default"}
        if not isinstance(scope, dict):
            raise _bad("can't parse BotCommandScope JSON object")
        language = str(params.get("language_code") or "")
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise _bad("invalid language code specified")
        return self._scope_key(scope), language

    async def _m_set_my_commands(self, params: Mapping[str, Any]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _bad("can't parse commands JSON object")
        if len(commands) > MAX_COMMANDS:
            raise _bad("BOT_COMMANDS_TOO_MUCH")
        cleaned = []
        for command in commands:
            if not isinstance(command, dict):
                raise _bad("can't parse BotCommand: BotCommand must be an Object")
            name = command.get("command")
            description = command.get("description")
            if not isinstance(name, str) or not re.fullmatch(r"/?[a-z0-9_]{1,32}", name):
                raise _bad("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description.strip()) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
            cleaned.append({"command": name.lstrip("/"), "description": description})
        key = self._commands_key(params)
        if cleaned:
            self._commands[key] = cleaned
        else:
            self._commands.pop(key, None)
        return True

    async def _m_get_my_commands(self, params: Mapping[str, Any]) -> list[dict[str, str]]:
        return [dict(command) for command in self._commands.get(self._commands_key(params), [])]

    async def _m_delete_my_commands(self, params: Mapping[str, Any]) -> bool:
        self._commands.pop(self._commands_key(params), None)
        return True

    def _set_bot_text(self, params: Mapping[str, Any], field_name: str, limit: int) -> bool:
        value = str(params.get(field_name) or "")
        if utf16_len(value) > limit:
            raise _bad(f"{field_name} is too long")
        language = str(params.get("language_code") or "")
        if value:
            self._bot_texts[(field_name, language)] = value
        else:
            self._bot_texts.pop((field_name, language), None)
        return True

    def _get_bot_text(self, params: Mapping[str, Any], field_name: str) -> dict[str, str]:
        language = str(params.get("language_code") or "")
        value = self._bot_texts.get((field_name, language)) or self._bot_texts.get((field_name, ""))
        if value is None:
            value = str(self.bot_user["first_name"]) if field_name == "name" else ""
        return {field_name: value}

    async def _m_set_my_name(self, params: Mapping[str, Any]) -> bool:
        return self._set_bot_text(params, "name", 64)

    async def _m_get_my_name(self, params: Mapping[str, Any]) -> dict[str, str]:
        return self._get_bot_text(params, "name")

    async def _m_set_my_description(self, params: Mapping[str, Any]) -> bool:
        return self._set_bot_text(params, "description", 512)

    async def _m_get_my_description(self, params: Mapping[str, Any]) -> dict[str, str]:
        return self._get_bot_text(params, "description")

    async def _m_set_my_short_description(self, params: Mapping[str, Any]) -> bool:
        return self._set_bot_text(params, "short_description", 120)

    async def _m_get_my_short_description(self, params: Mapping[str, Any]) -> dict[str, str]:
        return self._get_bot_text(params, "short_description")

    async def _m_set_chat_menu_button(self, params: Mapping[str, Any]) -> bool:
        chat_id = None if params.get("chat_id") in (None, "") else self._target_chat(params).id
        button = params.get("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or button.get("type") not in ("commands", "web_app", "default"):
            raise _bad("can't parse MenuButton JSON object")
        self._menu_buttons[chat_id] = button
        return True

    async def _m_get_chat_menu_button(self, params: Mapping[str, Any]) -> dict[str, Any]:
        chat_id = None if params.get("chat_id") in (None, "") else self._target_chat(params).id
        button = self._menu_buttons.get(chat_id) or self._menu_buttons.get(None) or {"type": "commands"}
        return {"type": "commands"} if button.get("type") == "default" else dict(button)


# --------------------------------------------------------------------------------------------------
# Running a PTB application against the fake


@contextlib.asynccontextmanager
async def run_polling(
    app: Application[Any, Any, Any, Any, Any, Any], *, poll_timeout: float = 10.0, **start_polling_kwargs: Any
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """Run ``app`` with long polling inside the current event loop; shut it down cleanly on exit."""
    await app.initialize()
    try:
        await app.start()
        try:
            assert app.updater is not None, "the Application was built without an Updater"
            await app.updater.start_polling(
                poll_interval=0.0, timeout=int(poll_timeout), **start_polling_kwargs
            )
            try:
                yield app
            finally:
                if app.updater.running:
                    await app.updater.stop()
        finally:
            if app.running:
                await app.stop()
    finally:
        await app.shutdown()
