"""Regenerate the JSON Schema files from the models: ``python -m turncheck.schemas``."""

from turncheck.schemas.generate import write_all

write_all()
