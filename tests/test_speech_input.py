"""What espeak-ng reads (issue 39.2): a player's name is said, never obeyed as
espeak-ng's own markup (phonemes in ``[[ ]]``, embedded commands, SSML), and a name in
another alphabet is said by a voice that reads it, not spelt letter by letter.

The tests with the real espeak-ng compare the phonemes it would say (``-x``) and skip
loudly without it (fail under CI, as tests/test_speech_engine.py's do)."""

from __future__ import annotations

import subprocess

import pytest
from test_speech_engine import SILENCE_RMS, espeak, utterance, wav_facts  # noqa: F401

from companion.device.espeak_input import espeak_text, plain
from companion.device.speaker import Utterance, espeak_command, espeak_input, write_wav
from companion.errors import IllegalEvent
from companion.voices import VOICES


def phonemes(espeak: str, text: str, voice: str = "en") -> str:  # noqa: F811
    """The phonemes espeak-ng says for ``text`` in ``voice``, as the device gives them."""
    words = Utterance(text, voice, 175, 100)
    command = [c for c in espeak_command(espeak, words) if c != "--stdout"]
    done = subprocess.run([*command, "-q", "-x"], input=espeak_input(words),
                          capture_output=True, check=True)
    return " ".join(done.stdout.decode("utf-8").split())


def test_what_espeak_would_obey_is_taken_out():
    assert plain("Ann[[, 3") == "Ann[ [, 3"
    assert plain("[[[h@'l@U]]]") == "[ [ [h@'l@U]]]"
    assert plain("a\x01300S b\x1b[31m c\x00") == "a 300S b [31m c "
    assert espeak_text("<speak> & </voice>", "en") == \
        '<voice name="en">&lt;speak&gt; &amp; &lt;/voice&gt;</voice>'


def test_a_name_that_opens_phonemes_leaves_the_rest_of_the_words_said(espeak):  # noqa: F811
    """A player "Ann[[" made espeak-ng read everything after the name as phoneme
    mnemonics: "3: draw a card for the Board. Bob's turn." was never said."""
    plain_name = phonemes(espeak, "Ann, 3: draw a card for the Board. Bob's turn.")
    odd_name = phonemes(espeak, "Ann[[, 3: draw a card for the Board. Bob's turn.")
    assert "dr'O:" in plain_name and "b'0bz t'3:n" in plain_name
    assert odd_name.endswith(plain_name.split("'an", 1)[1].strip())  # the words after it


def test_an_embedded_command_in_the_words_is_not_obeyed(espeak, tmp_path):  # noqa: F811
    """\\x01 then "50S" would slow espeak-ng down for the rest of the phrase."""
    said, slowed = tmp_path / "said.wav", tmp_path / "slowed.wav"
    write_wav(espeak, utterance("hello 80S there my friends at the table"), str(said))
    write_wav(espeak, utterance("hello \x0180S there my friends at the table"), str(slowed))
    assert abs(wav_facts(slowed)[0] - wav_facts(said)[0]) < 0.1


def test_markup_in_a_name_is_said_as_text(espeak, tmp_path):  # noqa: F811
    path = tmp_path / "markup.wav"
    write_wav(espeak, utterance("<speak><break time='9s'/></speak>, 3"), str(path))
    seconds, rms = wav_facts(path)
    assert rms > SILENCE_RMS and seconds < 8  # said, not a nine-second pause


@pytest.mark.parametrize(("voice", "spelt"), [
    ("de", "ky:R'IlIS"), ("en", "'En 'En"), ("es", "Ti*'iliko"), ("fr", "sI2r'IlIk"),
    ("it", "tSIR'illIko"), ("pl", "sI2r'IlIk"), ("de+f3", "ky:R'IlIS")])
def test_a_cyrillic_name_is_said_by_the_russian_voice_at_any_table(espeak, voice, spelt):  # noqa: F811
    """Each Latin alphabet voice spelt "Анна" letter by letter ("kyrillisch a,
    kyrillisch en, ..."): the name is said as a name, the words round it in the
    table's voice."""
    said = phonemes(espeak, "Анна, 3. Борис.", voice)
    assert spelt not in said
    assert said.startswith("'Anna#") and "bVr;'is" in said


def test_a_greek_name_is_said_by_the_greek_voice(espeak):  # noqa: F811
    said = phonemes(espeak, "Ζωή, 10 seconds left.")
    assert said == "zo'i t'En s'Ek@ndz l'Eft"  # not "zeta omega iota"


@pytest.mark.parametrize("voice", ["en", "fr", "de"])
def test_the_tables_voice_comes_back_after_a_name(espeak, voice):  # noqa: F811
    """espeak-ng stays in the name's voice after a </voice> with -v en or fr: every
    piece names its own voice."""
    with_latin = phonemes(espeak, "Ann, 3: Bob.", voice)
    with_cyrillic = phonemes(espeak, "Анна, 3: Bob.", voice)
    assert with_cyrillic.split(None, 1)[1] == with_latin.split(None, 1)[1]


def test_latin_words_are_said_exactly_as_before(espeak):  # noqa: F811
    """The SSML changes nothing of what a table without such names hears."""
    text = "Game over. Winner: Ann with 340 points. Standings: Ann 340, Bob 280, Cy 250."
    raw = subprocess.run([espeak, "-v", "de", "--stdout"], input=text.encode(),
                         capture_output=True, check=True).stdout
    ssml = subprocess.run(espeak_command(espeak, Utterance(text, "de", 175, 100))[:-1] +
                          ["--stdout"], input=espeak_input(Utterance(text, "de", 175, 100)),
                          capture_output=True, check=True).stdout
    assert len(raw) == len(ssml) and raw[44:] == ssml[44:]


#: How each voice says the word for minus before a number (``espeak-ng -x``).
MINUS = {"en": "m'aIn@s", "de": "m'i:nUs", "es": "m'enos", "fr": "mw'E~", "it": "m'eno",
         "pl": "m'inu", "ru": "m;'inus"}  # Polish: minuz before a voiced sound


@pytest.mark.parametrize("language", sorted(MINUS))
def test_a_negative_score_is_said_with_its_minus_in_every_language(espeak, language):  # noqa: F811
    """The Spanish, French, Polish and Russian voices said "Cy -5" as "Cy 5": the
    Scoreboard's entry, its standings and the refusal of a range lost their sign."""
    from test_speech_games import points, said, table

    from companion import lang

    lang.use(language)
    try:
        session, _, _, heard = table("scoreboard", ["Ann", "Bob", "Cy"])
        said(session, heard, points("Ann", 20), points("Bob", 0), points("Cy", -5))
        texts = [item.text for item in heard]
        with pytest.raises(IllegalEvent) as refused:
            session.apply(points("Ann", 10000))
        session.listeners[0].refused(str(refused.value))
        texts.append(heard[-1].text)
    finally:
        lang.use("en")
    entry, after = [text for text in texts if "5" in text][:2]  # "Cy: -5", "... Cy -5"
    assert "Ann 20" in after and "-" not in entry + after
    for text in (entry, after, texts[-1]):
        assert MINUS[language] in phonemes(espeak, text, VOICES[language]), text
