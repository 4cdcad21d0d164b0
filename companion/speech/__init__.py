"""Spoken at the table: what each game says aloud, and the table's voice.

- :mod:`companion.speech.words`: an announcement (:class:`~companion.speech.words.Said`)
  and the words every game shares (whose turn, a refusal, the turn timer);
- one module a game, each game's own words (:mod:`companion.speech.final_count`,
  :mod:`~companion.speech.full_counter`, :mod:`~companion.speech.card_down`,
  :mod:`~companion.speech.block_lottery`, :mod:`~companion.speech.count_up`,
  :mod:`~companion.speech.scoreboard`);
- :mod:`companion.speech.announcer`: the session listener that turns events into
  announcements, said once, for the voice, the speech log and the table page;
- :mod:`companion.speech.voice`: ``[speech]`` and the device's own choices, and the
  speaker (:mod:`companion.device.speaker`, eSpeak NG) that says them.

docs/speech.md tells the whole story.
"""
