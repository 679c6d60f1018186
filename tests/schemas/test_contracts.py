import json
from pathlib import Path

import jsonschema
import pytest

from tests.factories import turn_dict
from turncheck.schemas.generate import FILES, HERE, render

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize("name", sorted(FILES))
def test_checked_in_json_schema_matches_the_models(name: str) -> None:
    """Run `python -m turncheck.schemas` after changing a model; this fails until you do."""
    assert (HERE / name).read_text() == render(FILES[name]), f"{name} drifted from its model"


def test_example_turns_validate_against_the_json_schema() -> None:
    schema = json.loads((HERE / "turn.stored.v1.schema.json").read_text())
    lines = (EXAMPLES / "turns.jsonl").read_text().splitlines()
    assert lines
    for line in lines:
        jsonschema.validate(json.loads(line), schema)


def test_unknown_turn_fields_are_allowed_by_the_json_schema() -> None:
    schema = json.loads((HERE / "turn.stored.v1.schema.json").read_text())
    jsonschema.validate(turn_dict(locale="de-DE"), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(turn_dict(schema="turn.stored/v2"), schema)


def test_example_checks_validate_against_the_json_schema() -> None:
    import yaml

    schema = json.loads((HERE / "checks.v1.schema.json").read_text())
    jsonschema.validate(yaml.safe_load((EXAMPLES / "checks.yaml").read_text()), schema)
