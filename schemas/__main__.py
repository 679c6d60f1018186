"""Regenerate the JSON Schema files from the models: ``python -m schemas``."""

from schemas.generate import write_all

write_all()
