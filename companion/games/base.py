"""What every game engine is: a match that folds JSON events into state.

A match never rolls, draws or reads the clock. The device does that and feeds the
*outcome* in as an event; the match checks it against the rules and either applies it
or raises :class:`~companion.errors.IllegalEvent` and stays exactly as it was. So the
state is a fold over the event log, and resume, undo, replay and the serial console all
come from the same two calls, :meth:`Match.apply` and :meth:`Match.replay`::

    >>> from companion.games import new_match
    >>> match = new_match("final-count", ["Ann", "Bob"])
    >>> match.apply({"type": "roll", "player": "Ann", "value": 3})
    >>> match.expecting().player
    'Bob'

A game is a subclass with one ``on_<type>(event)`` method per event type. A handler
checks first and changes state after; even so, :meth:`Match.apply` puts the state back
if a handler raises half-way, so a refused event can never leave a trace.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

from companion.errors import BadSetup, IllegalEvent, written
from companion.lang import _, and_list, lazy, pgettext
from companion.table.timer import TIMER_OPTION, check_timer_option
from companion.words import counted

Event = dict[str, Any]


class Said(Mapping[Any, str]):
    """A rules table of words (a die face's action, a card's effect) whose texts are
    said in the language spoken when one is looked up: ``table[key]`` is a plain
    ``str``, so a screen may slice, measure or draw it. The texts are
    :class:`~companion.lang.lazy` so the catalog finds them with their screen place;
    :meth:`message` is a text's English, for what a match keeps."""

    def __init__(self, texts: Mapping[Any, lazy]):
        self._texts = dict(texts)

    def __getitem__(self, key: Any) -> str:
        return str(self._texts[key])

    def __iter__(self) -> Iterator[Any]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def message(self, key: Any) -> str:
        """The English text of ``key`` (the message itself, never translated)."""
        return self._texts[key].message

    def text(self, key: Any) -> lazy:
        """The lazy text of ``key``: its place and English, to be said in any language
        (companion.commands.worst measures every language's longest)."""
        return self._texts[key]

    def __repr__(self) -> str:
        return f"Said({ {key: text.message for key, text in self._texts.items()} !r})"


class Expect(NamedTuple):
    """What a match waits for next: it drives the screens, so they never copy rules.

    ``types`` are the event types legal now; ``player`` is whose move it is (None when
    the move is nobody's, e.g. entering the Board's cards); ``choices`` gives, per event
    field, the values that are legal (e.g. ``{"value": (1, 2, 3, 4, 5, 6)}``); ``prompt``
    is one short line for the screen ("Ann: roll or call").
    """

    types: tuple[str, ...] = ()
    player: str | None = None
    choices: Mapping[str, tuple[Any, ...]] = MappingProxyType({})
    prompt: str = ""


#: The kinds of chance a game has: each is the device's unless the table's own are used
#: (the configuration's ``[dice] physical`` and ``[tokens] physical``).
DICE, TOKENS = "dice", "tokens"


class Chance(NamedTuple):
    """What luck decides in one event (:meth:`Match.chance`): ``field`` holds it, one
    value (``count`` None) or a list of ``count``; ``kind`` is :data:`DICE` (faces 1 to
    6) or :data:`TOKENS` (one of ``bag``, the tokens in the tin now)."""

    field: str
    count: int | None
    kind: str = DICE
    bag: tuple[str, ...] = ()


class Match:
    """Base class of the game engines (see the module docstring)."""

    #: Short id used on the command line, in the store and in events ("final-count").
    game_id: ClassVar[str] = ""
    #: Name shown on the screen ("Final Count").
    title: ClassVar[str | lazy] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    #: Option name -> default value. Options given at the start must be among these and
    #: of the same type as the default.
    option_defaults: ClassVar[Mapping[str, Any]] = {}
    #: Whether the highest total leads (False: lowest is best, as in Final Card-Down).
    high_wins: ClassVar[bool] = True
    #: Whether players take turns, so a turn timer has someone's time to run (False:
    #: everyone plays at once, as in Block Lottery; such a game takes no timer).
    has_turns: ClassVar[bool] = True
    #: The event fields that name players (a name, or a list of names): a second way in
    #: writes each as its player is seated ("kate" for the seated "ΚΑΤΕ",
    #: :func:`companion.names.seated_spellings`) before the match checks it.
    player_fields: ClassVar[tuple[str, ...]] = ("player",)

    def __init__(self, players: Sequence[str], options: Mapping[str, Any] | None = None):
        self.players: tuple[str, ...] = check_players(players, self.min_players, self.max_players)
        given = dict(options or {})
        # The table's timer rides with the match (resume, export, import carry it) but is
        # no rule of the game: every game with turns takes it, none has it by default.
        timer = given.pop(TIMER_OPTION, None)
        self.options: dict[str, Any] = check_options(given, self.option_defaults)
        if TIMER_OPTION in (options or {}):
            if not self.has_turns:
                raise BadSetup(pgettext("screen 21xN", "{game} has no turns to time: no "
                                        "option timer").format(game=self.title))
            self.options[TIMER_OPTION] = check_timer_option(timer)
        self.events: list[Event] = []
        self.setup()

    # -- what a game defines -------------------------------------------------------

    @classmethod
    def new_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options a match started now is given: ``options`` plus what a new match
        has on that an old log, which lacks the option, must replay without (Full
        Counter counts the cards). The one place new matches get them:
        :meth:`companion.session.Session.start`, and ``companion replay`` for a log
        with no start line."""
        return dict(options)

    def setup(self) -> None:
        """Set up the state before the first event (players and options are known)."""

    @property
    def over(self) -> bool:
        """True once the game (or match of games) is finished."""
        raise NotImplementedError

    def expecting(self) -> Expect:
        """What the match waits for next."""
        raise NotImplementedError

    def result(self) -> dict[str, Any]:
        """The standings as JSON: at least ``over``, ``totals`` and ``winners``."""
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        """Everything a screen or a mirror needs to show the table, as JSON."""
        return self.result()

    def context(self) -> dict[str, Any]:
        """What the table shows beyond totals and the prompt, taken from :meth:`state`
        (what the OLED draws from), so the screen and the page cannot disagree:
        ``facts`` (``[{"label": "Dealer", "text": "Ann"}, ...]``, in the order a player
        reads them), ``columns`` (``[{"label": "Hand", "values": {"Ann": 3}}]``, a
        column of the player table each) and ``outcome`` (at the end, who won and how a
        tie was settled, in words; None before). A game adds its own facts in
        :meth:`table_facts` and columns in :meth:`player_columns`."""
        return {"facts": [{"label": label, "text": str(text)}
                          for label, text in self.table_facts() if text not in (None, "")],
                "columns": [{"label": label, "values": dict(values)}
                            for label, values in self.player_columns()],
                "outcome": self.outcome() if self.over else None}

    def table_facts(self) -> list[tuple[str, Any]]:
        """(label, text) pairs for :meth:`context`; an empty text is left out."""
        return []

    def player_columns(self) -> list[tuple[str, Mapping[str, Any]]]:
        """(label, {player: value}) for :meth:`context`'s ``columns``: what the page
        shows as columns of the player table (cards in hand), one a player."""
        return []

    def outcome(self) -> str:
        """Who won, in words: "Ann wins with 312", "Ann and Bob tie on 312 and share
        the win". A game whose ties are broken says how (it overrides this)."""
        result = self.result()
        winners, totals = list(result.get("winners", [])), result.get("totals", {})
        if not winners:
            return _("Nobody wins")
        score = totals.get(winners[0], "")
        if not self.high_wins:
            if len(winners) == 1:
                return _("{name} wins with the lowest total, {score}").format(
                    name=winners[0], score=score)
            return _("{names} tie on the lowest total, {score} and share the win").format(
                names=and_list(winners), score=score)
        if len(winners) == 1:
            return _("{name} wins with {score}").format(name=winners[0], score=score)
        return _("{names} tie on {score} and share the win").format(
            names=and_list(winners), score=score)

    def note(self, event: Event) -> str:
        """What ``event``, the one just applied, means at the table in a few words (a
        die face's action: "draw for Board"), or "" when its fields say it all."""
        return ""

    def chance(self, event: Event) -> Chance | None:
        """What luck decides in ``event``, or None for an event no chance decides: the
        field that holds it, how many values (None: one), the kind of chance (dice or
        lottery tokens) and, for a token, what the tin holds now. The device draws these
        values, or a table with real dice or tokens enters them (``"entered": true``);
        the one rule for every chance reads this (:mod:`companion.chance`)."""
        return None

    # -- the fold -----------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply one event, or raise :class:`IllegalEvent` and change nothing."""
        handler = self._handler_for(event)
        saved = self._snapshot()
        try:
            handler(event)
        except BaseException:
            vars(self).update(saved)
            raise
        self.events.append(copy.deepcopy(event))

    def check(self, event: Event) -> None:
        """Raise :class:`IllegalEvent` if ``event`` would be refused; change nothing."""
        handler = self._handler_for(event)
        saved = self._snapshot()
        try:
            handler(event)
        finally:
            vars(self).update(saved)

    def _snapshot(self) -> dict[str, Any]:
        """A copy of the state to put back (the event log is not touched by handlers)."""
        return copy.deepcopy({k: v for k, v in vars(self).items() if k != "events"})

    @classmethod
    def replay(
        cls,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        events: Iterable[Event],
    ) -> Match:
        """A new match with ``events`` applied in order.

        An illegal event raises :class:`IllegalEvent` whose ``index`` attribute is the
        0-based position of the refused event. Replay skips the per-event safety copy
        that :meth:`apply` makes, because a refused log is thrown away whole.
        """
        *_, match = cls.replaying(players, options, events)  # the one match, moved on
        return match

    @classmethod
    def replaying(
        cls,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        events: Iterable[Event],
    ) -> Iterator[Match]:
        """The match before the first of ``events``, then after each of them: one match
        moved on between yields (read it before asking for the next), refused as
        :meth:`replay` refuses. What the turn timer reads whose turn each event left."""
        match = cls(players, options)
        yield match
        for index, event in enumerate(events):
            try:
                match._handler_for(event)(event)
            except IllegalEvent as err:
                err.index = index  # type: ignore[attr-defined]
                raise
            match.events.append(event)
            yield match

    def undone(self) -> Match:
        """This match without its last event (raises IllegalEvent when there is none)."""
        if not self.events:
            raise IllegalEvent(pgettext("screen 21xN", "nothing to undo"))
        return type(self).replay(self.players, self.options, self.events[:-1])

    # -- helpers for the games ------------------------------------------------------

    def _handler_for(self, event: Event):
        if not isinstance(event, Mapping):
            raise IllegalEvent(pgettext("screen 21xN", "an event is a JSON object"))
        kind = event.get("type")
        if not isinstance(kind, str) or not kind:
            raise IllegalEvent(pgettext("screen 21xN", 'an event needs a "type"'))
        handler = getattr(self, "on_" + kind.replace("-", "_"), None)
        if handler is None or not callable(handler):
            known = ", ".join(sorted(self.event_types()))
            raise IllegalEvent(pgettext(
                "screen 21xN", "{game} has no {kind} event (it knows: {known})").format(
                game=self.title, kind=written(kind), known=known))
        if self.over:
            raise IllegalEvent(pgettext("screen 21xN", "the game is over"))
        return handler

    @classmethod
    def event_types(cls) -> list[str]:
        """The event types this game accepts."""
        return [name[3:] for name in dir(cls) if name.startswith("on_")]

    def player_field(self, event: Event, key: str = "player") -> str:
        """The player named in ``event[key]``, refused unless they are in the game."""
        name = event.get(key)
        if name not in self.players:
            raise IllegalEvent(pgettext("screen 21xN", "{name} is not playing (players: {names})")
                               .format(name=written(name), names=", ".join(self.players)))
        return name


def check_players(players: Sequence[str], low: int, high: int) -> tuple[str, ...]:
    """Player names as a tuple, refused unless ``low..high`` distinct non-empty names."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise BadSetup(pgettext("screen 21xN", "players are a list of names"))
    names = tuple(players)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise BadSetup(pgettext("screen 21xN", "bad player name {name}")
                           .format(name=written(name)))
    if len(set(names)) != len(names):
        raise BadSetup(pgettext("screen 21xN", "two players have the same name"))
    if not low <= len(names) <= high:
        if low == high:  # not "2 to 2"
            raise BadSetup(pgettext("screen 21xN", "this game takes {low} players, not {n}")
                           .format(low=low, n=len(names)))
        raise BadSetup(pgettext("screen 21xN", "this game takes {low} to {high} players, not {n}")
                       .format(low=low, high=high, n=len(names)))
    return names


def check_options(given: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``defaults`` updated with ``given``; unknown names and wrong types are refused."""
    options = copy.deepcopy(dict(defaults))
    for name, value in given.items():
        if name not in defaults:
            # Translators: "none" when a game has no options at all.
            known = ", ".join(sorted(defaults)) or pgettext("screen 21xN", "none")
            raise BadSetup(pgettext("screen 21xN", "unknown option {option} (options: {known})")
                           .format(option=written(name), known=known))
        want = type(defaults[name])
        if want is bool and not isinstance(value, bool):
            raise BadSetup(pgettext("screen 21xN", "option {option} is true or false, not {value}")
                           .format(option=name, value=written(value)))
        if want is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise BadSetup(pgettext("screen 21xN",
                                    "option {option} is a whole number, not {value}")
                           .format(option=name, value=written(value)))
        if not isinstance(value, want):
            # Translators: {kind} is a Python type name (list, str, dict), left as it is.
            raise BadSetup(pgettext("screen 21xN", "option {option} must be a {kind}, not {value}")
                           .format(option=name, kind=want.__name__, value=written(value)))
        options[name] = copy.deepcopy(value)
    return options


# -- checks shared by the games' event handlers ------------------------------------


def check_fields(event: Event, kind: str, required: Sequence[str] = (),
                 optional: Sequence[str] = ()) -> None:
    """Refuse an event that lacks a ``required`` field or carries one it does not have."""
    vowel = kind[0] in "aeiou"  # English says "an end_match event": two messages
    for name in required:
        if name not in event:
            # Translators: {kind} is an event type (roll, end_match), {field} a field
            # name (player, value): both are what programs send, left as they are.
            text = (pgettext("screen 21xN", 'an {kind} event needs "{field}"') if vowel
                    else pgettext("screen 21xN", 'a {kind} event needs "{field}"'))
            raise IllegalEvent(text.format(kind=kind, field=name))
    known = (*required, *optional)
    extra = [str(key) for key in event if key != "type" and key not in known]
    if extra:
        fields = ", ".join(known) or pgettext("screen 21xN", "none")
        text = (pgettext("screen 21xN", "an {kind} event has no field {extra} (fields: {fields})")
                if vowel else
                pgettext("screen 21xN", "a {kind} event has no field {extra} (fields: {fields})"))
        raise IllegalEvent(text.format(kind=kind, extra=", ".join(map(written, extra)),
                                       fields=fields))


def n_cards(cards: int) -> str:
    """How many cards, in words, for refusals: "1 card", "2 cards"."""
    return counted(cards, "card")


def entered_field(event: Event, kind: str = DICE) -> bool:
    """True when a chance event says what it holds was entered from the table's own
    dice or tokens (``"entered": true``); refused when ``"entered"`` is anything but
    true; False without it (the device drew it, or a log from before the field)."""
    if "entered" not in event:
        return False
    if event["entered"] is not True:
        if kind == TOKENS:
            text = pgettext("screen 21xN", '"entered" is true (a token drawn from the real '
                                           'tin) or left out, not {value}')
        else:
            text = pgettext("screen 21xN", '"entered" is true (faces typed in from real dice) '
                                           'or left out, not {value}')
        raise IllegalEvent(text.format(value=written(event["entered"])))
    return True


def die_face(value: object) -> int:
    """``value`` if it is a face of the die (1-6), else refused."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in range(1, 7):
        raise IllegalEvent(pgettext("screen 21xN", "a die shows 1 to 6, not {value}")
                           .format(value=written(value)))
    return value
