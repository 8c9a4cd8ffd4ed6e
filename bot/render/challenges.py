"""A challenge seen from both sides: the score to beat on the board of a game started from one, and what the
challenger is told when a game started from their challenge has ended (:class:`~bot.app.effects.Tell`):
who took it up, on which deal, and how the two scores compare, from the challenger's side."""

from __future__ import annotations

from bot.app.model import Challenge, GameSnapshot
from bot.i18n import Translator, translator
from bot.render.endings import compared_line, deal_name
from bot.render.view import OWNER_COLUMNS, View, display_width, named_title, owner_name

#: The widest the score to beat is, in display columns: a header's line under Discord's heading, the narrowest place
#: one is shown (``bot.render.platforms.DISCORD_TEXT_COLUMNS``; tests/test_phone_width.py checks it in every language).
TO_BEAT_COLUMNS = 30


def to_beat(challenge: Challenge, tr: Translator) -> str:
    """The score to beat, in the header of a game started from ``challenge``, with whose it is (the name cut to fit
    the header's line)."""
    if challenge.finished:
        # TRANSLATORS: in the header of a game started from a friend's challenge: the friend's final score, to
        # beat; {name} is the friend (cut to fit a phone's line: keep the words short)
        template = tr.gettext("To beat: {score} ({name})")
    else:
        # TRANSLATORS: as "To beat: {score} ({name})", while the friend is still playing the deal: their score now
        template = tr.gettext("To beat: {score} so far ({name})")
    room = TO_BEAT_COLUMNS - display_width(template.format(score=challenge.score, name=""))
    return template.format(score=challenge.score, name=owner_name(challenge.name, max(min(room, OWNER_COLUMNS), 5)))


def render_answered(shared: GameSnapshot, answer: GameSnapshot, locale: str) -> View:
    """The message to ``shared``'s player: ``answer``, a game started from their challenge, has ended."""
    tr = translator(locale)
    name = " ".join(answer.owner_name.split()) or "?"
    # TRANSLATORS: a title, over what a player is told when a friend ({name}) has played the deal the player
    # challenged them to; the friend's result follows. At most 24 columns with the name
    header = named_title(tr.pgettext("title", "You vs {name}"), answer.owner_name)
    if shared.game.is_over:
        compared = compared_line(shared.game.score, name, answer.game.score, tr)
    else:
        # TRANSLATORS: told to a player whose challenge a friend ({name}) has played to the end while the player's
        # own game of that deal goes on; {score} is the friend's final score
        compared = tr.gettext("{name}'s final score: {score}; your game goes on").format(
            name=name, score=answer.game.score)
    return View(header=header, status=f"{deal_name(shared, tr)}\n{compared}")
