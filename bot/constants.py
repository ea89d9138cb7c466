"""Fixed numbers and identifiers of the Discord adapter, in one place."""

from __future__ import annotations

MAX_AUTOCOMPLETE = 25
"""Discord shows at most 25 autocomplete choices."""
SMALL_CHOICE = 5
"""A decision with at most this many legal actions gets buttons, whatever its kind."""
MAX_BUTTONS = 25
"""Five rows of five: the most buttons one message can carry."""
MAX_CONTENT = 2000
"""Discord's limit for a message's text."""
MAX_ECHO = 200
"""User input repeated in an answer is cut to this many characters."""
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELD = 1024
MAX_CUSTOM_ID = 100
MAX_ID = 2**63 - 1
"""The greatest id or count a custom_id may carry: the store's integers are signed 64-bit (so
are Discord's snowflakes); a larger one was never sent by the bot."""
MAX_LABEL = 80
MAX_OPTIONS = 25
MAX_MODAL_TEXT = 45
"""Discord's limit for a modal's title and a text input's label."""
BOARD_FILE = "board.png"
SCREEN_FILE = "screen.png"
STEP_FILE = "places.png"
"""The focus on the places a guided step is about, on the step's own message."""

REPEAT_SECONDS = 10.0
"""A typed move (``/play``, a DM) identical to the one the same player had played less than this
many seconds before is refused as a repeat: the same line sent twice. Buttons and ``/play``
suggestions carry the game's action count instead, and need no window."""
SEQ_MARK = "@"
"""What joins a ``/play`` suggestion's notation and the action count it was offered at
(``place B5 2 @17``): a move picked from an outdated list is refused as stale."""

LOG_LINES = 8
"""How many of the stage's latest log lines the live table shows."""
SEAT_LINES = 5
"""How many of the latest seat changes (left, removed, taken over) the lobby card shows."""
PING_AFTER = 180.0
"""Seconds without acting in a game after which a human who must act is pinged."""
RECONCILE_TICK = 60.0
"""Seconds between two reconciliations of every game (what a failed call missed)."""
PURGE_AFTER_DAYS = 30
"""Default days between the bot's removal from a server and the deletion of its games."""
ABSENT_STARTS = 3
ABSENT_DAYS = 2
"""A server with games that Discord leaves out of the bot's complete list of servers at a start
(its READY, every server loaded) is judged removed only once it was missing on at least
:data:`ABSENT_STARTS` starts spanning at least :data:`ABSENT_DAYS` days, never on one: one
start cannot tell a removal from a token of another application or Discord's passing fault.
Discord's own removal event (``on_guild_remove``) counts at once."""
RETRY_FIRST = 2.0
RETRY_MOST = 120.0
"""Backoff after a failed Discord call: doubles from the first to the most, per game."""
REFUSED_FIRST = 60.0
REFUSED_MOST = 3600.0
"""Seconds before a channel where Discord refused the bot a permission (403) is tried again:
doubles from the first to the most, per channel, until a call there succeeds or its
permissions change."""

CHECK_PAUSE = 0.05
"""Seconds between two games' checks against their logs after a start (in the background: a
start loads games from their snapshots)."""
HEARTBEAT = 30.0
"""Seconds between two heartbeats of a running bot in the store (``python -m bot health``)."""
HEARTBEAT_STALE = 3
"""A heartbeat older than this many intervals means the bot is down."""
OUTBOX_DRAIN = 3.0
"""Seconds a stopping bot waits for the outbox to finish what it is sending."""
CLOSE_WITHIN = 4.0
"""Seconds a stopping bot's close may take (the outbox's drain included) before the process
stops without it: well inside the 10 s Docker gives before it kills, and within 5 s of the
signal whatever Discord's state."""

INVITE_URL = ("https://discord.com/oauth2/authorize?client_id={application_id}"
              "&scope=bot+applications.commands&permissions={permissions}")

LOBBY_ID = r"lobby:(?P<game>[0-9]+):(?P<op>join|leave|ai|drop|start)"
TABLE_ID = r"t:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<op>[a-z]+)(?::(?P<arg>.*))?"
TABLE_SELECT_ID = r"ts:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<op>[a-z]+)(?::(?P<arg>.*))?"
PROMPT_ID = (r"p:(?P<game>[0-9]+):(?P<colour>[a-z]+):(?P<turn>[0-9]+):(?P<what>[a-z0-9]+)"
             r":(?P<state>[0-9.]*)")
PROMPT_SELECT_ID = "ps" + PROMPT_ID[1:]
OPEN_ID = r"hopen:(?P<game>[0-9]+)"
FORGET_ID = r"forget:(?P<user>[0-9]+)"
BID_MODAL_ID = "ggbid:{game}:{seq}"

NEEDED_PERMISSIONS = ("view_channel", "send_messages", "embed_links", "attach_files",
                      "read_message_history")
"""Without any of these a game cannot be shown in the channel: ``/game new`` refuses."""
THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")
"""Without these a game plays in its channel instead of a thread of its own."""

EMBED_COLOUR = 0x8B5A2B
"""Volcanic brown, for lobby and result embeds."""
