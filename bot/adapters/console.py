"""The console chat: the same application (through its one door, :meth:`bot.app.flow.Flow.handle`), renderer and
storage as the chat adapters, in a terminal.

Buttons become ``[key] label`` choices with keys that never change (:mod:`bot.render.console`): a card by its
name (``7h``, ``10s``, ``qs``), ``d`` draw, ``u`` undo, ``h`` hint, ``n`` new game, on a finished game ``r`` replay,
``v`` review and ``s`` share, ``y``/``c`` to answer "abandon your game in progress?" (yes, continue playing; no key
is a rank, so ``q`` or ``k`` alone plays the one free queen or king), and on the settings
``explain``, ``winnable``, ``easy``, ``classic``, ``auto`` or a language code; besides them ``new [CODE]``,
``daily``, ``rules``, ``stats``, ``settings``, ``help``, ``resume`` (or ``board``, or Enter after another screen:
the game again; the player's language's names of these commands work too) and ``quit``. Starting a game (``new``,
``daily``, ``n``, ``r``) while a game with moves is in progress asks first. In a terminal the board is in colour
(not with ``NO_COLOR`` set, nor when the output is not a terminal), a ``>`` prompt shows where to type, and the
text is wrapped to the terminal's width. It reads standard input line by line, so it can be scripted; at the end
of input it stops cleanly (exit status 0): every action was committed when it was shown.
"""

from __future__ import annotations

import asyncio
import dataclasses
import getpass
import io
import os
import sys
from collections.abc import AsyncIterator
from typing import TextIO, assert_never

from bot.adapters.stdin import is_terminal, stdin_lines
from bot.app.abilities import CONSOLE
from bot.app.codec import game_command
from bot.app.commands import (
    Actor,
    Begin,
    ButtonCommand,
    Command,
    DailyDeal,
    DealByCode,
    PlayCard,
    RandomDeal,
    Resume,
    ShowRules,
    ShowSettings,
    ShowStats,
    Surface,
)
from bot.app.effects import (
    Answer,
    Board,
    BoardLinkOf,
    CardChoices,
    ChallengeAnswered,
    Content,
    EditBoard,
    EditMessage,
    Effect,
    GameSnapshot,
    HelpOf,
    Kept,
    LeaderboardOf,
    NoticeOf,
    OffersOf,
    OldBoard,
    OwnerAnswer,
    PlayAck,
    PlayerKey,
    PointerOf,
    Post,
    PostRound,
    PostTo,
    Problem,
    Question,
    RedrawBoard,
    RedrawRound,
    Reply,
    ReviewOf,
    RoundOf,
    RoundWatched,
    RulesOf,
    SendBoard,
    Settings,
    SettingsOf,
    ShareOf,
    StatsOf,
    Tell,
    WelcomeOf,
)
from bot.app.flow import Flow
from bot.config import terminal_colour
from bot.i18n import resolve_locale, translator
from bot.render.commands import command_names
from bot.render.console import console_back, console_help, console_rows, console_text, wrap_text
from bot.render.effects import draw, line
from bot.render.game import render_game
from bot.render.view import View, strip_variation

PLATFORM = "console"
#: The commands the console takes as words; in the player's language too (see ``ConsoleChat._command_word``).
_COMMAND_WORDS = ("new", "daily", "resume", "rules", "stats", "settings")
NEW_COMMAND = "new"
#: How a console player starts the same deal: the share text's way back in.
REPLAY_TEXT = "tripeaks console → new {code}"
#: Where the player types, on a terminal (a script's output has none).
PROMPT = "> "


class ConsoleChat:
    """One player's conversation with the bot in a terminal."""

    def __init__(self, flow: Flow, *, user_id: str | None = None, name: str | None = None,
                 platform_locale: str | None = None, out: TextIO = sys.stdout,
                 session_locale: str | None = None, width: int | None = None) -> None:
        self.flow = flow
        #: ``--lang``: wins over the saved language for this session, until the player picks one in the settings
        self.session_locale = session_locale
        self._language_at_start: str | None = None
        self.player, self.name = console_player(user_id, name)
        self.actor = Actor(self.player, self.name)
        self.surface = Surface(platform=PLATFORM, abilities=CONSOLE, platform_locale=platform_locale)
        self.platform_locale = platform_locale
        self.out = out
        self.snapshot: GameSnapshot | None = None
        #: ANSI colours only on a terminal, and not when the player asks for none (https://no-color.org)
        self.colour = terminal_colour(out)
        self.settings = Settings()
        #: the last question "abandon your game in progress?": its keys (``y``, ``k``) and their commands
        self.question: dict[str, ButtonCommand] = {}
        #: the columns to wrap at; None: the terminal's (measured at each print), or no wrapping off a terminal
        self.width = width
        #: whether the game is the last thing printed (Enter then has nothing to show again)
        self._board_last = False

    @property
    def locale(self) -> str:
        if self.session_locale and self.settings.language == self._language_at_start:
            return resolve_locale(self.session_locale, self.platform_locale)
        return resolve_locale(self.settings.language, self.platform_locale)

    async def run(self, lines: AsyncIterator[str]) -> int:
        """Open on the player's current game (else a new deal of their default rules), then answer each line."""
        await self._do(ShowSettings(), show=False)
        self._language_at_start = self.settings.language
        await self._do(Resume(start_if_none=True))
        try:
            async for line in lines:
                if not await self.handle(line.strip()):
                    break
        except asyncio.CancelledError:  # Ctrl-C or SIGTERM: every action shown was committed
            self._say("\n" + translator(self.locale).gettext("Goodbye! Your game is saved."))
            raise
        self._say(translator(self.locale).gettext("Goodbye! Your game is saved."))
        return 0

    async def handle(self, text: str) -> bool:
        """Answer one line; False when the player asked to quit."""
        word, _, rest = text.partition(" ")
        word = self._command_word(word.lower())
        question, self.question = self.question, {}
        if not word:
            self.question = question  # an empty line leaves the question open
            if not question:  # Enter after the rules, the stats..., or after moves at the table: the game again
                await self._show_again()
            return True
        if word in ("quit", "exit"):  # words no card's name is: q alone plays the free queen, as k a king
            return False
        if word in ("help", "?", "/help"):
            self._say(console_help(self.locale, board=True))
            return True
        command = self._command(word, rest.strip(), text, question)
        if command is None:  # a slot number is no card name; y/k answer only a question
            self._say(console_help(self.locale))
            return True
        await self._do(command)
        return True

    def _command(self, word: str, rest: str, text: str, question: dict[str, ButtonCommand]) -> Command | None:
        """The command a line stands for; None for a line the console explains with its help."""
        snapshot = self.snapshot
        if word in question:
            return question[word]
        if word in ("d", "u", "h", "n"):
            if snapshot is None:
                return Resume(start_if_none=True)
            return game_command(snapshot.game_id, snapshot.version, word)
        if word in ("r", "v", "s"):  # Replay, Review and Share: keys of a finished game's board
            if snapshot is None or not snapshot.game.is_over:
                return None
            return game_command(snapshot.game_id, 0, word)
        if word in ("new", "/new", "/tripeaks"):
            return Begin(DealByCode(rest) if rest else RandomDeal())
        if word in ("daily", "/daily"):
            return Begin(DailyDeal())
        if word in ("resume", "board", "/resume", "/board", "/play"):
            return Resume(start_if_none=True)
        if word in ("rules", "/rules"):
            return ShowRules()
        if word in ("stats", "/stats"):
            return ShowStats()
        if word in ("settings", "/settings"):
            return ShowSettings()
        if word in (keys := self._settings_keys()):
            return keys[word]
        if word.isdigit() or word in ("y", "c"):
            return None
        return PlayCard(text)

    def _command_word(self, word: str) -> str:
        """The console's own word for ``word``: the English keys as they are, and the player's language's names of
        the commands (``fortsetzen``, ``再開``: the slash commands' names on Discord) as their English key."""
        if word in _COMMAND_WORDS:
            return word
        names = command_names(self.locale)
        return next((key for key in _COMMAND_WORDS if names.get(key) == word), word)

    # --- actions ------------------------------------------------------------------------------------------------

    def _settings_keys(self) -> dict[str, ButtonCommand]:
        """The settings' keys (``explain``, ``easy``, ``uk``...) and their commands, on every screen."""
        return _commands(draw(SettingsOf(self.settings), self.locale, CONSOLE))

    async def _show_again(self) -> None:
        """The player's game, printed again unless it is on screen as it stands (the table in the browser may have
        moved it, or started another)."""
        shown = self.snapshot
        effects = await self.flow.handle(self.actor, Resume(start_if_none=True), self.surface)
        boards = [effect.snapshot for effect in effects if isinstance(effect, SendBoard | EditBoard)]
        if self._board_last and shown is not None and boards and all(
                (board.game_id, board.version) == (shown.game_id, shown.version) for board in boards):
            return
        await self._carry_out(effects)

    async def _do(self, command: Command, *, show: bool = True) -> None:
        """``command`` through the one door, and its effects printed (``show`` False: only noted)."""
        effects = await self.flow.handle(self.actor, command, self.surface)
        if show:
            await self._carry_out(effects)
        else:
            for effect in effects:
                if isinstance(effect, Answer) and isinstance(effect.content, SettingsOf):
                    self.settings = effect.content.settings

    # --- the executor of effects --------------------------------------------------------------------------------

    async def _carry_out(self, effects: list[Effect]) -> None:
        """Print what the flow decided. There is one screen: a board sent or edited is the game printed again, a
        card played by name is acknowledged and the game printed; the question keeps its keys for the next line.
        The console reports nothing back: it has no messages to edit later."""
        for effect in effects:
            match effect:
                case SendBoard(snapshot) | EditBoard(snapshot):
                    await self._show_game(snapshot)
                case RedrawBoard():
                    pass  # the acknowledgement before it already showed the game: the console has one screen
                case Answer(PlayAck(snapshot) as ack):
                    self._say(strip_variation(line(ack, self.locale, NEW_COMMAND)))
                    await self._show_game(snapshot)
                case Answer(Question() as question):
                    view = draw(question, self.locale, CONSOLE)
                    self.question = _commands(view)
                    self._show(view)
                case Answer(SettingsOf(settings)) | EditMessage(SettingsOf(settings)):
                    self.settings = settings
                    self._show(draw(SettingsOf(settings), self.locale, CONSOLE))
                case Answer(RulesOf() | StatsOf() | HelpOf() as shown):
                    self._show(draw(shown, self.locale, CONSOLE), numbered=isinstance(shown, RulesOf) and shown.play)
                    self._say(console_back(self.locale))
                case Answer(content) | Reply(content) | Post(content) | Tell(_, content):
                    self._print_content(content)
                case EditMessage(Kept(game) as kept):
                    self._show(draw(kept, self.locale, CONSOLE), numbered=False)
                    await self._show_game(game)
                case EditMessage(content):
                    self._show(draw(content, self.locale, CONSOLE))
                case PostRound() | RedrawRound():
                    pass  # a round is a group's or a channel's: the terminal starts none
                case PostTo():
                    pass  # the daily posts go to subscribed chats, and a terminal is none
                case unhandled:
                    assert_never(unhandled)

    def _print_content(self, content: Content) -> None:
        """Any other message: a line, or a message of its own (a shared result shows no keys: it is for others)."""
        if isinstance(content, ShareOf):  # no link or button carries a challenge from here: the result names its code
            content = ShareOf(dataclasses.replace(content.snapshot, challenge_key=None))
        match content:
            case Board() | Kept() | ReviewOf() | ShareOf() | WelcomeOf() | LeaderboardOf() | ChallengeAnswered() \
                    | RoundOf() | RoundWatched():
                self._show(draw(content, self.locale, CONSOLE, replay=_replay_of(content)),
                           numbered=not isinstance(content, ShareOf))
            case Problem() | NoticeOf() | PointerOf() | OwnerAnswer():
                self._say(line(content, self.locale, NEW_COMMAND))
                if isinstance(content, Problem) and isinstance(content.error, OldBoard) and \
                        content.error.current is not None:  # a new game started at the table: it is the one now
                    self._show_game_now(content.error.current)
            case Question() | SettingsOf() | StatsOf() | RulesOf() | HelpOf() | PlayAck():
                pass  # each answered on a screen of its own (:meth:`_carry_out`)
            case OffersOf() | CardChoices() | BoardLinkOf():
                pass  # what a chat platform draws itself (inline results, autocomplete, a link to the table)
            case unhandled:
                assert_never(unhandled)

    # --- output -------------------------------------------------------------------------------------------------

    async def _show_game(self, snapshot: GameSnapshot) -> None:
        self._show_game_now(snapshot)

    def _show_game_now(self, snapshot: GameSnapshot) -> None:
        self.snapshot = snapshot
        self.settings = snapshot.settings
        self._show(render_game(snapshot, self.locale, self.settings))
        self._board_last = True

    def _show(self, view: View, *, numbered: bool = True) -> None:
        self._print(console_text(view, colour=self.colour, keys=numbered, width=self._columns()) + "\n")

    def _columns(self) -> int | None:
        """The columns to fit: :attr:`width`, else the terminal's now (it may have been resized), else None."""
        if self.width is not None:
            return self.width
        try:
            if not self.out.isatty():
                return None
            return os.get_terminal_size(self.out.fileno()).columns or None
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None

    def prompt(self) -> None:
        """``>`` where the player types, on a terminal: the console waits for a line."""
        self.out.write(PROMPT)
        self.out.flush()

    def _say(self, text: str) -> None:
        """A line of text (help, an error, an acknowledgement), wrapped to the terminal."""
        columns = self._columns()
        self._print(text if columns is None else wrap_text(text, columns))

    def _print(self, text: str) -> None:
        self._board_last = False
        print(text, file=self.out, flush=True)



def _commands(view: View) -> dict[str, ButtonCommand]:
    """The keys of a view's buttons and the commands they stand for."""
    return {key: button.command for row in console_rows(view) for key, button in row if button.command is not None}


def _replay_of(content: Content) -> str | None:
    """How a shared result's reader plays the same deal: none for a daily deal, whose code would give it away."""
    code = content.snapshot.shared_code if isinstance(content, ShareOf) else None
    return None if code is None else REPLAY_TEXT.format(code=code)


def console_player(user_id: str | None = None, name: str | None = None) -> tuple[PlayerKey, str]:
    """The console's player and their name: ``--user``, else the login name (the table's link opens their game)."""
    name = name or _login_name()
    return PlayerKey(PLATFORM, user_id or name), name


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "player"


async def run_console(flow: Flow, *, stream: TextIO = sys.stdin, out: TextIO = sys.stdout,
                      locale: str | None = None, user: str | None = None, session_locale: str | None = None) -> int:
    """Play in the terminal until the end of input or ``quit``; returns the exit status. ``session_locale``
    (``--lang``) wins over the player's saved language for this session."""
    chat = ConsoleChat(flow, user_id=user, name=user, platform_locale=locale, out=out,
                       session_locale=session_locale)
    return await chat.run(stdin_lines(stream, chat.prompt if is_terminal(stream) and is_terminal(out) else None))
