# The turncheck worker on the official Python image.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY worker ./worker
COPY alerts ./alerts
COPY schemas ./schemas
COPY migrations ./migrations
COPY examples ./examples
RUN pip install --no-cache-dir .
USER nobody
ENTRYPOINT ["turncheck"]
CMD ["run"]
