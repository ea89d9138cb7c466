"""A throwaway PostgreSQL server: ``initdb`` in a temporary folder, ``pg_ctl`` to start it on a
Unix socket only (no TCP port to collide on), stopped and deleted at the end. The tests marked
``postgres`` run on one (tests/helpers/pg_server.py) and so does the live benchmark on
PostgreSQL.

As root the server runs as an unprivileged user (``postgres`` when it exists, else ``nobody``):
PostgreSQL refuses to run as root. Without PostgreSQL 15 or newer, :class:`ServerError` says
what to install.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import asyncpg

SUPERUSER = "postgres"
"""The server's superuser, whoever runs it (``initdb --username``)."""
OLDEST = 15
SEARCHED = (Path("/usr/lib/postgresql"),)
"""Where Debian and Ubuntu put each version's programs (``<folder>/<major>/bin``), not on PATH."""
MISSING = ("PostgreSQL {oldest} or newer is needed (the tests marked postgres and the live "
           "benchmark on PostgreSQL start a server of their own), and no initdb and pg_ctl of "
           "that version were found on PATH or under /usr/lib/postgresql/*/bin ({found}). "
           "Install it (Debian: apt-get install -y postgresql; .ci/run does that when it is "
           "missing).")
SETTINGS = ("-c listen_addresses=''", "-c fsync=off", "-c synchronous_commit=off",
            "-c full_page_writes=off", "-c max_connections=200", "-c shared_buffers=32MB")
"""A server for tests and measurements: nothing it holds must survive a power loss."""


class ServerError(RuntimeError):
    """No usable PostgreSQL, or one of its programs failed (the message says which)."""


def _major(initdb: Path) -> int | None:
    try:
        out = subprocess.run([str(initdb), "--version"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"\(PostgreSQL\)\s+(\d+)", out)
    return int(found[1]) if found else None


def find_binaries(searched: Iterable[Path] = SEARCHED) -> Path:
    """The folder of a PostgreSQL's ``initdb``, ``pg_ctl`` and ``postgres``: version 15 when
    it is installed, else the newest one from 15 on (PATH first, then the versioned folders
    under ``searched``)."""
    candidates: list[Path] = []
    for folder in searched:
        if folder.is_dir():
            versions = sorted((p for p in folder.iterdir() if p.name.isdecimal()),
                              key=lambda p: int(p.name), reverse=True)
            candidates += [v / "bin" for v in versions]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.insert(0, Path(on_path).resolve().parent)
    found = []
    usable: dict[int, Path] = {}
    for folder in candidates:
        if not all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            continue
        major = _major(folder / "initdb")
        found.append(f"{folder}: {major}")
        if major is not None and major >= OLDEST:
            usable.setdefault(major, folder)
    if not usable:
        raise ServerError(MISSING.format(oldest=OLDEST, found="; ".join(found) or "none"))
    return usable[OLDEST] if OLDEST in usable else usable[max(usable)]


def runner() -> tuple[list[str], pwd.struct_passwd | None]:
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
        raise ServerError("running as root, and neither runuser nor setpriv is there to run "
                          f"the server as {name}")
    raise ServerError("running as root, and neither a postgres nor a nobody user exists to "
                      "run the server as")


@dataclass
class Server:
    """A server in ``folder`` (its data, log and socket), run with ``bin``'s programs."""

    folder: Path
    bin: Path
    prefix: list[str]

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
            raise ServerError(f"{' '.join(args)} failed ({result.returncode}):\n"
                              f"{result.stdout}{result.stderr}\n{tail}")

    def start(self) -> None:
        data = self.folder / "data"
        self.run(str(self.bin / "initdb"), "-D", str(data), f"--username={SUPERUSER}",
                 "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
        options = " ".join((*SETTINGS, f"-c unix_socket_directories='{self.socket_dir}'"))
        self.run(str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(self.folder / "server.log"),
                 "-o", options, "-w", "-t", "120", "start")

    def stop(self) -> None:
        self.run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate",
                 "-w", "stop")

    def pids(self) -> list[int]:
        """The server's processes now: the postmaster and every process it started."""
        pid_file = self.folder / "data" / "postmaster.pid"
        try:
            main = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return []
        found = [main]
        for entry in Path("/proc").iterdir():
            if not entry.name.isdecimal():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == main:
                found.append(int(entry.name))
        return found

    async def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        db = await asyncpg.connect(self.url("postgres"))
        try:
            await db.execute(f"CREATE DATABASE {name}")
        finally:
            await db.close()
        return self.url(name)


@contextmanager
def temporary_server(binaries: Path | None = None) -> Iterator[Server]:
    """A server started in a folder of its own under the system's temporary folder (short
    enough for a socket path, and open to the server's user), stopped and deleted after."""
    binaries = binaries or find_binaries()
    prefix, user = runner()
    folder = Path(tempfile.mkdtemp(prefix="rapanui-pg-"))
    try:
        if user is not None:
            os.chown(folder, user.pw_uid, user.pw_gid)
        server = Server(folder, binaries, prefix)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


__all__ = ["SUPERUSER", "Server", "ServerError", "find_binaries", "runner",
           "temporary_server"]
