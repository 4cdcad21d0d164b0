"""What every game says, in all seven languages, through the real espeak-ng (issue 39):
each game played through writes every kind it has (the speech log's text: its words are
the catalog's, never the English left over, and every number in it is pronounced in the
language, as ``espeak-ng -v LANG -x -q`` shows), a phrase of each language's announcements
makes a WAV of sound whose length fits its text, a newer announcement in the table's
language cuts a stale one, a simulated Block Lottery says its pool in German through
``companion sim --speech-log``, and a missing espeak-ng is one line in the table's language.

The many texts are checked through the speech log and espeak-ng's phonemes (fast); few
WAVs are made. Without espeak-ng the tests that need it skip loudly (and fail under CI).
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from test_speech_engine import SILENCE_RMS, espeak, sink_player, wav_facts  # noqa: F401
from test_speech_games import GAMES

from companion import lang
from companion.device.speaker import Output, Playing, Speaker, Utterance, write_wav
from companion.session import Session
from companion.speech.announcer import Announcer
from companion.speech.voice import TableVoice
from companion.voices import KINDS, VOICES, Speech

LOCALE = Path(__file__).resolve().parent.parent / "companion" / "locale"
PLAYERS = ["Ann", "Bob", "Cy"]
#: The kinds each game has: Block Lottery has no turns to time; only the dice games roll.
GAME_KINDS = {
    "final-count": set(KINDS),
    "full-counter": set(KINDS) - {"rolls"},
    "card-down": set(KINDS) - {"rolls"},
    "block-lottery": set(KINDS) - {"timer"},
    "count-up-21": set(KINDS) - {"rolls"},
    "scoreboard": set(KINDS) - {"rolls"},
}
#: Words that are the same in every language: the names, and what a player must say.
NOT_TRANSLATED = {*PLAYERS, "TRIO", "DUO", "UNO"}
#: Enough events for each game to reach its result with these seeds.
EVENTS = 3000


def tour(game: str, language: str) -> list:
    """``game`` played through from a fixed seed with the announcer speaking
    ``language``: every announcement, then a refusal and the timer's words."""
    low, high, options, legal = GAMES[game]
    options = {**options, "games": 1} if game in ("card-down", "full-counter") else options
    heard: list = []
    lang.use(language)
    try:
        announcer = Announcer(None, KINDS)
        announcer.outlets.append(heard.append)
        names = PLAYERS[:2] if game == "count-up-21" else PLAYERS
        session = Session.start(game, names, options, listeners=[announcer])
        announcer.watch(session)
        try:
            session.match.undone()
        except Exception as refused:  # "nothing to undo", in the language
            announcer.refused(str(refused))
        rnd = random.Random(3)
        for _ in range(EVENTS):
            if session.match.over:
                break
            session.apply(legal(session.match, rnd))
        if session.match.has_turns:
            announcer.timer_alert("warning", "Ann", 10)
            announcer.timer_alert("end", "Ann", 0)
        assert session.match.over, f"{game} did not end in {EVENTS} events"
    finally:
        lang.use("en")
    return heard


@functools.cache
def catalog_words(language: str) -> frozenset[str]:
    """Every word (3 letters or more) the language's catalog holds; English: the
    template's messages."""
    path = (LOCALE / "companion.pot" if language == "en"
            else LOCALE / language / "LC_MESSAGES" / "companion.po")
    with path.open("rb") as po:
        catalog = read_po(po)
    words: set[str] = set()
    for message in catalog:
        texts = message.id if language == "en" else message.string
        for text in (texts if isinstance(texts, tuple) else (texts,)):
            words.update(word.lower() for word in re.findall(r"[^\W\d_]{3,}", text or ""))
    return frozenset(words)


@functools.cache
def said_alike(language: str) -> tuple[re.Pattern[str], ...]:
    """The spoken messages the language says as English does ("{player}: {points}",
    Italian "Round {number}: {players}"), each as a pattern of the texts it makes."""
    with (LOCALE / language / "LC_MESSAGES" / "companion.po").open("rb") as po:
        catalog = read_po(po)
    return tuple(re.compile(".+".join(map(re.escape, re.split(r"\{\w+\}", message.id))))
                 for message in catalog
                 if message.context == "spoken" and message.string == message.id)


def words_of(text: str) -> list[str]:
    return [word for word in re.findall(r"[^\W\d_]{3,}", text) if word not in NOT_TRANSLATED]


@functools.cache
def tours() -> dict[str, dict[str, list]]:
    """Every game's tour in every language (made once for the tests that read them)."""
    return {game: {language: tour(game, language) for language in lang.LANGUAGES}
            for game in GAMES}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_kind_of_every_game_is_said_in_every_language_in_its_words(game):
    english = tours()[game]["en"]
    assert {said.kind for said in english} == GAME_KINDS[game]
    for language in lang.LANGUAGES:
        heard = tours()[game][language]
        # the same game, said in another language: the same announcements, kind by kind
        assert [said.kind for said in heard] == [said.kind for said in english], language
        known = catalog_words(language)
        for said, source in zip(heard, english, strict=True):
            assert said.language == language and said.text
            strange = [word for word in words_of(said.text) if word.lower() not in known]
            assert strange == [], (language, said.text)
            if language != "en" and said.text == source.text:  # English left over? ...
                assert any(same.fullmatch(said.text) for same in said_alike(language)), \
                    (language, said.text)  # ... no: the language says it as English does


@functools.cache
def phonemes(voice: str, text: str) -> str:
    """What espeak-ng says for ``text``, as its phoneme mnemonics, without stress and
    pause marks, in lower case (a sound softened beside another, Spanish "d" after a
    vowel, is the same letter)."""
    done = subprocess.run(["espeak-ng", "-v", voice, "-x", "-q"], input=text,
                          capture_output=True, text=True, timeout=30, check=True)
    return re.sub(r"[\s'_,:;!|%=]", "", done.stdout).lower()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_numbers_are_said_in_the_language(espeak, game):  # noqa: F811
    """One announcement of each kind with numbers, each language: every number in it is
    pronounced as the language's voice says that number, never as English says it."""
    for language in lang.LANGUAGES:
        voice = VOICES[language]
        chosen = {}
        for said in tours()[game][language]:
            numbers = re.findall(r"-?\d+", said.text)
            if numbers and len(numbers) > len(chosen.get(said.kind, ("", []))[1]):
                chosen[said.kind] = (said.text, numbers)
        assert chosen, (game, language)
        for text, numbers in chosen.values():
            said = phonemes(voice, text)
            for number in set(numbers):
                assert phonemes(voice, number) in said, (language, text, number)
                english = phonemes("en", number)
                if language != "en" and english != phonemes(voice, number):
                    assert english not in said, (language, text, number)


@pytest.mark.parametrize("language", lang.LANGUAGES)
def test_a_moment_of_words_makes_a_wav_of_sound_as_long_as_its_text(espeak, language,  # noqa: F811
                                                                     tmp_path):
    """Each language: the longest moment of Block Lottery's words (a round's scores, the
    game's result) as the voice says it."""
    texts = [said.text for said in tours()["block-lottery"][language]]
    text = max(texts, key=len)
    path = tmp_path / f"{language}.wav"
    write_wav(espeak, Utterance(text, VOICES[language], 175, 100), str(path))
    seconds, rms = wav_facts(path)
    assert rms > SILENCE_RMS
    # 175 words a minute: some 10 to 25 characters a second, whatever the language
    assert len(text) / 30 < seconds < len(text) / 6, (language, text, seconds)


def test_a_newer_announcement_cuts_the_stale_one_in_the_tables_language(espeak, tmp_path):  # noqa: F811
    """Real espeak-ng processes: a Russian Block Lottery pool still being played is cut
    by the first token drawn; the token is said to its end."""
    (tmp_path / "slow").touch()
    os.mkfifo(tmp_path / "ready")
    ready = os.open(tmp_path / "ready", os.O_RDONLY | os.O_NONBLOCK)
    speaker = Speaker(lambda words: Playing(Output(espeak, sink_player(tmp_path)), words))
    voice = TableVoice(Speech(enabled=True), find=lambda device: Output(espeak),
                       make=lambda output: speaker)
    announcer = Announcer(voice, KINDS)
    lang.use("ru")
    try:
        session = Session.start("block-lottery", ["Анна", "Борис"], listeners=[announcer])
        announcer.watch(session)
        session.apply({"type": "pool", "faces": [1, 2, 3, 4, 5, 6] * 2 + [1, 2, 3]})
        assert select.select([ready], [], [], 30)[0], "the player never started"
        session.apply({"type": "end", "player": "Анна", "cause": "deck_out"})
        assert speaker.wait_idle(30)
    finally:
        speaker.close()
        os.close(ready)
    outcomes = list(speaker.history)
    assert [outcome for _, outcome in outcomes] == ["cut", "said"]
    assert outcomes[0][0].startswith("Раунд 1, общие кубики: 1 1 1")
    assert outcomes[1][0] == "Раунд окончен: Анна: нечего взять из колоды."


def test_a_simulated_block_lottery_says_its_pool_in_german(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[ui]\nlanguage = "de"\n[speech]\nenabled = true\n', encoding="utf-8")
    steps = tmp_path / "steps.txt"
    steps.write_text("ROLL\n")
    log = tmp_path / "speech.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "companion", "sim", "--config", str(config), "--new",
         "block-lottery", "--players", "Anna,Bernd", "--script", str(steps), "--seed", "3",
         "--speech-log", str(log)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [line] = [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()]
    assert line["language"] == "de" and line["kind"] == "rolls"
    head, _, faces = line["text"].partition(": ")
    assert head == "Runde 1, der Vorrat"
    dice = [int(face) for face in faces.replace(",", " ").split()]
    assert len(dice) == 15 and dice == sorted(dice) and set(dice) <= set(range(1, 7))


def test_no_espeak_is_one_line_in_the_tables_language(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[ui]\nlanguage = "ru"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "companion", "say", "Анна, 3",
                           "--config", str(config)], capture_output=True, text=True,
                          env={**os.environ, "PATH": str(tmp_path)}, timeout=60)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("companion: ")
    assert "espeak-ng" in done.stderr
    assert re.search("[а-я]", done.stderr), done.stderr  # said in Russian
