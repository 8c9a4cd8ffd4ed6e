FROM python:3.11-slim
WORKDIR /app
# TRIPEAKS_HOME: relative SQLite paths are relative to /app (the compose file gives an absolute one anyway)
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TRIPEAKS_HOME=/app
COPY pyproject.toml README.md ./
COPY core ./core
COPY bot ./bot
COPY migrations ./migrations
RUN pip install --no-cache-dir .
RUN useradd --create-home tripeaks && mkdir -p /app/data && chown tripeaks /app/data
USER tripeaks
VOLUME ["/app/data"]
# SIGTERM (docker stop) ends the bot cleanly: exit status 143, every game saved. Without a token and without a
# terminal it exits 2 with one line saying so.
CMD ["tripeaks", "run"]
