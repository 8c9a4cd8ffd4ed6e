"""The one renderer: game state, locale and settings in, a platform-neutral view model out; no re-exports, import
from the module that does the job:

- :mod:`bot.render.view`: the :class:`~bot.render.view.View` model (buttons carry typed commands), the platforms'
  limits, plain text;
- :mod:`bot.render.tableau`: cards on buttons and the compact monospace tableau;
- :mod:`bot.render.game`: the game message (header, tableau, status, buttons), the answer to a card played by name;
- :mod:`bot.render.endings`: a finished game's lines and buttons, the review, the shared result;
- :mod:`bot.render.lifecycle`: the welcome, the question before a game in progress is abandoned, keeping it;
- :mod:`bot.render.replies`: rules, statistics, daily post and leaderboard, settings, errors;
- :mod:`bot.render.commands`: command names and descriptions;
- :mod:`bot.render.effects`: the contents of the game flow's effects (:mod:`bot.app.effects`) drawn for an executor;
- :mod:`bot.render.platforms`: how Discord and Telegram lay a view's buttons out on a phone (rows, labels, colours);
- :mod:`bot.render.console`: how the console shows a view in a terminal (keys, text wrapped, colours); both shared by
  the adapters and ``tripeaks show``.
"""
