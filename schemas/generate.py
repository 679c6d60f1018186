"""The JSON Schema files, rendered from the models; `python -m turncheck.schemas` writes them."""

import json
from pathlib import Path

from pydantic import BaseModel

from turncheck.schemas.checkfile import CheckFile
from turncheck.schemas.erasure import ErasureRequest
from turncheck.schemas.event import CheckFailedEvent
from turncheck.schemas.label import LabelLine
from turncheck.schemas.turn import Turn

HERE = Path(__file__).parent

FILES: dict[str, type[BaseModel]] = {
    "turn.stored.v1.schema.json": Turn,
    "response.check_failed.v1.schema.json": CheckFailedEvent,
    "checks.v1.schema.json": CheckFile,
    "turncheck.erasure.v1.schema.json": ErasureRequest,
    "turncheck.label.v1.schema.json": LabelLine,
}


def render(model: type[BaseModel]) -> str:
    schema = model.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_all() -> None:
    for name, model in FILES.items():
        (HERE / name).write_text(render(model))
