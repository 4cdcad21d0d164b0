"""The table page speaks the device's language (issue 30): its pages, its JSON errors,
its scripts' words, the remote commands' refusals and the entry pads, switched live.

No catalog is needed: a fake translation writes every message in capitals (its
``{fields}`` left as they are), so a translated text is told from the English one.
"""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import jinja2
import pytest
from web_device import Device

import companion.lang as lang
from companion.remote.web import views
from companion.remote.web.pages import speaking

STATIC = Path(views.__file__).with_name("static")


def shout(text: str) -> str:
    """``text`` in capitals, outside its ``{fields}``."""
    return re.sub(r"[^{}]+(?=\{|$)|\}[^{}]*", lambda m: m.group(0).upper(), text) \
        if "{" in text else text.upper()


class Shouting(gettext.NullTranslations):
    def gettext(self, message):
        return shout(message)

    def pgettext(self, context, message):
        # Numbers and dates keep their form: only words are shouted.
        return message if "format" in context or "separator" in context else shout(message)

    def ngettext(self, singular, plural, n):
        return shout(singular if n == 1 else plural)

    def npgettext(self, context, singular, plural, n):
        return shout(singular if n == 1 else plural)


@pytest.fixture
def device(tmp_path):
    made = Device(tmp_path / "state")
    yield made
    made.close()


@pytest.fixture
def shouting(monkeypatch):
    """Speak the fake language now; ``shouting.off()``/``on()`` switch it live."""
    english = list(lang._current)

    class Switch:
        def on(self):
            monkeypatch.setattr(lang, "_current", ["xx", Shouting()])

        def off(self):
            monkeypatch.setattr(lang, "_current", english)

    switch = Switch()
    switch.on()
    return switch


def words_of(page: str) -> dict[str, str]:
    found = re.search(r"data-words='([^']*)'", page)
    assert found, "the page carries no words for its scripts"
    return json.loads(unescape(found.group(1)))


def test_shout_keeps_the_fields() -> None:
    assert shout("{name} to play") == "{name} TO PLAY"
    assert shout("Undo \u201c{last}\u201d?") == "UNDO \u201c{last}\u201d?"


def test_the_table_page_speaks_the_device_language(device, shouting) -> None:
    page = device.client.get("/").text
    assert '<html lang="xx">' in page
    assert ">HISTORY</a>" in page and ">PLAYERS</a>" in page
    assert "NO GAME ON THE TABLE" in page and "No game on the table" not in page
    assert "RECONNECTING" in page and 'aria-label="THE TABLE"' in page
    device.pair()
    assert device.client.post("/api/matches", json={
        "game": "scoreboard", "players": ["Ann", "Bob"], "options": {"target": 20}},
    ).status_code == 200
    device.client.post("/api/events", json={"event": {
        "type": "points", "player": "Ann", "points": 5}})
    page = device.client.get("/").text
    assert "Ann SCORED 5" in page          # the log, a name inside a translated sentence
    assert ">UNDO</button>" in page and ">ROLL</button>" in page
    title = page.split("<title>")[1].split("</title>")[0]
    assert "Ann TO PLAY" in title or "Bob TO PLAY" in title


def test_the_scripts_words_come_from_the_page_in_its_language(device, shouting) -> None:
    words = words_of(device.client.get("/").text)
    assert words["undo_ask"] == "UNDO \u201c{last}\u201d?"
    assert words["rename"] == "NEW NAME FOR {name}"
    assert words["time_up"] == "TIME!"
    assert set(words) == set(views.script_words())


def test_the_scripts_hold_no_sentence_of_their_own() -> None:
    """Every word a script writes is one of the page's words, looked up by its key."""
    scripts = {name: (STATIC / name).read_text() for name in ("site.js", "table.js", "club.js")}
    everything = "\n".join(scripts.values())
    # The scripts' own strings, but for the keys they look up.
    strings = re.findall(r'(?<!say\()"((?:[^"\\\n]|\\.)*)"', everything)
    for key, english in views.script_words().items():
        assert f'say("{key}"' in everything, key
        for piece in re.split(r"\{\w+\}", english):
            piece = piece.strip(" ().;:?!\u201c\u201d,")
            if len(piece) > 3:
                pattern = rf"\b{re.escape(piece)}\b"
                assert not [text for text in strings if re.search(pattern, text)], (key, piece)


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to run the script with")
def test_site_js_fills_in_the_words_it_was_given() -> None:
    """site.js's say() fills the page's words, whatever language they are in."""
    words = json.dumps({"undo_ask": "R\u00dcCKG\u00c4NGIG \u201e{last}\u201c?"})
    stub = """
    const body = {dataset: {words: WORDS}};
    globalThis.window = globalThis;
    globalThis.document = {body, documentElement: {dataset: {}},
      querySelector: () => null, addEventListener() {}};
    globalThis.localStorage = {getItem: () => null, setItem() {}};
    """.replace("WORDS", json.dumps(words))
    program = stub + (STATIC / "site.js").read_text() + """
    console.log(window.companionSay("undo_ask", {last: "Ann rolled 3"}));
    console.log(window.companionSay("undo_ask"));
    """
    out = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["R\u00dcCKG\u00c4NGIG \u201eAnn rolled 3\u201c?",
                                       "R\u00dcCKG\u00c4NGIG \u201e{last}\u201c?"]


def test_json_errors_are_translated_and_their_codes_are_not(device, shouting) -> None:
    reply = device.client.get("/api/players/Nobody")
    assert reply.status_code == 404
    assert reply.json() == {"error": "NO PLAYER 'Nobody'", "code": "NOTFOUND"}
    device.pair()
    reply = device.client.post("/api/events", json={"events": {}})
    assert reply.status_code == 400
    assert reply.json()["error"] == 'UNKNOWN FIELD "events" (FIELDS: event)'
    reply = device.client.post("/api/roll", json={})
    assert reply.json()["code"] == "NOGAME"
    assert reply.json()["error"] == "NO GAME ON THE SCREEN (NEW STARTS ONE)"


def test_an_error_page_is_translated(device, shouting) -> None:
    reply = device.client.get("/no/such/page", headers={"accept": "text/html"})
    assert reply.status_code == 404
    assert "<p>NO SUCH PAGE</p>" in reply.text and '<html lang="xx">' in reply.text


def test_the_dice_rule_and_the_pads_speak_too(device, shouting) -> None:
    device.pair()
    assert device.client.post("/api/matches", json={
        "game": "final-count", "players": ["Ann", "Bob"]}).status_code == 200
    reply = device.client.post("/api/events", json={"event": {
        "type": "roll", "player": "Ann", "value": 3}})
    assert reply.status_code == 409 and reply.json()["code"] == "ILLEGAL"
    assert reply.json()["error"] == ("THE DEVICE ROLLS THE DICE HERE; A TABLE THAT ROLLS "
                                     "REAL DICE SETS [DICE] PHYSICAL = TRUE")
    pads = {pad["type"]: pad for pad in device.state()["pads"]}
    assert pads["roll"]["label"] == "ROLL THE DIE" and pads["roll"]["type"] == "roll"
    assert pads["call"]["fields"][0]["label"] == "WHO CALLS"
    assert pads["call"]["fields"][0]["name"] == "player"   # keys and kinds stay


def test_switching_the_language_between_two_requests_changes_the_second(device,
                                                                       shouting) -> None:
    shouting.off()
    first = device.client.get("/history").text
    shouting.on()
    second = device.client.get("/history").text
    assert '<html lang="en">' in first and "<h1>History</h1>" in first
    assert '<html lang="xx">' in second and "<h1>HISTORY</h1>" in second
    shouting.off()
    third = device.client.get("/api/players/Nobody").json()["error"]
    shouting.on()
    fourth = device.client.get("/api/players/Nobody").json()["error"]
    assert (third, fourth) == ("no player 'Nobody'", "NO PLAYER 'Nobody'")


def test_the_live_view_follows_a_switch_too(device, shouting) -> None:
    """The stream's view message is rendered in the language spoken when it is sent."""
    from companion.remote.web.asgi import build_app

    app = build_app(device.source)
    site = app.state.site
    snap = {"state": {"match": None, "saved": True}, "events": []}
    shouting.off()
    english = json.loads(site.view_message(snap).split("data: ", 1)[1])
    shouting.on()
    shouted = json.loads(site.view_message(snap).split("data: ", 1)[1])
    assert "No game on the table" in english["html"]
    assert "NO GAME ON THE TABLE" in shouted["html"]


def test_speaking_installs_the_language_in_any_environment(shouting) -> None:
    env = speaking(jinja2.Environment(autoescape=True))
    page = env.from_string(
        '<html lang="{{ lang }}">{{ _("Players") }} {{ _("{name} to play").format(name=who) }}'
        ' {{ ngettext("{n} event", "{n} events", 2).format(n=2) }}'
        ' {{ pgettext("button", "Roll") }} {{ lang.number(2.5) }}').render(who="<Ann>")
    assert page == ('<html lang="xx">PLAYERS &lt;Ann&gt; TO PLAY 2 EVENTS ROLL 2.5')
    shouting.off()
    assert env.from_string("{{ lang }} {{ _('Players') }}").render() == "en Players"


def test_the_page_marks_its_texts_for_the_catalog() -> None:
    """Every template text goes through _(): no English words left between tags."""
    folder = Path(views.__file__).with_name("templates")
    for template in folder.glob("*.html"):
        text = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", "", template.read_text(), flags=re.S)
        for between in re.findall(r">([^<>]+)<", text):
            left = re.sub(r"&\w+;|&#\d+;|[\s:·,.()]", "", between)
            assert not re.search(r"[A-Za-z]{2,}", left), (template.name, between)


def test_a_finished_match_page_speaks_too(device, shouting) -> None:
    device.pair()
    match_id = device.client.post("/api/matches", json={
        "game": "scoreboard", "players": ["Ann", "Bob"], "options": {"target": 20}},
    ).json()["match_id"]
    for player, points in (("Ann", 5), ("Bob", 12), ("Ann", 20), ("Bob", 3)):
        device.client.post("/api/events", json={"event": {
            "type": "points", "player": player, "points": points}})
    page = device.client.get(f"/matches/{match_id}").text
    assert "FINISHED: <strong>Ann</strong> WON" in page
    assert ">ROUND</th>" in page and ">TOTAL</td>" in page and "4 EVENTS" in page
    # The unit ("round") is the game's word (companion.games), put into the sentence.
    assert "Bob SCORED 12: ROUND 1 OVER (Ann +5, Bob +12)" in page
    table = device.client.get("/").text
    assert "GAME OVER: <strong>Ann</strong> WINS" in table
