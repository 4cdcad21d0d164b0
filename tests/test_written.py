"""Values in messages are said as the person wrote them (JSON or TOML: true, null,
["a"]), never as Python's reprs (True, None, ['a']), whichever way they came in."""

from __future__ import annotations

import pytest

from companion.config import parse_config
from companion.errors import ConfigError, IllegalEvent, written
from companion.games import new_match


@pytest.mark.parametrize(("value", "shown"), [
    (True, "true"), (None, "null"), (["a", 1], '["a", 1]'), ({"x": 1}, '{"x": 1}'),
    ("Zed", '"Zed"'), ("a\nb", '"a\\nb"'), ("6", '"6"'), (2.5, "2.5"),
])
def test_a_value_is_written_as_typed(value, shown) -> None:
    assert written(value) == shown


@pytest.mark.parametrize("value", [True, None, [6], {"face": 6}])
def test_an_event_value_is_refused_in_json_words(value) -> None:
    match = new_match("final-count", ["Ann", "Bob"])
    with pytest.raises(IllegalEvent) as refused:
        match.apply({"type": "roll", "player": "Ann", "value": value})
    message = str(refused.value)
    assert message.endswith(written(value))
    assert not any(word in message for word in ("True", "None", "['", "{'"))


@pytest.mark.parametrize(("toml", "said"), [
    ("[display]\ncontrast = true", "not true"),
    ("[web]\nlisten = [1, 2]", "not [1, 2]"),
    ("[club]\ntable = 2026-01-31", "2026-01-31"),
])
def test_a_config_value_is_refused_in_toml_words(toml, said) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config(toml)
    assert said in str(refused.value) and "True" not in str(refused.value)
    assert "datetime" not in str(refused.value)
