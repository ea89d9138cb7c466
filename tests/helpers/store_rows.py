"""The fields a stored game is made from in the store tests, and the channel it lives in."""

from __future__ import annotations

CHANNEL = 100

FIELDS = dict(guild_id=1, game="makemake", options="", seed=3, creator_id=1, language="en",
              ai_level="random")
