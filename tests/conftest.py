"""Shared test settings: hypothesis profiles sized for CI (two cores, well under 30 minutes).

No example database: the suite runs in parallel workers, and examples saved by one run would
change what the next run tries (and would be written into the checkout)."""

import pytest
from hypothesis import HealthCheck, settings

pytest.register_assert_rewrite("tests.helpers")
"""The helpers' ``assert``s explain a failure as well as a test's own do."""

pytest_plugins = ["tests.helpers.pg_server", "tests.helpers.stores", "tests.helpers.bots",
                  "tests.helpers.locales"]
"""A PostgreSQL server for the tests marked ``postgres``; the ``backend`` and ``store``
fixtures of the tests that run on both backends; the bot that simcord drives (``settings``,
``new_bot``, ``simcord_bot``) and the ``locales`` of its users. A module's own fixture of
the same name wins."""

settings.register_profile(
    "ci", max_examples=60, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """``pytest -p no:xdist`` runs the suite in one process: the addopts' ``--numprocesses``
    and ``--dist`` (pytest-xdist's) are then accepted and mean nothing."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist", "parallel runs (pytest-xdist is disabled)")
    group.addoption("--numprocesses", dest="numprocesses", default=None,
                    help="ignored without pytest-xdist")
    group.addoption("--dist", dest="dist", default="no", help="ignored without pytest-xdist")
