# The bot in a container: a non-editable install as a numeric non-root user, the SQLite file on
# a volume. The pinned dependencies are installed in their own layer before the code is copied,
# so a code change does not reinstall them; pip checks each file against the lock's hashes.
FROM python:3.11.14-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GAMES_DB=/var/lib/rapanui/games.sqlite3 \
    HTTP_PORT=8080

RUN groupadd --gid 10001 rapanui \
    && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin rapanui \
    && mkdir -p /var/lib/rapanui \
    && chown 10001:10001 /var/lib/rapanui

WORKDIR /src
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock

COPY pyproject.toml README.md ./
COPY rules ./rules
COPY render ./render
COPY bot ./bot
COPY data ./data
RUN pip install --no-cache-dir --no-deps . \
    && pip check

# The bot runs the installed package, not this source copy.
WORKDIR /var/lib/rapanui
USER 10001:10001
VOLUME ["/var/lib/rapanui"]
STOPSIGNAL SIGTERM
# /healthz and /readyz (HTTP_PORT): Prometheus may scrape /metrics there too.
EXPOSE 8080
# The probe asks the running bot's /healthz with bash alone (its /dev/tcp and builtins: the
# slim image has neither curl nor wget), so a probe starts no Python.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${HTTP_PORT} && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && read -r status <&3 && [[ $status == *' 200 '* ]]"]
ENTRYPOINT ["python", "-m", "bot"]
CMD ["run"]
