# The turncheck wheel, native extension included (setuptools-rust builds it when cargo is
# present), built in the official Rust image, since Debian's own cargo is too old for
# PyO3. Both images are Debian bookworm with CPython 3.11, so the wheel fits the one below.
# Tags are pinned (tests/test_compose.py): a new base image is a change of its own.
FROM rust:1.88-slim-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /venv
WORKDIR /src
COPY pyproject.toml README.md ./
COPY worker ./worker
COPY alerts ./alerts
COPY schemas ./schemas
COPY migrations ./migrations
COPY native ./native
# The extension is optional to a build; this image promises it, so its absence stops here.
RUN /venv/bin/pip wheel --no-cache-dir --no-deps . -w /wheels \
 && /venv/bin/python -c "import glob, zipfile; [w] = glob.glob('/wheels/*.whl'); \
assert any('turncheck_native' in n for n in zipfile.ZipFile(w).namelist()), 'no extension'"

# The turncheck worker on the official Python image.
FROM python:3.11-slim-bookworm
WORKDIR /app
COPY examples ./examples
COPY --from=build /wheels /wheels
# The default install brings the gates' multi-pattern engine (Vectorscan) on this
# platform; the wheel carries the native extension. The embedded SQLite store lives
# in ./.turncheck: make it writable by the user it runs as.
RUN pip install --no-cache-dir /wheels/turncheck-*.whl \
 && rm -rf /wheels \
 && mkdir -p /app/.turncheck && chown nobody /app/.turncheck
USER nobody
ENTRYPOINT ["turncheck"]
CMD ["run"]
