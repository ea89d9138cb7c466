"""The Discord locale each user's interactions carry (a pytest plugin, named by
``tests/conftest.py``): ``locales[user_id] = "de"`` makes that user's commands and clicks
arrive in German; others arrive in ``en-US``."""

from __future__ import annotations

from typing import Any

import pytest
import simcord
import simcord.interactions


@pytest.fixture
def locales(monkeypatch: pytest.MonkeyPatch) -> dict[int, str]:
    """User id -> the Discord locale their interactions carry (others: ``en-US``)."""
    chosen: dict[int, str] = {}
    original = simcord.interactions.base_payload

    def base_payload(backend: Any, *, user_id: int, **more: Any) -> tuple[Any, dict[str, Any]]:
        record, payload = original(backend, user_id=user_id, **more)
        if user_id in chosen:
            payload["locale"] = chosen[user_id]
        return record, payload

    monkeypatch.setattr(simcord.interactions, "base_payload", base_payload)
    return chosen
