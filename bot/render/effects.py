"""The contents of effects (:mod:`bot.app.effects`) drawn: what each platform's executor sends or edits. The
executor says what only it knows: the player's language, whether the chat is a server or group (boards there are
named), whether the question's game is in another chat, how a player deals the same cards there, which commands it
has."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import assert_never

from bot.app.abilities import PLAIN, Abilities
from bot.app.effects import (
    Board,
    ChallengeAnswered,
    HelpOf,
    Kept,
    LeaderboardOf,
    Note,
    NoticeOf,
    OwnerAnswer,
    PlayAck,
    PointerOf,
    Problem,
    Question,
    ReviewOf,
    RoundOf,
    RoundWatched,
    RulesOf,
    SettingsOf,
    ShareOf,
    Shown,
    StatsOf,
    WelcomeOf,
)
from bot.i18n import translator
from bot.render.challenges import render_answered
from bot.render.endings import back_to_board, ending_buttons, render_review, render_share
from bot.render.game import play_ack, render_game
from bot.render.lifecycle import render_confirm_start, render_kept, render_welcome
from bot.render.owner import owner_text
from bot.render.replies import (
    daily_notice,
    error_text,
    render_leaderboard,
    render_rules,
    render_settings,
    render_stats,
    text_pointer,
)
from bot.render.rounds import render_round, render_watch
from bot.render.view import View


def draw(content: Shown, locale: str, abilities: Abilities = PLAIN, *, named: bool = False, elsewhere: bool = False,
         replay: str | None = "", link: str | None = None, commands: Sequence[tuple[str, str]] = ()) -> View:
    """The message showing ``content`` in ``locale``, as a platform with ``abilities`` shows it (a shared result's
    button starts its deal as a challenge where anyone's tap reaches the bot; the settings offer the picture board
    where a board may be a picture; a board's header keeps its lines through the game where the platform shows its
    counters under the buttons: :func:`bot.render.game.render_game`). ``named``: a board in a server or group
    carries its player's name; ``elsewhere``: the question's game has its board in another chat; ``replay`` and
    ``link``: how a shared result's reader deals the same cards here (a command, or None; a link button);
    ``commands``: the platform's commands and what each does, listed under the help."""
    match content:
        case Board(snapshot, latest):
            return render_game(snapshot, locale, snapshot.settings, owner_label=named, latest=latest,
                               fixed_header=abilities.fixed_header)
        case Question(current, request):
            return render_confirm_start(current, request, locale, elsewhere=elsewhere)
        case Kept():
            return render_kept(locale)
        case ReviewOf(snapshot, review, in_board):
            view = render_review(snapshot, review, locale)
            if in_board is None:
                return view
            tr = translator(locale)  # in place of the board: Back to it, and its own buttons
            buttons = (back_to_board(snapshot.game_id, tr),), *ending_buttons(in_board.snapshot, tr,
                                                                              latest=in_board.latest)
            return dataclasses.replace(view, buttons=buttons)
        case ShareOf(snapshot):
            return render_share(snapshot, locale, replay=replay, url=link, challenge=abilities.challenge)
        case SettingsOf(settings, in_board):
            view = render_settings(settings, locale, pictures=abilities.pictures)
            if in_board is None:
                return view
            return dataclasses.replace(view, buttons=((back_to_board(in_board, translator(locale)),), *view.buttons))
        case StatsOf(stats):
            return render_stats(stats, locale)
        case RulesOf(_, play):
            return render_rules(locale, play=play)
        case HelpOf():
            rules = render_rules(locale)
            listed = "\n".join(f"/{name} - {description}" for name, description in commands)
            return dataclasses.replace(rules, status=f"{rules.status}\n\n{listed}" if listed else rules.status)
        case WelcomeOf():
            return render_welcome(locale)
        case LeaderboardOf(day, results, _, standing):
            return render_leaderboard(day, results, locale, standing=standing)
        case ChallengeAnswered(shared, answer):
            return render_answered(shared, answer, locale)
        case RoundOf(round):
            return render_round(round, locale)
        case RoundWatched():
            return render_watch(content, locale)
        case unhandled:
            assert_never(unhandled)


def line(content: Note, locale: str, new_command: str | None) -> str:
    """The one line of ``content`` in ``locale``; ``new_command`` is how a player starts a game here (None: the
    table's 🆕 button)."""
    match content:
        case Problem(error):
            return error_text(error, locale, new_command)
        case PlayAck(snapshot):
            return play_ack(snapshot, locale)
        case NoticeOf(notice, _, post_time):
            return daily_notice(notice, locale, post_time)
        case PointerOf():
            return text_pointer(locale)
        case OwnerAnswer(result):
            return owner_text(result, locale)
        case unhandled:
            assert_never(unhandled)
