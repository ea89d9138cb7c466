"""A PostgreSQL ``DATABASE_URL`` read whole before anything connects, and any database URL made
fit to print.

asyncpg reads the URL only when it connects, and a malformed one then fails inside it with an
exception of its own (a ``ValueError`` from ``int()`` or ``urllib``, an ``IndexError``) far from
the setting that caused it. :func:`parse_postgres_url` reads every part the way asyncpg will
(the first ``/`` or ``?`` ends the hosts, the first ``@`` the user and password; hosts
separated by commas, IPv6 addresses in brackets; ``?host=/folder`` for a Unix socket) and
refuses, with one sentence that says what is wrong, whatever asyncpg would stumble on: so
``check``, ``health``, ``migrate-store`` and ``run`` name the bad setting instead of showing a
traceback. It never prints the password: messages quote the URL through :func:`redacted`.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote

POSTGRES_FORM = "postgresql://user:password@host:5432/database"
"""The right form, as messages show it."""
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
"""The ``sslmode`` values asyncpg (and libpq) accept."""
MAX_PORT = 65535
HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?")
"""A DNS name or an IPv4 address."""
_PASSWORD = re.compile(r"^([^:/?#@\[]*):(.*)@")
"""``user:password@`` at the start of what follows ``://``, up to the last ``@`` (an ``@`` left
unencoded in a password is hidden with it)."""
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


class BadUrl(ValueError):
    """The URL cannot be used: the message says which part is wrong and how (never the
    password)."""


@dataclass(frozen=True)
class PostgresUrl:
    """What a PostgreSQL URL names; None (and no hosts) leaves a part to libpq's defaults
    (the ``PG*`` variables, the user's name, the local Unix sockets)."""

    user: str | None
    password: str | None = field(repr=False)
    hosts: tuple[str, ...]
    """Host names, IP addresses (IPv6 without brackets) or Unix socket folders (``/…``)."""
    ports: tuple[int | None, ...]
    """One per host (None: the default port)."""
    database: str | None


def redacted(url: str) -> str:
    """A database URL fit to print: its password (after ``user:`` or as ``?password=``)
    replaced by ``***``."""
    scheme, slashes, rest = url.partition("://")
    if not slashes:
        return url
    return f"{scheme}://" + _hide_query_password(_PASSWORD.sub(r"\1:***@", rest, count=1))


def _hide_query_password(text: str) -> str:
    return _QUERY_PASSWORD.sub(lambda found: found[1] + "***", text)


def parse_postgres_url(url: str) -> PostgresUrl:
    """Every part of a ``postgresql://`` (or ``postgres://``) URL; raises :class:`BadUrl`."""
    scheme = url.partition("://")[0].lower()
    if scheme not in ("postgresql", "postgres") or "://" not in url:
        raise BadUrl("it does not start with postgresql:// (or postgres://)")
    if any(c.isspace() or not c.isprintable() for c in url):
        raise BadUrl("it holds a space or a control character (a space in a password or "
                     "name is written %20)")
    if "#" in url:
        raise BadUrl("it holds a '#' (a '#' in a password or name is written %23)")
    rest = url.partition("://")[2]
    rest, _, query_text = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    if netloc.count("[") != netloc.count("]"):
        raise BadUrl("the brackets around its host's IPv6 address do not match (e.g. "
                     "[::1]:5432)")
    auth, at, hostspec = netloc.partition("@")
    if not at:
        auth, hostspec = "", netloc
        if "@" in path:
            raise BadUrl("its '@' comes after a '/' (a '/' in a user name or password is "
                         "written %2F)")
    if "@" in hostspec:
        raise BadUrl("it holds more than one '@' (an '@' in a user name or password is "
                     "written %40)")
    user, _, password = auth.partition(":")
    hosts, ports = _host_list(hostspec, quoted=True) if hostspec else ((), ())
    database = _database(slash + path)
    query = _query(query_text)
    if not hosts and "host" in query:
        hosts, ports = _host_list(query["host"], quoted=False)
    if "port" in query:
        ports = _query_ports(query["port"], hosts, ports)
    if "sslmode" in query and query["sslmode"] not in SSL_MODES:
        raise BadUrl(f"its sslmode {query['sslmode']!r} is none of {', '.join(SSL_MODES)}")
    return PostgresUrl(user=unquote(user) or query.get("user") or None,
                       password=unquote(password) or query.get("password") or None,
                       hosts=hosts, ports=ports,
                       database=database or query.get("dbname") or query.get("database")
                       or None)


def _host_list(text: str, quoted: bool) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    """``host[:port],…`` as asyncpg splits it: hosts and their ports."""
    hosts: list[str] = []
    ports: list[int | None] = []
    for entry in text.split(","):
        if not entry:
            raise BadUrl(f"its host list {text!r} has an empty entry")
        host, port = _host(entry, quoted)
        hosts.append(host)
        ports.append(port)
    return tuple(hosts), tuple(ports)


def _host(entry: str, quoted: bool) -> tuple[str, int | None]:
    if entry.startswith("/") or (quoted and unquote(entry).startswith("/")):
        return (unquote(entry) if quoted else entry), None  # a Unix socket folder
    if entry.startswith("["):
        match = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", entry)
        address = unquote(match[1]) if match else ""
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            raise BadUrl(f"its host {entry!r} is not an IPv6 address in brackets, with an "
                         "optional :port (e.g. [::1]:5432)") from None
        return address, _port(match[2]) if match and match[2] is not None else None
    if entry.count(":") > 1:
        raise BadUrl(f"its host {entry!r} looks like an IPv6 address: write it in brackets, "
                     "e.g. [::1]:5432")
    name, colon, port = entry.partition(":")
    name = unquote(name) if quoted else name
    if not name:
        raise BadUrl(f"its host {entry!r} names a port but no host")
    if not HOST_NAME.fullmatch(name):
        raise BadUrl(f"its host {name!r} is neither a host name, an IP address nor a socket "
                     "folder (/…)")
    return name, _port(port) if colon else None


def _port(text: str) -> int:
    if not (text.isascii() and text.isdecimal()) or not 1 <= int(text) <= MAX_PORT:
        raise BadUrl(f"its port {text!r} is not a number from 1 to {MAX_PORT}")
    return int(text)


def _query_ports(text: str, hosts: tuple[str, ...],
                 ports: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """``?port=`` (one, or one per host): it counts where the hosts named none."""
    given = tuple(_port(p) for p in text.split(","))
    if hosts and len(given) > 1 and len(given) != len(hosts):
        raise BadUrl(f"its port list {text!r} does not give one port per host")
    if any(port is not None for port in ports):
        return ports  # asyncpg: ports in the host part win
    return given * len(hosts) if hosts and len(given) == 1 else given


def _database(path: str) -> str | None:
    name = path[1:] if path.startswith("/") else path
    if "/" in name:
        raise BadUrl(f"its database name {name!r} holds a '/' (one name after the host: "
                     "…@host:5432/database)")
    return unquote(name) or None


def _query(query: str) -> dict[str, str]:
    """The ``?key=value&…`` options, as asyncpg reads them (the last of a repeated key)."""
    if not query:
        return {}
    try:
        return dict(parse_qsl(query, strict_parsing=True))
    except ValueError:
        raise BadUrl(f"its options {_hide_query_password('?' + query)[1:]!r} are not key=value "
                     "pairs joined by &") from None
