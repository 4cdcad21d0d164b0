"""What the pages show, computed from a match's record and log: the log in words, the
standings and the chart of totals (an SVG drawn here, so the page needs no chart code).

Pure functions of plain data: the live table, the history pages and the club
dashboard all use them the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from companion import games
from companion.clock import said_when
from companion.games import card_down
from companion.lang import N_, _, long_date_time, ngettext, pgettext
from companion.table.dice import entered as _entered

#: Why a Block Lottery round ended, after the player's name.
END_CAUSES = {"empty_hand": N_("had no cards left"), "deck_out": N_("could not draw"),
              "last_die": N_("took the last die")}
#: Lines of the log on the table view.
LOG_LINES = 12
#: Chart size in SVG user units (it scales to the page).
CHART_W, CHART_H = 600, 260


game_title = games.title


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return " ".join(_value(item) for item in value)
    if isinstance(value, Mapping):
        return " ".join(_value(item) for item in value.values() if item is not None)
    return str(value).replace("_", " ")


def _card_value(card: Any) -> str:
    """A card as a person reads it: a Card-Down card's colour and suit in words ("7 red
    hearts" in the device's language), any other as it is written."""
    if (isinstance(card, Mapping) and isinstance(card.get("colour"), str)
            and isinstance(card.get("suit"), str)):
        return card_down.card_words(_value(card.get("value")), card["colour"], card["suit"])
    return _value(card)


def _card(event: Mapping[str, Any]) -> str:
    """The card an event names, however the game spells it (a number, a rank, a dict)."""
    for key in ("card", "value", "effect"):
        if key in event:
            count = event.get("count", 1)
            card = _card_value(event[key])
            # Translators: {count} cards of the same value, played at once ("2 x 7").
            return (_("{count} x {card}").format(count=count, card=card)
                    if isinstance(count, int) and count > 1 else card)
    return _("a card")


def _cards(value: Any) -> str:
    # Translators: no cards were entered.
    return _value(value) if value else pgettext("no cards", "none")


def _nobody(value: Any) -> str:
    return _value(value) or _("nobody")


def _said(who: str, sentence: str, **fields: Any) -> str:
    """``sentence`` with the player (``{player}``) and ``fields`` filled in; an event
    with no player starts with what happened."""
    return sentence.format(player=who, **fields).strip()


def _roll(e: Mapping[str, Any], who: str) -> str:
    value = _value(e.get("value"))
    if _entered(e):
        # Translators: a die's face typed in from a real die (not rolled by the device).
        return _said(who, _("{player} entered {value}"), value=value)
    return _said(who, _("{player} rolled {value}"), value=value)


def _goal(e: Mapping[str, Any]) -> str:
    rolls, entered = e.get("rolls"), _entered(e)
    if _two_faces(rolls):
        text = (_("Hit Goal: entered {first} and {second}, the goal is {goal}") if entered
                else _("Hit Goal: rolled {first} and {second}, the goal is {goal}"))
        return text.format(first=rolls[0], second=rolls[1],
                           goal=10 * max(rolls) + min(rolls))
    text = _("Hit Goal: entered {value}") if entered else _("Hit Goal: rolled {value}")
    return text.format(value=_value(rolls))


def _hand(e: Mapping[str, Any], who: str) -> str:
    if "cards" in e:
        return _said(who, _("{player} has {cards}"), cards=_cards(e["cards"]))
    if "values" in e:
        return _said(who, _("{player} holds {cards}"), cards=_cards(e["values"]))
    return _said(who, _("{player} holds cards worth {value}"), value=_value(e.get("sum")))


def _end(e: Mapping[str, Any], who: str) -> str:
    if "cause" not in e:
        return " ".join(word for word in (who, _("The players ended the match")) if word)
    cause = e.get("cause")
    why = _(END_CAUSES[cause]) if cause in END_CAUSES else _value(e["cause"])
    return _said(who, _("{player} ended the round: {why}"), why=why)


def _pool(e: Mapping[str, Any]) -> str:
    faces = _value(e.get("faces"))
    if _entered(e):
        return _("Entered the pool: {faces}").format(faces=faces)
    return _("Rolled the pool: {faces}").format(faces=faces)


def _token(e: Mapping[str, Any]) -> str:
    token = _value(e.get("token"))
    if _entered(e):
        # Translators: a lottery token drawn from the table's real tin and typed in.
        return _("Entered token {token}").format(token=token)
    return _("Drew token {token}").format(token=token)


def _reroll(e: Mapping[str, Any], who: str) -> str:
    old, new = _value(e.get("from")), _value(e.get("to"))
    if _entered(e):
        return _said(who, _("{player} re-rolled {old} and entered {new}"), old=old, new=new)
    return _said(who, _("{player} re-rolled {old} and got {new}"), old=old, new=new)


def _score(e: Mapping[str, Any], who: str) -> str:
    blocks, hand = _value(e.get("blocks")), _value(e.get("hand"))
    if "lucky" in e:
        return _said(who, _("{player} counted {blocks} cards in blocks and {hand} in hand, "
                            "{lucky} lucky"), blocks=blocks, hand=hand, lucky=_value(e["lucky"]))
    return _said(who, _("{player} counted {blocks} cards in blocks and {hand} in hand"),
                 blocks=blocks, hand=hand)


def _starter(e: Mapping[str, Any]) -> str:
    value, face_up = _value(e.get("value")), _nobody(e.get("face_up"))
    if "in_hand" in e:
        return _("Who has a {value}? face up: {face_up}; in hand: {in_hand}").format(
            value=value, face_up=face_up, in_hand=_nobody(e["in_hand"]))
    return _("Who has a {value}? face up: {face_up}").format(value=value, face_up=face_up)


def _turn_up(e: Mapping[str, Any]) -> str:
    if e.get("card"):
        return _("Turned up {card}").format(card=_card_value(e["card"]))
    return _("Turned up a card")


#: One event in words, per type: (event, player) -> the line, in the device's language
#: (a sentence whose player is "" starts with what happened). Types shared by several
#: games read right for each (the fields tell them apart). The events whose words name
#: no player (the Board, the pool ...) are in :data:`UNSAID`.
PHRASES: dict[str, Any] = {
    "roll": _roll,
    "call": lambda e, who: _said(who, _("{player} called: everyone else has one more turn")),
    "hand": _hand,
    "play": lambda e, who: _said(who, _("{player} played {card}"), card=_card(e)),
    "chain": lambda e, who: _said(who, _("{player} played a run {first} to {last}"),
                                  first=_value(e.get("first")), last=_value(e.get("last"))),
    "blind": lambda e, who: _said(who, _("{player} turned over a face-down {value}"),
                                  value=_value(e.get("value"))),
    "pass": lambda e, who: _said(who, _("{player} passed")),
    "pickup": lambda e, who: _said(who, _("{player} picked up the pile")),
    "out": lambda e, who: _said(who, _("{player} is out (no cards left)")),
    "points": lambda e, who: _said(who, _("{player} scored {points}"),
                                   points=_value(e.get("points"))),
    "end": _end,
    "call_out": lambda e, who: _said(
        # Translators: {word} is what the player had to say (TRIO, DUO, UNO), as it is.
        who, _("{player} called out {offender} for not saying {word}: they draw 2"),
        offender=_value(e.get("offender")), word=_value(e.get("word"))),
    "said": lambda e, who: _said(who, _("{player} said {word}"), word=_value(e.get("word"))),
    "forgot": lambda e, who: _said(who, _("{player} forgot to say {word}"),
                                   word=_value(e.get("word"))),
    "colour": lambda e, who: _said(who, _("{player} named the colour {colour}"),
                                   colour=card_down.colour_word(_value(e.get("colour")))),
    "draw": lambda e, who: _said(who, _("{player} drew a card")),
    "draw_stack": lambda e, who: _said(who, _("{player} drew the stack")),
    "take": lambda e, who: _said(who, _("{player} took a {face}"), face=_value(e.get("face"))),
    "reroll": _reroll,
    "score": _score,
}
#: Events whose words name no player (one given anyway is put before them).
UNSAID: dict[str, Any] = {
    "goal": _goal,
    "board": lambda e: _("Board cards: {cards}").format(cards=_cards(e.get("cards"))),
    "end_match": lambda e: _("The players ended the match"),
    "turn_up": _turn_up,
    "pool": _pool,
    "token": _token,
    "starter": _starter,
}


def _two_faces(rolls: Any) -> bool:
    return (isinstance(rolls, list) and len(rolls) == 2
            and all(isinstance(r, int) and not isinstance(r, bool) for r in rolls))


def event_words(event: Mapping[str, Any]) -> str:
    """One event as a person says it: ``{"type": "roll", "player": "Ann", "value": 3}``
    is "Ann rolled 3"; ``{"type": "end", "player": "Bob", "cause": "deck_out"}`` is
    "Bob ended the round: could not draw". A type no game has reads "Ann: type ..."."""
    kind = str(event.get("type", "?"))
    who = str(event.get("player", "") or "")
    try:
        if kind in PHRASES:
            return PHRASES[kind](event, who)
        if kind in UNSAID:
            return " ".join(word for word in (who, UNSAID[kind](event)) if word)
    except (KeyError, TypeError, ValueError):
        pass  # a malformed event (the engine refused it): plain words below
    rest = [_value(value) for key, value in event.items() if key not in ("type", "player")]
    words = [f"{who}:" if who else "", kind.replace("_", " "), *rest]
    return " ".join(word for word in words if word)


def log_lines(events: Sequence[Mapping[str, Any]], last: int | None = LOG_LINES,
              game: tuple[str, Sequence[str], Mapping[str, Any]] | None = None,
              ) -> list[tuple[int, str]]:
    """(seq, words) for the last ``last`` events (all when None), oldest first. With
    ``game`` = (game id, players, options) a line also says what its event meant at the
    table, as the rules tell it: "Ann rolled 3: draw for Board"."""
    start = 0 if last is None else max(0, len(events) - last)
    notes = event_notes(game, events) if game is not None else [""] * len(events)
    # Translators: an event in words, then what it meant at the table.
    return [(seq, _("{event}: {note}").format(event=event_words(event), note=notes[seq - 1])
             if notes[seq - 1] else event_words(event))
            for seq, event in enumerate(events[start:], start + 1)]


#: What one row of a game's score sheet is, as its players call it.
def unit(game_id: str) -> str:
    """"hand", "round" or "game": what a game's scores are counted by."""
    return games.unit(game_id)


def _over(unit_word: str) -> str:
    """"hand {n} over ({gains})" for the game's unit, a whole sentence each (a language
    may inflect the word, or put the number first)."""
    # Translators: the result of hand/round/game {n} on the match page; {gains} is what
    # each player scored in it ("Ann +71, Bob +0").
    if unit_word == "hand":
        return _("hand {n} over ({gains})")
    if unit_word == "game":
        return _("game {n} over ({gains})")
    return _("round {n} over ({gains})")


def _running_totals(unit_word: str) -> str:
    """The chart's name for screen readers, by the game's unit."""
    if unit_word == "hand":
        return _("running totals by hand")
    if unit_word == "game":
        return _("running totals by game")
    return _("running totals by round")


def event_notes(game: tuple[str, Sequence[str], Mapping[str, Any]],
                events: Sequence[Mapping[str, Any]]) -> list[str]:
    """:meth:`Match.note` of each event, by replaying them once through the game's
    engine ("" for every event from where a log stops replaying). An event that ends a
    hand, round or game also says its result: "hand 2 over (Ann +71, Bob +0)"."""
    from companion.errors import CompanionError
    from companion.games import new_match

    notes = [""] * len(events)
    word = unit(game[0])
    try:
        match = new_match(*game)
        totals, done = dict(match.result().get("totals", {})), 0
        for index, event in enumerate(events):
            match.apply(dict(event))
            result = match.result()
            settled = _settled(result)
            note = match.note(event)
            if settled > done:
                after = result.get("totals", {})
                gains = ", ".join(f"{name} {_signed(after.get(name, 0) - totals.get(name, 0))}"
                                  for name in match.players)
                over = _over(word).format(n=settled, gains=gains)
                note = "; ".join(part for part in (note, over) if part)
            notes[index] = note
            totals, done = dict(result.get("totals", {})), settled
    except CompanionError:
        pass  # a log the engine refuses is still shown, in plain words
    return notes


def _settled(result: Mapping[str, Any]) -> int:
    """Hands, rounds or games a result holds as finished."""
    for key in ("hands", "rounds", "games"):
        if isinstance(result.get(key), list):
            return len(result[key])
    return 0


def _signed(number: Any) -> str:
    return f"+{number}" if isinstance(number, int | float) and number >= 0 else str(number)


def score_table(record: Any, events: Sequence[Mapping[str, Any]],
                result: Mapping[str, Any] | None = None) -> list[list[str]] | None:
    """The score sheet ``companion export --format csv`` writes (header, a row per
    hand/round, ``total``), or None for a game without scores; ``result`` as
    :func:`companion.transcript.score_rows` takes it."""
    from companion.transcript import score_rows

    return score_rows(record, events, result)


def series(table: list[list[str]] | None) -> tuple[list[str], list[list[int]]]:
    """(players, running totals after each hand/round per player) from a score sheet."""
    if not table or len(table) < 3:
        return [], []
    players = table[0][1:]
    running = [0] * len(players)
    points: list[list[int]] = [[0] for _ in players]
    for row in table[1:-1]:
        for index, cell in enumerate(row[1:]):
            try:
                running[index] += int(cell)
            except ValueError:
                continue
            points[index].append(running[index])
    return players, points


#: Seats that get a colour of their own (site.css ``.p0`` .. ``.p9``); more wrap round.
SEAT_COLOURS = 10
#: Units between the lines of two seats (equal totals stay apart, side by side).
LINE_GAP = 4
#: Dash patterns by seat, so lines that run together (equal totals) stay apart; the
#: markers at each point differ too (:func:`_marker`).
DASHES = ("", "14 6", "4 5", "14 5 4 5", "22 6", "2 4", "10 4 2 4", "18 4 4 4", "6 6", "")


def seat_class(seat: int) -> str:
    """The class that gives a player's seat its colour on every page (site.css)."""
    return f"p{seat % SEAT_COLOURS}"


def _marker(seat: int, cx: float, cy: float) -> str:
    """A point of seat ``seat``'s line: circle, square, diamond or triangle."""
    shape = seat % 4
    if shape == 0:
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6"/>'
    if shape == 1:
        return f'<rect x="{cx - 5.5:.1f}" y="{cy - 5.5:.1f}" width="11" height="11"/>'
    if shape == 2:
        return (f'<polygon points="{cx:.1f},{cy - 7:.1f} {cx + 7:.1f},{cy:.1f} '
                f'{cx:.1f},{cy + 7:.1f} {cx - 7:.1f},{cy:.1f}"/>')
    return (f'<polygon points="{cx:.1f},{cy - 7:.1f} {cx + 7:.1f},{cy + 5:.1f} '
            f'{cx - 7:.1f},{cy + 5:.1f}"/>')


def chart_svg(players: Sequence[str], points: Sequence[Sequence[int]], label: str = "hand",
              ) -> str:
    """Running totals as lines, one colour, dash pattern and marker per seat (so equal
    totals stay apart), with a legend; "" with fewer than two hands (nothing to draw
    yet). Colours come from site.css classes (no inline styles). Every text is escaped."""
    if not points or max(len(line) for line in points) < 2:
        return ""
    left, right, top, bottom = 66, 16, 14, 40
    width, height = CHART_W - left - right, CHART_H - top - bottom
    steps = max(len(line) for line in points) - 1
    low = min(0, *(min(line) for line in points))
    high = max(1, *(max(line) for line in points))
    span = high - low

    def x(i: int) -> float:
        return left + width * i / steps

    def y(v: int) -> float:
        return top + height * (high - v) / span

    named = _running_totals(label)

    parts = [f'<svg class="chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
             f'aria-label="{escape(named)}">']
    for v in sorted({low, 0, high}):
        parts.append(f'<line class="grid" x1="{left}" x2="{CHART_W - right}" '
                     f'y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                     f'<text class="axis" x="{left - 14}" y="{y(v) + 5:.1f}" '
                     f'text-anchor="end">{v}</text>')
    every = max(1, steps // 10)  # no more than ten numbers under the axis
    for i in range(every, steps + 1, every):
        parts.append(f'<text class="axis" x="{x(i):.1f}" y="{CHART_H - 12}" '
                     f'text-anchor="middle">{i}</text>')
    for seat, (name, line) in enumerate(zip(players, points, strict=False)):
        # Each seat a few units up or down, so equal totals draw side by side.
        shift = (seat - (len(players) - 1) / 2) * LINE_GAP
        path = " ".join(f"{x(i):.1f},{y(v) + shift:.1f}" for i, v in enumerate(line))
        dash = DASHES[seat % len(DASHES)]
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        marks = "".join(_marker(seat, x(i), y(v) + shift) for i, v in enumerate(line))
        parts.append(f'<g class="line {seat_class(seat)}"><title>{escape(name)}</title>'
                     f'<polyline fill="none" stroke-width="4"{dashes} points="{path}"/>'
                     f'{marks}</g>')
    parts.append("</svg>")
    legend = "".join(f'<span class="key {seat_class(seat)}"><i></i>{escape(name)}</span>'
                     for seat, name in enumerate(players))
    return "".join(parts) + f'<div class="legend">{legend}</div>'


def player_url(name: str) -> str:
    """The address of a player's page; any character a name may hold (a slash, a
    question mark) is escaped."""
    from urllib.parse import quote

    return "/players/" + quote(name, safe="")


def when(timestamp: float | None) -> str:
    """A date and time as a table reads it, in the device's time: "Wed 25 Nov 2026 18:05"
    ("?" for a time no calendar can show, as ``companion stats`` says it)."""
    return said_when(timestamp, long_date_time, none="")


#: The score sheet's words (the export's, which stay English in the file) as the page
#: shows them: its first column's heading and its last row.
SHEET_WORDS = {"hand": N_("Hand"), "round": N_("Round"), "total": N_("Total")}


def sheet_word(text: Any) -> str:
    """A word of the score sheet's first column as the page shows it: "Round",
    "Total" in the device's language; a hand's number as it is."""
    word = str(text)
    if word == "game":
        # Translators: the heading over a match's games by their number (not which
        # game is played, as the history's "Game" says).
        return pgettext("game in a match", "Game")
    return _(SHEET_WORDS[word]) if word in SHEET_WORDS else word.capitalize()


def number(value: Any) -> str:
    """A figure as the device's language writes it ("2,5" in German); anything that is
    not a fraction is shown as it is."""
    if isinstance(value, float):
        return str(value).replace(".", pgettext("decimal separator", "."))
    return "" if value is None else str(value)


def together(names: Sequence[str]) -> str:
    """Winners named together: "Ann and Bob" ("Ann and Bob and Cy" for three)."""
    text = ""
    for name in names:
        text = _("{names} and {last}").format(names=text, last=name) if text else str(name)
    return text


def length(seconds: float | None) -> str:
    """How long a match took: "45 min", "1 h 05 min" ("" when not known)."""
    if seconds is None or seconds < 0:
        return ""
    minutes = round(seconds / 60)
    if minutes < 60:
        return _("{minutes} min").format(minutes=max(minutes, 1))
    return _("{hours} h {minutes} min").format(hours=minutes // 60,
                                               minutes=f"{minutes % 60:02d}")


def page_title(state: Mapping[str, Any], site: str) -> str:
    """The browser tab's title: the game and whose turn, or who won ("Final Count: Ann
    to play · Tabletop Companion"), so a tab or a screen reader says where the game is."""
    game = state.get("game")
    if not game:
        return site
    title = str(state.get("title") or game_title(game))
    winners = list(state.get("winners") or [])
    if state.get("over"):
        now = ngettext("{names} wins", "{names} win", len(winners)).format(
            names=together(winners)) if winners else _("game over")
    elif state.get("turn"):
        now = _("{player} to play").format(player=state["turn"])
    else:
        now = str(state.get("prompt") or "")
    if not now:
        return f"{title} · {site}"
    # Translators: the browser tab's title: the game, where it is, the device's name.
    return _("{title}: {now} · {site}").format(title=title, now=now, site=site)


def open_game(state: Mapping[str, Any], waiting: Mapping[str, Any] | None) -> str:
    """What a new game would push aside, in words ("" when nothing would): the game on
    the table, or the one waiting to be resumed on the device."""
    if state.get("game") and not state.get("over"):
        game, match_id, title = state["game"], state.get("match_id"), state.get("title")
        waits = False
    elif waiting:
        game, match_id = waiting["game"], waiting.get("match_id")
        title, waits = waiting.get("title"), True
    else:
        return ""
    name = f"{title or game_title(game)}"
    if match_id:
        name = _("{game} (match {number})").format(game=name, number=match_id)
    if waits:
        return _("{game} is not finished: it waits to be resumed. Starting a new game keeps "
                 "it in the history as abandoned.").format(game=name)
    return _("{game} is not finished. Starting a new game keeps it in the history as "
             "abandoned.").format(game=name)


def last_words(events: Sequence[Mapping[str, Any]]) -> str:
    """The newest event in words, for "Undo 'Bob rolled 4'?" ("" with none)."""
    return event_words(events[-1]) if events else ""


def script_words() -> dict[str, str]:
    """The words the pages' scripts write (site.js, table.js, club.js), in the device's
    language: the page carries them as JSON (the body's ``data-words``), so the scripts
    hold no sentence of their own. ``{...}`` fields are
    filled in by the script."""
    return {
        "refused": _("refused"),
        "rename": _("New name for {name}"),
        "remove": _("Remove {name} from the roster?"),
        "start_anyway": _("Start the new game anyway?"),
        "tap_to_add": _("tap below to add"),
        # Translators: a chip's label for a screen reader: tap it to take a card out.
        "take_out": _("take out {value}"),
        # Translators: a button's label for a screen reader: tap it to add a card.
        "add": _("add {value}"),
        "minus_one": _("{label} minus one"),
        "plus_one": _("{label} plus one"),
        # Translators: after a pad field's name: cards picked so far of how many.
        "picked_of": _(" ({n} of {max})"),
        # Translators: after a pad field's name: cards picked so far, fewest to most.
        "picked_range": _(" ({n}, {min} to {max})"),
        "what_happened": _("What happened"),
        # Translators: the Undo button, naming the event it takes back.
        "undo_last": _("Undo \u201c{last}\u201d"),
        "undo": _("Undo"),
        "undo_ask": _("Undo \u201c{last}\u201d?"),
        # Translators: the turn timer ran out.
        "time_up": _("time!"),
        # Translators: the table page's button that lets this browser speak what the
        # device announces; then the same button while it speaks (a tap stops it).
        "speak": _("Speak aloud"),
        "speaking": _("Speaking aloud: tap to stop"),
        # Translators: said by the browser when speaking is switched on.
        "speak_on": _("The table's words are spoken here now."),
        "seating": _("Seating..."),
        "no_answer": _("The dashboard did not answer: {problem}"),
        "seated": _("Round {round} seated (draw seed {seed}); the dashboard sends it to the "
                    "tables."),
    }


def standings(players: Sequence[str], totals: Mapping[str, Any], winners: Sequence[str],
              high_wins: bool = True) -> list[dict[str, Any]]:
    """Players best first (seat order when nobody has a total yet)."""
    rows = [{"name": name, "total": totals.get(name), "seat": seat,
             "winner": name in winners} for seat, name in enumerate(players)]
    if any(isinstance(row["total"], int | float) for row in rows):
        sign = -1 if high_wins else 1
        rows.sort(key=lambda row: (not row["winner"], sign * (row["total"] or 0), row["seat"]))
    return rows


def high_wins(game_id: str) -> bool:
    from companion.errors import UnknownGame
    from companion.games import engine

    try:
        return bool(engine(game_id).high_wins)
    except UnknownGame:
        return True
