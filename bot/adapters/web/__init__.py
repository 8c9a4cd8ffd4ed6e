"""The table in the browser: a Telegram Mini App, a Discord "Open the table" link, the console's link. One more
adapter on the application's one door (:mod:`bot.adapters.web.server`)."""
