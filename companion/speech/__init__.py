"""Spoken at the table: the announcer and the table's voice.

What is said is the games': an announcement (:class:`~companion.ui.spoken.Said`) and
the words every game shares are :mod:`companion.ui.spoken`, each game's own words a
module of its screens package (``aloud.py``, e.g. :mod:`companion.ui.count_up.aloud`).
Here:

- :mod:`companion.speech.announcer`: the session listener that turns events into
  announcements, said once, for the voice, the speech log and the table page;
- :mod:`companion.speech.voice`: ``[speech]`` and the device's own choices, and the
  speaker (:mod:`companion.device.speaker`, eSpeak NG) that says them.

docs/speech.md tells the whole story.
"""
