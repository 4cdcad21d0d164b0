"""Issue 30: the club page and ``companion club``'s sentences speak the device's language
(a made-up catalog that shouts, so no real catalog is needed); what programs read (JSON
keys, codes) and what is data (table and player names, game names) stays as it is."""

from __future__ import annotations

import gettext
import io
import re

import pytest
from starlette.testclient import TestClient

import companion.lang as lang
from companion.club.ledger import LEDGER_NAME, Ledger
from companion.club.main import review_main
from companion.club.night import Round
from companion.club.organiser import organiser_token
from companion.club.receiver import Receiver
from companion.club.rounds import round_text
from companion.club.seasons import parse_seasons
from companion.club.seating import Seat, table_sizes
from companion.club.web import ClubPage
from companion.errors import SeasonError, SeatingError
from companion.store import Store
from tests.test_club_seasons import finish
from tests.test_club_truth import FakeDashboard

HEADERS = {"Origin": "http://testserver", "Content-Type": "application/json"}
#: How the made-up language writes numbers and dates (German's way).
FORMATS = {"decimal separator": ",", "a date in digits": "{day}.{month}.{year}",
           "a date and a time of day": "{date} {hour}:{minute}"}


def shout(text: str) -> str:
    """``text`` in capitals outside its ``{fields}`` (which the code fills in)."""
    return "".join(part if part.startswith("{") else part.upper()
                   for part in re.split(r"(\{[^}]*\})", text))


class Shouting(gettext.NullTranslations):
    def gettext(self, message):
        return shout(message)

    def ngettext(self, singular, plural, n):
        return shout(singular if n == 1 else plural)

    def pgettext(self, context, message):
        return FORMATS.get(context, shout(message))

    def npgettext(self, context, singular, plural, n):
        return shout(singular if n == 1 else plural)


@pytest.fixture
def speak(monkeypatch):
    """``speak("xx")`` switches to the shouting language, ``speak("en")`` back, live."""
    def switch(code: str) -> None:
        monkeypatch.setattr(lang, "_current", [code, Shouting() if code == "xx"
                                               else gettext.NullTranslations()])
    yield switch


class Dashboard(FakeDashboard):
    """A dashboard with a state dir (the organiser's form) and calls run at once."""

    def __init__(self, receiver: Receiver, state_dir):
        super().__init__(receiver)
        self.state_dir = state_dir
        self.seasons = parse_seasons("Spring: 2026-03-01..2026-05-31")

    def call(self, fn):
        fn(self.receiver)


@pytest.fixture
def club(tmp_path):
    store = Store(":memory:")
    finish(store, "2026-03-02", {"Ann": 10, "Bob": 5})
    finish(store, "2026-03-03", {"Ann": 1, "Bob": 5})
    page = ClubPage(Dashboard(Receiver(store, lambda *r: None), tmp_path), store)
    return TestClient(page.asgi())


def test_the_club_page_speaks_the_device_language_and_switches_live(club, speak):
    english = club.get("/").text
    assert "<h1>League</h1>" in english and "2026-03-01 to 2026-05-31" in english
    assert "Ties are broken by: more wins; better average place" in english
    assert ">1.5</td>" in english  # Ann's and Bob's average place in the season
    speak("xx")
    page = club.get("/").text
    assert "<h1>LEAGUE</h1>" in page and "<th>NAME</th>" in page
    assert "TIES ARE BROKEN BY: MORE WINS; BETTER AVERAGE PLACE" in page
    assert ">NO TABLE HAS REPORTED YET.<" in page and ">LOCK Spring</button>" in page
    assert "01.03.2026 TO 31.05.2026" in page and ">1,5</td>" in page  # dates, numbers
    assert "<td>Ann</td>" in page and "<td>Bob</td>" in page  # names are data
    assert '<a href="/history">HISTORY</a>' in page
    speak("en")  # Settings > Language: the next page speaks it, nothing cached
    assert club.get("/").text == english


def test_the_organisers_form_and_refusals_speak_it_too(club, speak, tmp_path, monkeypatch):
    from starlette.concurrency import run_in_threadpool

    from companion.club.organiser import SeatWorker

    async def here(worker, fn, *args):  # the words are tested here, not the process
        return await run_in_threadpool(fn, *args)
    monkeypatch.setattr(SeatWorker, "start", lambda worker: None)
    monkeypatch.setattr(SeatWorker, "run", here)
    speak("xx")
    refused = club.post("/api/club/held/1/accept", headers=HEADERS, content="{}")
    assert refused.status_code == 403
    assert refused.json()["error"].startswith("ONLY THE ORGANISER DECIDES")  # the key stays
    club.get(f"/organiser?token={organiser_token(tmp_path)}", follow_redirects=False)
    page = club.get("/").text
    assert ">SEAT THE NEXT ROUND <" in page and ">SEAT AND SEND TO THE TABLES<" in page
    seated = club.post("/api/club/seat", headers=HEADERS,
                       content='{"game": "scoreboard", "present": "Ann", "tables": 1}')
    assert seated.status_code == 400 and "TOO FEW FOR ONE TABLE" in seated.json()["error"]


def test_the_club_command_line_speaks_it(tmp_path, speak):
    Ledger(tmp_path / LEDGER_NAME).close()  # a dashboard's book with nothing held
    rnd = Round(1, "final-count", 5, 0.0, [Seat("t1", ("Ann", "Bob"))])
    out = io.StringIO()
    assert review_main(tmp_path, out=out) == 0
    assert out.getvalue() == "No match waits for the organiser.\n"
    assert round_text(rnd).splitlines()[0] == "Round 1: Final Count (draw seed 5)"
    speak("xx")
    out = io.StringIO()
    assert review_main(tmp_path, out=out) == 0
    assert out.getvalue() == "NO MATCH WAITS FOR THE ORGANISER.\n"
    # The game's name stays as its rule sheet prints it; the table and players are data.
    assert round_text(rnd) == "ROUND 1: Final Count (DRAW SEED 5)\n  t1  Ann, Bob"
    with pytest.raises(SeasonError, match="ENDS BEFORE IT STARTS"):
        parse_seasons("Spring: 2026-05-01..2026-03-01")
    with pytest.raises(SeatingError, match="^1 PLAYER IS TOO FEW FOR ONE TABLE"):
        table_sizes(1, 1, 2, 4)
