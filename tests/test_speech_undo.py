"""Said once, however close an undo comes (issue 39.1): an undo that reaches the owner
thread before the words of the event it takes back have reached the speaker (a move
from the page and an undo from the buttons queued together, a busy Pi) leaves them
unsaid, and an undo while the speaker is starting espeak-ng stops those words too."""

from __future__ import annotations

from test_speech_device import Table, final_count
from test_speech_engine import SlowWords

from companion.clock import ManualClock
from companion.device.speaker import Speaker, Utterance


def test_an_undo_queued_with_its_move_leaves_the_moves_words_unsaid():
    from companion.remote.commands import run

    table = Table(root=final_count(("Ann", "Bob")))
    try:
        table.app.post("call", lambda app: run(app, "roll"))  # the page's ROLL ...
        table.app.post("call", lambda app: run(app, "undo"))  # ... and an undo, queued
        table.app.pump()
        assert len(table.app.current_session().match.events) == 0
        assert table.offered == []  # nothing of the roll taken back
        assert table.speaker.speaking is None and table.speaker.waiting is None
        table.press("roll")  # the next roll is said as ever
        assert [text for _, text in table.offered][0].startswith("Ann, ")
    finally:
        table.close()


def test_a_long_roll_after_such_an_undo_says_nothing_taken_back():
    from companion.remote.commands import run

    table = Table(root=final_count(("Ann", "Bob")))
    try:
        table.app.post("call", lambda app: run(app, "roll"))
        table.app.post("call", lambda app: run(app, "undo"))
        table.app.pump()
        assert table.app.ctx.speech.repeat() is False  # nothing true is left to say
        assert table.offered == []
    finally:
        table.close()


def test_an_undo_while_espeak_is_starting_stops_the_words_it_starts():
    """The speaker's thread takes the words and starts espeak-ng outside its lock: a
    hush meanwhile found nothing waiting and nothing playing, and the words were said
    to their end."""
    clock = ManualClock()
    speaker: Speaker

    def start(words):
        speaker.hush()  # the undo comes while the process is being started
        return SlowWords(clock, words.text, 0.1)

    speaker = Speaker(start, threaded=False)
    speaker.say(Utterance("Ann, 3: draw a card for the Board", "en", 175, 100))
    speaker.pump()
    clock.advance(60)
    speaker.pump()
    assert list(speaker.history) == [("Ann, 3: draw a card for the Board", "cut")]


def test_speech_turned_off_in_settings_stops_the_words_being_said():
    """Settings > Speech: off left the words being said going to their end (a whole
    game's standings)."""
    from test_speech_device import labels, open_speech_settings

    table = Table()
    try:
        table.voice.say("Game over. Winner: Ann with 340 points. Standings: Ann 340, "
                        "Bob 280, Cy 250", "en")
        table.app.pump()
        assert table.speaker.speaking is not None
        open_speech_settings(table)
        table.press("ok")
        assert labels(table)[0] == "Speech: off"
        assert table.speaker.speaking is None
        assert list(table.speaker.history)[-1][1] == "cut"
    finally:
        table.close()
