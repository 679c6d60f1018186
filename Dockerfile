# The native extension (optional: private_values hashes about six times faster with
# it), built as a wheel in the official Rust image, since Debian's own cargo is too
# old for PyO3. Both images are Debian bookworm, so the wheel fits the one below.
# Tags are pinned (tests/test_compose.py): a new base image is a change of its own.
FROM rust:1.88-slim-bookworm AS native
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /venv
COPY native /native
RUN /venv/bin/pip wheel --no-cache-dir /native -w /wheels

# The turncheck worker on the official Python image.
FROM python:3.11-slim-bookworm
WORKDIR /app
COPY pyproject.toml README.md ./
COPY worker ./worker
COPY alerts ./alerts
COPY schemas ./schemas
COPY migrations ./migrations
COPY examples ./examples
COPY --from=native /wheels /wheels
# The default install brings the gates' multi-pattern engine (Vectorscan) on this
# platform; the wheel beside it is the native extension. The embedded SQLite store lives
# in ./.turncheck: make it writable by the user it runs as.
RUN pip install --no-cache-dir . /wheels/*.whl \
 && mkdir -p /app/.turncheck && chown nobody /app/.turncheck
USER nobody
ENTRYPOINT ["turncheck"]
CMD ["run"]
