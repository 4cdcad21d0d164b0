"""What a console or a page typed is never read aloud (issue 39.1, docs/speech.md): a
move refused for a value it typed is said as "the move is refused" whatever the value
is (a long number, an exponent, a fraction, a list, an object), not only text in
quotes; a value a rule names ("not 99") is said as before."""

from __future__ import annotations

import pytest
from test_speech_device import Table, final_count

from companion.config import Config, Dice
from companion.errors import typed_number
from companion.remote.commands import RemoteError, run
from companion.voices import Speech


@pytest.mark.parametrize(("value", "words"), [
    (99, "Sorry: a die shows 1 to 6, not 99."),
    (12345678901234567890, "Sorry: the move is refused."),
    (typed_number("1e999"), "Sorry: the move is refused."),
    (2.5, "Sorry: the move is refused."),
    ([[1, 2, 3]], "Sorry: the move is refused."),
    ({"[[x": 1}, "Sorry: the move is refused."),
])
def test_a_value_typed_from_afar_is_never_read_aloud(value, words):
    # physical dice: the table rolls its own and a remote says the face it rolled
    config = Config(speech=Speech(enabled=True), dice=Dice(physical=True))
    table = Table(config=config, root=final_count(("Ann", "Bob")))
    try:
        with pytest.raises(RemoteError) as refused:
            run(table.app, "event", {"type": "roll", "player": "Ann", "value": value})
        assert refused.value.code == "ILLEGAL"
        table.app.pump()  # the words reach the voice once the owner thread gets to them
        assert [text for _, text in table.offered] == [words]
    finally:
        table.close()
