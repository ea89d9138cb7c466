"""What the table wants Discord to show, as plain values: posts, pictures, the desired state.

Kept apart from the code that works them out (:mod:`bot.table.live`, :mod:`bot.table.cards`,
:mod:`bot.table.screens`) so that the render pool and the adapter can name a :class:`Picture`
or a :class:`Post` without the table's logic.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from bot.constants import EMBED_COLOUR
from bot.games import Component, component_key
from bot.table.private import Prompt


@dataclass(frozen=True)
class Embed:
    title: str
    description: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    image: str | None = None
    """An attachment shown inside the embed: the table's posts leave it out (an embed's image
    is shown small; the board is the message's own attachment, at its full width)."""
    colour: int = EMBED_COLOUR


@dataclass(frozen=True)
class Picture:
    """A PNG to attach: ``key`` names what it shows; ``art(*args, **kwargs)`` draws it, only
    when the key changed. ``art`` is a module-level function of ``render`` and the arguments
    plain data, so that a worker process can draw it (:mod:`bot.table.pool`)."""

    filename: str
    key: str
    art: Callable[..., bytes | None] = field(compare=False, repr=False)
    args: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    kwargs: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    stream: tuple[int, str] = field(default=(0, ""), compare=False)
    """The game and the picture's place in it (``board``, a seat's screen): the render pool
    draws each stream's pictures in one worker, whose cache then holds the bands of that
    stream's previous picture (and the pictures of one move spread over the workers)."""

    def draw(self) -> bytes | None:
        """The PNG, drawn here and now (None: nothing to show)."""
        return self.art(*self.args, **self.kwargs)


@dataclass(frozen=True)
class Post:
    """One Discord message as the table wants it."""

    content: str = ""
    embed: Embed | None = None
    picture: Picture | None = None
    components: tuple[Component, ...] = ()
    mentions: tuple[int, ...] = ()
    """Users this message may ping (only pings do)."""
    attachment: tuple[str, str] | None = None
    """A text file (name, content): the game record at the end."""
    seq: int = 0
    """The action count the components belong to (a click on an older one is refused)."""

    def digest(self) -> str:
        """What the message shows, as a short hash: equal digests need no edit. Worked out
        once per post (a post never changes; the outbox compares it, then stores it)."""
        found: str | None = self.__dict__.get("_digest")
        if found is None:
            found = digest_of(self.content, self.embed.__dict__ if self.embed else None,
                            self.picture.key if self.picture else None,
                            component_key(self.components), self.seq,
                            self.attachment[0] if self.attachment else None)
            object.__setattr__(self, "_digest", found)
        return found


@dataclass(frozen=True)
class Private:
    """What one human seat should have in its DMs."""

    colour: str
    user_id: int
    screen: Post | None
    prompt: Prompt | None
    turn: Post | None = None
    """A "your turn" DM (``/game notify``): sent once per ``turn_key``."""
    turn_key: str = ""


@dataclass(frozen=True)
class Desired:
    game_id: int
    status: str
    lobby: Post
    stage: str = ""
    """``<stage key>|<first seq of the stage>``; empty while there is no live table."""
    live: Post | None = None
    ping: Post | None = None
    dm_note: Post | None = None
    privates: tuple[Private, ...] = ()
    final: Post | None = None


Renderer = Callable[..., bytes]

def digest_of(*parts: Any) -> str:
    """A short hash of ``parts`` (views, names, keys) as JSON with sorted keys: orjson writes it
    several times faster than ``json`` (which takes what orjson cannot, an integer past 64
    bits)."""
    try:
        data = orjson.dumps(parts, default=list,
                            option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        data = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=list).encode()
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()

