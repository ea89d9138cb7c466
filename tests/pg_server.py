"""A real PostgreSQL server for the tests marked ``postgres``: started once per test process
(each pytest-xdist worker gets its own, in its own folder) with ``initdb`` and ``pg_ctl``,
listening on a Unix socket only (no TCP port to collide on), and stopped at the end.

Each test gets a fresh, empty database (:func:`pg_url`), dropped after it. As root the server
runs as an unprivileged user (``postgres`` when it exists, else ``nobody``): PostgreSQL refuses
to run as root. When no PostgreSQL 15 or newer is installed the fixture fails, naming what to
install; it never skips (CI installs it, see ``.ci/run``).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import asyncpg
import pytest

SUPERUSER = "postgres"
"""The server's superuser, whoever runs it (``initdb --username``)."""
OLDEST = 15
SEARCHED = (Path("/usr/lib/postgresql"),)
"""Where Debian and Ubuntu put each version's programs (``<folder>/<major>/bin``), not on PATH."""
MISSING = ("PostgreSQL {oldest} or newer is needed for the tests marked postgres, and no initdb "
           "and pg_ctl of that version were found on PATH or under /usr/lib/postgresql/*/bin "
           "({found}). Install it (Debian: apt-get install -y postgresql; .ci/run does that "
           "when it is missing).")


def _major(initdb: Path) -> int | None:
    try:
        out = subprocess.run([str(initdb), "--version"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"\(PostgreSQL\)\s+(\d+)", out)
    return int(found[1]) if found else None


def find_binaries() -> Path:
    """The folder of a PostgreSQL's ``initdb``, ``pg_ctl`` and ``postgres``: version 15 when
    it is installed, else the newest one from 15 on (PATH first, then the versioned folders).
    Fails the test with what to install when there is none."""
    candidates: list[Path] = []
    for folder in SEARCHED:
        if folder.is_dir():
            versions = sorted((p for p in folder.iterdir() if p.name.isdecimal()),
                              key=lambda p: int(p.name), reverse=True)
            candidates += [v / "bin" for v in versions]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.insert(0, Path(on_path).resolve().parent)
    found = []
    usable = {}
    for folder in candidates:
        if not all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            continue
        major = _major(folder / "initdb")
        found.append(f"{folder}: {major}")
        if major is not None and major >= OLDEST:
            usable.setdefault(major, folder)
    if not usable:
        pytest.fail(MISSING.format(oldest=OLDEST, found="; ".join(found) or "none"),
                    pytrace=False)
    return usable[OLDEST] if OLDEST in usable else usable[max(usable)]


def _runner() -> tuple[list[str], pwd.struct_passwd | None]:
    """The command prefix that runs the server's programs unprivileged, and the user it runs
    them as (nothing and None unless root)."""
    if os.geteuid() != 0:
        return [], None
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        if shutil.which("runuser"):
            return ["runuser", "-u", name, "--"], user
        if shutil.which("setpriv"):
            return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                    "--init-groups", "--"], user
        pytest.fail("running as root, and neither runuser nor setpriv is there to run the "
                    f"test server as {name}", pytrace=False)
    pytest.fail("running as root, and neither a postgres nor a nobody user exists to run "
                "the test server as", pytrace=False)


@dataclass
class Server:
    """A running test server: its folder, socket folder and programs."""

    folder: Path
    bin: Path
    prefix: list[str]
    names: Iterator[int]

    @property
    def socket_dir(self) -> Path:
        return self.folder

    def url(self, database: str) -> str:
        """A URL the store accepts for one database of this server (over its socket)."""
        return (f"postgresql:///{database}?host={quote(str(self.socket_dir), safe='')}"
                f"&user={SUPERUSER}")

    def run(self, *args: str) -> None:
        result = subprocess.run([*self.prefix, *args], capture_output=True, text=True,
                                timeout=120, check=False)
        if result.returncode:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            pytest.fail(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}"
                        f"{result.stderr}\n{tail}", pytrace=False)

    def start(self) -> None:
        data = self.folder / "data"
        self.run(str(self.bin / "initdb"), "-D", str(data), f"--username={SUPERUSER}",
                 "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
        options = " ".join((
            "-c listen_addresses=''", f"-c unix_socket_directories='{self.socket_dir}'",
            "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
            "-c max_connections=200", "-c shared_buffers=32MB"))
        self.run(str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(self.folder / "server.log"),
                 "-o", options, "-w", "-t", "120", "start")

    def stop(self) -> None:
        self.run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate",
                 "-w", "stop")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """One server for this test process, in a folder of its own under the system's temporary
    folder (short enough for a socket path, and open to the server's user)."""
    binaries = find_binaries()
    prefix, user = _runner()
    folder = Path(tempfile.mkdtemp(prefix="rapanui-pg-"))
    try:
        if user is not None:
            os.chown(folder, user.pw_uid, user.pw_gid)
        server = Server(folder, binaries, prefix, itertools.count(1))
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _admin(server: Server, sql: str) -> None:
    db = await asyncpg.connect(server.url("postgres"))
    try:
        await db.execute(sql)
    finally:
        await db.close()


@pytest.fixture
async def pg_url(pg_server: Server) -> AsyncIterator[str]:
    """A fresh, empty database on the test server, dropped after the test (with any
    connection a test left open)."""
    name = f"test_{os.getpid()}_{next(pg_server.names)}"
    await _admin(pg_server, f"CREATE DATABASE {name}")
    try:
        yield pg_server.url(name)
    finally:
        await asyncio.shield(_admin(pg_server, f"DROP DATABASE {name} WITH (FORCE)"))
