"""``compose.yaml`` without a Docker engine: read as Compose reads it (YAML with its merge
keys and ``${VAR}`` interpolation), it runs PostgreSQL 15 with a named volume and a health
check, and two bots of the image the Dockerfile builds, on shards 0 and 1 of two, whose
settings the bot accepts and which start once the database is healthy."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text("utf-8"))
SERVICES: dict[str, Any] = COMPOSE["services"]
BOTS = {name: service for name, service in SERVICES.items() if name.startswith("bot")}
GIVEN = {"DISCORD_TOKEN": "token-from-the-shell", "POSTGRES_PASSWORD": "s3cret"}
"""What the environment of ``docker compose up`` gives."""
VARIABLE = re.compile(r"\$\{(\w+)(?::?[?-][^}]*)?\}")


def interpolated(value: str, env: dict[str, str]) -> str:
    """A value as Compose reads it: ``${NAME}``, ``${NAME:?message}`` (required) and
    ``${NAME:-default}`` taken from ``env``."""
    def one(match: re.Match[str]) -> str:
        name, rest = match[1], match[0][len(match[1]) + 2:-1]
        if name in env:
            return env[name]
        if rest.startswith((":-", "-")):
            return rest.lstrip(":-")
        raise KeyError(f"{name} is required: {rest}")
    return VARIABLE.sub(one, value)


def environment(service: dict[str, Any], env: dict[str, str] = GIVEN) -> dict[str, str]:
    return {k: interpolated(str(v), env) for k, v in service["environment"].items()}


def test_the_services_are_a_database_and_two_bots() -> None:
    assert set(SERVICES) == {"db", "bot-0", "bot-1"}


def test_the_database_is_postgresql_15_on_a_named_volume_with_a_health_check() -> None:
    db = SERVICES["db"]
    assert db["image"] == "postgres:15"
    [volume] = db["volumes"]
    name, _, mounted = volume.partition(":")
    assert mounted == "/var/lib/postgresql/data", "where the image keeps its data"
    assert name in COMPOSE["volumes"] and not name.startswith((".", "/")), "a named volume"
    check = db["healthcheck"]
    assert check["test"][0] == "CMD" and check["test"][1] == "pg_isready"
    env = environment(db)
    assert f"--username={env['POSTGRES_USER']}" in check["test"]
    assert f"--dbname={env['POSTGRES_DB']}" in check["test"]
    assert check["retries"] >= 3 and check["interval"] and check["start_period"]
    assert env["POSTGRES_PASSWORD"] == GIVEN["POSTGRES_PASSWORD"], "from the environment"


def test_both_bots_are_the_image_the_dockerfile_builds() -> None:
    assert len(BOTS) == 2
    for bot in BOTS.values():
        assert bot["build"] == "." and (ROOT / "Dockerfile").is_file()
        assert "command" not in bot and "entrypoint" not in bot, "the image runs the bot"
        assert "healthcheck" not in bot, "the image's own: python -m bot health"
        assert bot["restart"] == "unless-stopped"
    assert len({bot["image"] for bot in BOTS.values()}) == 1


def test_the_bots_start_once_the_database_is_healthy() -> None:
    for bot in BOTS.values():
        assert bot["depends_on"] == {"db": {"condition": "service_healthy"}}


def test_the_bots_split_two_shards_over_the_shared_database() -> None:
    db = environment(SERVICES["db"])
    settings = {name: Settings.from_env(environment(bot)) for name, bot in BOTS.items()}
    assert {s.shard_count for s in settings.values()} == {2}
    ids = sorted(shard for s in settings.values() for shard in s.shards_here)
    assert ids == [0, 1], "each shard in exactly one process"
    assert [name for name, s in settings.items() if s.syncs_commands] == ["bot-0"], \
        "one process uploads the slash commands: shard 0's"
    for s in settings.values():
        url = urlsplit(str(s.database))
        assert (url.scheme, url.hostname, url.port) == ("postgresql", "db", 5432)
        assert url.hostname in SERVICES, "the database service, by its name"
        assert (url.username, url.password, url.path) == (
            db["POSTGRES_USER"], db["POSTGRES_PASSWORD"], "/" + db["POSTGRES_DB"])
        assert s.token == GIVEN["DISCORD_TOKEN"]


def test_the_token_and_the_password_come_from_the_environment_only() -> None:
    text = (ROOT / "compose.yaml").read_text("utf-8")
    for bot in BOTS.values():
        assert VARIABLE.fullmatch(bot["environment"]["DISCORD_TOKEN"])
    for name in GIVEN:
        missing = {k: v for k, v in GIVEN.items() if k != name}
        with pytest.raises(KeyError, match=f"{name} is required"):
            environment(BOTS["bot-0"], missing)
    assert "s3cret" not in text and "token-from-the-shell" not in text
