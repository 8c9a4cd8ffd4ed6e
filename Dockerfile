# The build stage compiles the native solver kernel (core/_kernel.c) and gathers every dependency as a wheel; the
# image itself has no compiler and installs from those wheels alone.
FROM python:3.11 AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY core ./core
COPY bot ./bot
COPY migrations ./migrations
RUN pip wheel --no-cache-dir --wheel-dir /wheels . \
    && python -c "import sys, zipfile, glob; names = zipfile.ZipFile(glob.glob('/wheels/tripeaks_bot-*.whl')[0]).namelist(); sys.exit(not any(n.startswith('core/_kernel') and n.endswith('.so') for n in names))"

FROM python:3.11-slim
WORKDIR /app
# TRIPEAKS_HOME: relative SQLite paths are relative to /app (the compose file gives an absolute one anyway)
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TRIPEAKS_HOME=/app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels tripeaks-bot && rm -rf /wheels
RUN useradd --create-home tripeaks && mkdir -p /app/data && chown tripeaks /app/data
USER tripeaks
VOLUME ["/app/data"]
# SIGTERM (docker stop) ends the bot cleanly: exit status 143, every game saved. Without a token and without a
# terminal it exits 2 with one line saying so.
CMD ["tripeaks", "run"]
