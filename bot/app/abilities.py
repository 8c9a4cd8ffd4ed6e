"""What each platform can do, by place, stated once: the flow decides by it (:class:`~bot.app.commands.Surface`
carries it), the renderer draws by it (:func:`bot.render.effects.draw`), and each executor routes its messages by
it. A Telegram private chat and group differ (the settings and a review take the board's place in the one; what is
the player's alone goes to their private chat from the other); so do a Discord DM and a server's channel.

=================  =================  ===============  ==============  ===========  =======  ======
ability            Telegram private   Telegram group   Discord DM      Discord      console  table
                                                                       server
=================  =================  ===============  ==============  ===========  =======  ======
shared             no                 yes              no              yes          no       no
toasts             yes                yes              no              no           no       no
ephemeral          no                 no               yes             yes          no       no
in_place           yes                no               no              no           no       no
reuse              yes                yes              no              no           no       no
pictures           yes                yes              yes             yes          no       yes
challenge          no                 no               yes             yes          no       no
fixed_header       no                 no               yes             yes          no       no
verdict_wait       none               none             none            none         10 s     none
=================  =================  ===============  ==============  ===========  =======  ======
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Abilities:
    """What a platform can do in one kind of place.

    ``shared``: many read the place (a group, a server's channel): a board there carries its player's name, and the
    ranked daily attempt is kept out of it. ``toasts``: a tap is answered with a short line over the chat (Telegram's
    callback answer), which says what the tap did. ``ephemeral``: a message only the player sees, in any place (a
    Discord interaction's). ``in_place``: the settings and a review may take the board's place in its own message,
    with a way back to the board (nothing new pushes the board off a phone's screen). ``reuse``: a tapped question
    is a message in the chat, which may be redrawn into the new game's board. ``pictures``: a board may be a
    picture (the settings offer it). ``challenge``: anyone's tap on a button reaches the bot, so a shared result's
    button starts its deal as a challenge. ``fixed_header``: the platform shows a board's counters under its buttons,
    so the header keeps its lines through the game (:func:`bot.render.game.render_game`). ``verdict_wait``: how
    long a finished game waits for the solver's verdict on its deal before it is shown (the console, whose board is
    printed once)."""

    shared: bool = False
    toasts: bool = False
    ephemeral: bool = False
    in_place: bool = False
    reuse: bool = False
    pictures: bool = True
    challenge: bool = False
    fixed_header: bool = False
    verdict_wait: float | None = None

    @property
    def private_routing(self) -> bool:
        """What only the player may see, asked for here, goes to their private chat with the bot: the place is
        shared and the platform cannot show a message there to one member alone (a Telegram group)."""
        return self.shared and not self.ephemeral


#: Nothing particular: the tests' surface.
PLAIN = Abilities()
TELEGRAM_PRIVATE = Abilities(toasts=True, in_place=True, reuse=True)
TELEGRAM_GROUP = Abilities(shared=True, toasts=True, reuse=True)
DISCORD_DM = Abilities(ephemeral=True, challenge=True, fixed_header=True)
DISCORD_SERVER = dataclasses.replace(DISCORD_DM, shared=True)
CONSOLE = Abilities(pictures=False, verdict_wait=10.0)
#: The table in the browser: its board is redrawn on the page itself.
TABLE = Abilities()


def telegram(group: bool) -> Abilities:
    """Telegram's abilities in a group (or a place Telegram does not say) or a private chat."""
    return TELEGRAM_GROUP if group else TELEGRAM_PRIVATE


def discord(server: bool) -> Abilities:
    """Discord's abilities in a server's channel or a DM."""
    return DISCORD_SERVER if server else DISCORD_DM
