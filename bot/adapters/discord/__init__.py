"""The Discord adapter: ``/tripeaks`` slash commands and card buttons on discord.py.

Inside this package ``import discord`` is the library (absolute imports); the package itself is ``bot.adapters.discord``.
"""

from __future__ import annotations

from bot.adapters.discord.client import ShardedTriPeaksBot, TriPeaksBot, build_bot

__all__ = ["ShardedTriPeaksBot", "TriPeaksBot", "build_bot"]
