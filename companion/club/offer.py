"""The club's round on a table: "Round 2: Ann, Bob, Cy - start?".

The organiser seats a round (``companion club --seat``, docs/club.md); the dashboard
sends each table its seats, the table's publisher checks them
(:func:`companion.club.rounds.parse_offer`) and the offer reaches this screen through
the app's one queue. OK starts the game exactly as the serial console's and the web
page's NEW does (:func:`companion.remote.commands.new_game`: the players join the
roster, the game is shown), with the offer's id kept beside the match (it travels in
the match's start line: :mod:`companion.club.offers`); a game still open is never
silently ended: the table is asked whether to keep it as abandoned first. BACK leaves
the offer (the screen it interrupted comes back).
"""

from __future__ import annotations

from typing import Any

from companion.lang import lazy, pgettext
from companion.ui.keys import Key, Keys
from companion.ui.screen import Confirm, Context, Message, Press, Screen, is_, wrap


class RoundOffer(Message):
    """The round's seats and one question; UP/DOWN scroll a long list of names (as a
    :class:`Message` does), OK starts the game, BACK leaves it."""

    def __init__(self, app: Any, offer: Any, parent: Screen):
        from companion.games import title

        # Translators: {round} is the club's round number, {names} the players seated.
        lines = wrap(pgettext("screen 21x4", "Round {round}: {names} - start?").format(
            round=offer.round, names=", ".join(offer.players)))
        # The title leaves room for where a long list is ("1/2").
        super().__init__(pgettext("screen 17", "Club round {round}").format(round=offer.round),
                         [*lines, title(offer.game)], parent)
        self.app = app
        self.offer = offer

    # Translators: OK and BACK are the names printed on the device's buttons.
    keys = Keys(lazy("screen 21", "A club round"), lazy("screen 21", "OK start  BACK no"),
                Key("OK", lazy("screen 21xN", "Start the club's game with these players.")),
                Key("BACK", lazy("screen 21xN", "Not now: back to what was on the screen.")))

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok"):
            return self.start(force=False)
        return super().press(ctx, press)

    def start(self, force: bool) -> Screen:
        """Start the round's game as NEW does; an open game is asked about first."""
        from companion.club.offers import device_notes
        from companion.errors import RemoteError
        from companion.remote.commands import guarded, new_game

        offer = self.offer
        try:
            guarded(new_game, self.app, offer.game, list(offer.players), None, force,
                    notes=device_notes(offer.offer_id))
        except RemoteError as refused:
            if refused.code == "OPEN" and not force:
                return RoundQuestion(self.title, wrap(pgettext(
                    "screen 21x4", "A game is not finished. Keep it as abandoned and start "
                    "round {round}?").format(round=offer.round)),
                               lambda ctx: self.start(force=True), self.parent)
            return RoundRefused(self.title, wrap(refused.message), self.parent)
        return self.app.screen


class RoundQuestion(Confirm):
    """An offer's "Keep it as abandoned and start round N?": a newer offer takes its
    place, as it takes an offer's."""


class RoundRefused(Message):
    """Why an offer's game could not start: a newer offer takes its place too."""


def offer_round(app: Any, offer: Any) -> None:
    """On the owner thread: show the offer over whatever is on the screen (a newer
    offer takes the place of one still shown, or of its question: BACK on the newer one
    once brought the older round's "keep it as abandoned?" back, and OK there started
    the round the organiser had seated again; found attacking issue 36)."""
    under = app.screen
    if isinstance(under, (RoundOffer, RoundQuestion, RoundRefused)):
        under = under.parent
    app.set_screen(RoundOffer(app, offer, under))
    app.wake()  # news for the people at the table
