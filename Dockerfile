FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY core ./core
COPY bot ./bot
COPY migrations ./migrations
RUN pip install --no-cache-dir .
RUN useradd --create-home tripeaks && mkdir -p /app/data && chown tripeaks /app/data
USER tripeaks
VOLUME ["/app/data"]
CMD ["tripeaks", "run"]
