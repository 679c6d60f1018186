# The turncheck worker on the official Python image.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY worker ./worker
COPY alerts ./alerts
COPY schemas ./schemas
COPY migrations ./migrations
COPY examples ./examples
# The embedded SQLite store lives in ./.turncheck: make it writable by the user it runs as.
RUN pip install --no-cache-dir . \
 && mkdir -p /app/.turncheck && chown nobody /app/.turncheck
USER nobody
ENTRYPOINT ["turncheck"]
CMD ["run"]
