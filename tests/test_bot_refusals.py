"""The one handler's wording of a refusal (``bot/adapter/answer.py``): what a site tells it rides
on the refusal, the innermost site's wins, and a listing may skip a game refused since.

The answers themselves, as users see them, are asserted end to end by the bot's tests (seats,
pace, hidden, play...); through simcord, a refusal that reached the tree's error handler would
fail them as an error."""

from __future__ import annotations

import pytest

from bot.adapter.answer import refusal_words, unless_refused, wording
from bot.host.sessions import Refusal
from render.i18n import t


def raised(error: Exception, *sites: dict[str, object]) -> Exception:
    """``error`` as it leaves the nested ``wording`` blocks of ``sites`` (outermost first)."""
    def go(level: int) -> None:
        if level == len(sites):
            raise error
        with wording(**sites[level]):  # type: ignore[arg-type]
            go(level + 1)
    with pytest.raises(type(error)) as caught:
        go(0)
    return caught.value


def test_a_stale_refusal_of_an_offered_move_says_the_choice_is_outdated() -> None:
    offered = raised(Refusal("bot.refuse.stale"), {"offered": True})
    typed = raised(Refusal("bot.refuse.stale"), {"offered": False})
    assert refusal_words(offered, 1, "en") == t("bot.refuse.stale_choice", "en")  # type: ignore[arg-type]
    assert refusal_words(typed, 1, "en") == t("bot.refuse.stale", "en")  # type: ignore[arg-type]
    assert t("bot.refuse.stale_choice", "en") != t("bot.refuse.stale", "en")


def test_the_innermost_site_words_the_refusal() -> None:
    error = raised(Refusal("bot.refuse.stale"), {"offered": False}, {"offered": True})
    assert refusal_words(error, 1, "en") == t("bot.refuse.stale_choice", "en")  # type: ignore[arg-type]


def test_a_refusal_without_a_site_is_worded_plainly() -> None:
    assert refusal_words(Refusal("bot.refuse.no_game"), 1, "es") == t("bot.refuse.no_game", "es")


def test_other_errors_pass_through_untouched() -> None:
    error = raised(KeyError("x"), {"offered": True})
    assert getattr(error, "wording", None) is None


async def test_a_listing_skips_a_game_refused_since() -> None:
    async def gone() -> int:
        raise Refusal("bot.refuse.no_game")

    async def there() -> int:
        return 7

    assert await unless_refused(gone()) is None
    assert await unless_refused(there()) == 7
