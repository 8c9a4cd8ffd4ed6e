"""The Telegram adapter on python-telegram-bot 22: commands and inline-keyboard play.

The flow is one way: a Telegram update becomes a service call (:mod:`bot.adapters.telegram.handlers`), the service returns a
snapshot, :mod:`bot.render` turns it into a platform-neutral view, and :mod:`bot.adapters.telegram.keyboard` maps that view
one to one onto an HTML message with an inline keyboard. :mod:`bot.adapters.telegram.app` builds the PTB ``Application`` and
runs it with long polling or a webhook.

This package is ``bot.adapters.telegram``; the library is ``telegram``. Modules here import both with absolute imports only.
"""
