"""What the report counts from the simulator's record of requests: posts, images, edits, DMs,
mentions, the texts the bot sent, and the components still live at the end."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import discord

from bot.games._ui import CHOICE_SEPARATOR
from scripts.tables import touch
from scripts.tables.humans import Table, enabled


def sent_texts(env: Any) -> list[str]:
    """Every text the bot sent or edited in, in order: contents, embeds, component labels and
    placeholders, select options and autocomplete choices."""
    out: list[str] = []
    for entry in env.http_requests:
        if entry.method not in ("POST", "PATCH") or not isinstance(entry.json, dict):
            continue
        _texts_of(entry.json, out)
    return out


_TEXT_FIELDS = ("content", "title", "description", "name", "value", "label", "placeholder",
                "text")


def _texts_of(node: Any, out: list[str], parent: str = "") -> None:
    """The shown texts of a payload: an embed field's value is shown, a select option's or an
    autocomplete choice's value is not; a choice's name ends with the notation it stands for
    (marked as notation here, as Discord shows no backticks in a choice)."""
    if isinstance(node, dict):
        for key, value in node.items():
            shown = key in _TEXT_FIELDS and (key != "value" or parent == "fields")
            if shown and isinstance(value, str) and value:
                if parent == "choices" and key == "name" and value != node.get("value"):
                    words, _, notation = value.rpartition(CHOICE_SEPARATOR)
                    value = f"{words}{CHOICE_SEPARATOR}`{notation}`" if words else value
                out.append(value)
            elif isinstance(value, dict | list):
                _texts_of(value, out, key)
    elif isinstance(node, list):
        for item in node:
            _texts_of(item, out, parent)


def game_of(lobby: discord.Message) -> int:
    for row in lobby.components:
        for c in row.children:
            match = re.match(r"lobby:(\d+):", c.custom_id or "")
            if match:
                return int(match[1])
    raise RuntimeError("the lobby has no buttons")


def summary(env: Any, table: Table, channel: Any, members: list[Any], view: dict[str, Any],
            finished: bool) -> dict[str, Any]:
    places = {p.id for p in table.places()}
    dm_of = {m.user.dm_channel.id: m for m in members}
    posts = images = edits = 0
    dms: Counter[str] = Counter()
    mentions: Counter[str] = Counter()
    for entry in env.http_requests:
        path, body = entry.path, entry.json if isinstance(entry.json, dict) else {}
        parts = path.strip("/").split("/")
        if entry.method == "PATCH" and "messages" in parts:
            edits += 1
            continue
        created = entry.method == "POST" and len(parts) == 3 and parts[0] == "channels" \
            and parts[2] == "messages"
        callback = entry.method == "POST" and parts[-1] == "callback" and body.get("type") == 4 \
            and not (body.get("data") or {}).get("flags", 0) & 64
        if (created and int(parts[1]) in places) or callback:
            posts += 1
            files = [a.get("filename") for a in body.get("attachments") or []]
            images += "board.png" in files
        elif created and int(parts[1]) in dm_of:
            dms[dm_of[int(parts[1])].name] += 1
        if created or callback:
            data = body.get("data", body) if callback else body
            allowed = data.get("allowed_mentions") or {}
            for member in members:
                if f"<@{member.id}>" in (data.get("content") or "") and (
                        "users" in allowed.get("parse", []) or str(member.id) in
                        [str(u) for u in allowed.get("users", [])]):
                    mentions[member.name] += 1
    remaining = table.table_messages()
    stale = sum(enabled(m) for m in remaining) + sum(
        enabled(m) for member in members for m in table.dm_messages(member))
    rounds = max(int(view.get("round") or 1), 1)
    return {"finished": finished, "rounds": view.get("round"),
            "channel_messages": len(remaining), "channel_posts": posts,
            "channel_images": images, "edits": edits,
            "dms": {m.name: dms[m.name] for m in members},
            "mentions": {m.name: mentions[m.name] for m in members},
            "live_component_messages_max": table.live_max,
            "stale_components_at_end": stale, "human_actions": table.actions,
            "gestures": table.gestures, "typed": table.typed,
            "taps_per_decision_p50": touch.percentile(table.taps, 0.5),
            "taps_per_decision_p95": touch.percentile(table.taps, 0.95),
            "per_round": {"channel_messages": round(len(remaining) / rounds, 2),
                          "channel_images": round(images / rounds, 2),
                          "dms_most": round(max(dms.values(), default=0) / rounds, 2),
                          "mentions_most": round(max(mentions.values(), default=0) / rounds, 2)}}
