"""Slash command and option names and descriptions (Discord's command tree, Telegram's command menu)."""

from __future__ import annotations

from bot.i18n import N_, translator
from bot.render.game import RULE_NAMES
from core.deal import Rules

#: Descriptions for slash commands (Discord, at most 100 characters); Telegram's command menu has
#: :data:`TELEGRAM_DESCRIPTIONS`, the same in its own words where a description names a place (a server, a group).
COMMAND_DESCRIPTIONS: dict[str, str] = {
    "tripeaks": N_("Play TriPeaks solitaire"),
    "new": N_("Start a new game, or replay a deal from its code"),
    "resume": N_("Show your game in progress"),
    "daily": N_("Play today's deal, the same for everyone"),
    "play": N_("Play a free card by its name, such as 7h = 7♥ or QS = Q♠"),
    "rules": N_("How to play TriPeaks"),
    "help": N_("How to play TriPeaks, and the commands"),
    "stats": N_("Your games, wins, best score and streaks"),
    # TRANSLATORS: the settings command: what it sets (the board shown as a picture or as text, and the
    # picture's four-colour deck)
    "settings": N_("Language, rules for new games, explanations, board (picture or text), four-colour deck"),
    "leaderboard": N_("Today's daily leaderboard for this server; in DMs, your place"),
    "subscribe": N_("Post the daily deal here every day (administrators)"),
    "unsubscribe": N_("Stop posting the daily deal here (administrators)"),
    "winnable": N_("Only deals that can be won: on or off"),
    "start": N_("Welcome, with buttons to play"),
    # TRANSLATORS: the command that starts a live round in a group or a server's channel
    "round": N_("Start a live round here: everyone plays the same deal against the clock"),
    # TRANSLATORS: Discord's command that answers with the player's own link to their board in the browser
    "board": N_("Open your game's board in the browser: a link only you can use"),
    # TRANSLATORS: Discord's command for the bot's owner (who runs it), hidden from other members
    "owner": N_("For the bot's owner: its figures, a notice to players, blocked accounts"),
    # TRANSLATORS: Discord: the owner's subcommand showing the whole bot's figures
    "owner-stats": N_("The whole bot's figures: players, games, backlog"),
    # TRANSLATORS: Discord: the owner's subcommand setting a notice every player sees under their boards
    "owner-notice": N_("A notice every player sees under their boards (off: none)"),
    # TRANSLATORS: Discord: the owner's subcommand refusing an account's commands from now on
    "owner-block": N_("Refuse an account's commands from now on"),
    # TRANSLATORS: Discord: the owner's subcommand undoing a block
    "owner-unblock": N_("Let a blocked account play again"),
}

#: Telegram's command menu: :data:`COMMAND_DESCRIPTIONS` with Telegram's words (a group, not a server).
TELEGRAM_DESCRIPTIONS: dict[str, str] = COMMAND_DESCRIPTIONS | {
    "leaderboard": N_("Today's daily leaderboard for this group; in a private chat, your place"),
}

_DESCRIPTIONS = {"discord": COMMAND_DESCRIPTIONS, "telegram": TELEGRAM_DESCRIPTIONS}

#: Descriptions for command options (Discord, at most 100 characters).
OPTION_DESCRIPTIONS: dict[str, str] = {
    "code": N_("A game code such as TP1-E-AAAAAAB, to replay that deal"),
    # TRANSLATORS: the option choosing Easy or Classic for a new game
    "rules": N_("Easy (King and Ace adjacent) or Classic"),
    "card": N_("The card to play, such as 7h = 7♥, 10s = 10♠ or QS = Q♠"),
    # TRANSLATORS: the option asking for a deal the solver proved can be won
    "winnable": N_("Only a deal that can be won (default: your setting)"),
    # TRANSLATORS: the option of the round command: how long the round lasts
    "minutes": N_("How long the round lasts: 1 to 60 minutes (default 5)"),
    # TRANSLATORS: the option of the owner's notice command; "off" stays in English (it is what to type)
    "notice": N_("The notice, up to 120 characters; off to clear it"),
    # TRANSLATORS: the option of the owner's block commands; the example stays as it is
    "account": N_("The account, such as discord:123456 or telegram:123456"),
}


def command_names(locale: str) -> dict[str, str]:
    """Slash command and option names in ``locale`` (Discord shows them in the player's language). Each is lower
    case letters, digits, ``-`` or ``_``, at most 32 characters; the group name ``tripeaks`` stays as it is."""
    tr = translator(locale)
    return {
        # TRANSLATORS: slash command and option names: one lower-case word (letters, digits, - or _), no spaces;
        # "new" starts a new game
        "new": tr.pgettext("command", "new"),
        # TRANSLATORS: the command that plays today's daily deal (one lower-case word)
        "daily": tr.pgettext("command", "daily"),
        # TRANSLATORS: the command that shows the game in progress again (one lower-case word)
        "resume": tr.pgettext("command", "resume"),
        # TRANSLATORS: the command that plays a card named by the player (one lower-case word)
        "play": tr.pgettext("command", "play"),
        # TRANSLATORS: the command that shows how to play (one lower-case word)
        "rules": tr.pgettext("command", "rules"),
        # TRANSLATORS: the command that shows the player's statistics (one lower-case word)
        "stats": tr.pgettext("command", "stats"),
        # TRANSLATORS: the command that opens the player's settings (one lower-case word)
        "settings": tr.pgettext("command", "settings"),
        # TRANSLATORS: the command that shows today's daily leaderboard (one lower-case word)
        "leaderboard": tr.pgettext("command", "leaderboard"),
        # TRANSLATORS: the command that has the daily deal posted in the channel every day (one lower-case word)
        "subscribe": tr.pgettext("command", "subscribe"),
        # TRANSLATORS: the command that stops the daily posts (one lower-case word)
        "unsubscribe": tr.pgettext("command", "unsubscribe"),
        # TRANSLATORS: the command that opens the player's board in the browser (one lower-case word)
        "board": tr.pgettext("command", "board"),
        # TRANSLATORS: the command that starts a live round in the channel (one lower-case word)
        "round": tr.pgettext("command", "round"),
        # TRANSLATORS: the option of "round": how many minutes it lasts (one lower-case word)
        "minutes": tr.pgettext("command", "minutes"),
        # TRANSLATORS: the option of "new": a game code (one lower-case word)
        "code": tr.pgettext("command", "code"),
        # TRANSLATORS: the option of "play": the card to play (one lower-case word)
        "card": tr.pgettext("command", "card"),
        # TRANSLATORS: the option of "new": only a deal that can be won (one lower-case word)
        "winnable": tr.pgettext("command", "winnable"),
    }


def command_description(command: str, locale: str, platform: str) -> str:
    """``command``'s description on ``platform`` (``discord`` or ``telegram``), in ``locale``."""
    return translator(locale).gettext(_DESCRIPTIONS[platform][command])


def option_description(option: str, locale: str) -> str:
    return translator(locale).gettext(OPTION_DESCRIPTIONS[option])


def rules_name(rules: Rules, locale: str) -> str:
    """The rule set's name: a choice of the ``rules`` option, and in the game's header."""
    return translator(locale).gettext(RULE_NAMES[rules])
