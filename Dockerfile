# The bot in a container: the same install as README's "Run the bot", as a non-root user,
# with the SQLite file on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GAMES_DB=/var/lib/rapanui/games.sqlite3

RUN useradd --create-home --uid 10001 bot \
    && mkdir -p /var/lib/rapanui && chown bot:bot /var/lib/rapanui

WORKDIR /app
COPY pyproject.toml README.md ./
COPY rules ./rules
COPY render ./render
COPY bot ./bot
COPY data ./data
RUN pip install --no-cache-dir -e .

USER bot
VOLUME ["/var/lib/rapanui"]
CMD ["python", "-m", "bot"]
