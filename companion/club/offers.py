"""A round's offer: the id that binds a round's result to the table it was sent to.

When the organiser seats a round (:mod:`companion.club.night`), each table of it gets an
offer id of its own (:func:`new_offer_id`: 128 random bits), sent only to that table on
its retained round topic, which only that table and the dashboards may read
(``deploy/club/companion.acl``), and never shown on the open club page. OK on the device
starts the game with the id kept beside the match (:data:`DEVICE_NOTE`, written with the
match in one transaction); the publisher puts it in the match's start line (the cut's
``match`` header, ``"offer"``) and so in its retained state. The dashboard keeps it with
the match (:data:`DASHBOARD_NOTE`, with the table the match came from) when the offer is
one it sent to that table, and its receipts of the match say it.

A round's result at a table is the finished match started from that table's offer, from
that table, with the seat's game and players (:func:`companion.club.night.results`): a
match from another table, or a second match of the same group, is a match like any
other. The dashboard takes one match from an offer at a table (:data:`TAKEN_NOTE`), the
first it stores: a second one, whenever its table says it started, never replaces it.
Matches from before offers (no id) stay what they were.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Collection
from typing import Any, NamedTuple

#: The device's store keeps the offer a match was started from under this key + its uid.
DEVICE_NOTE = "club-offer:"
#: The dashboard's store keeps ``{"offer": ID, "table": T}`` under this key + the uid.
DASHBOARD_NOTE = "club-round:"
#: ... and the uid of the one match it took from an offer under this key + table/offer.
TAKEN_NOTE = "club-round-taken:"

_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_offer_id() -> str:
    """A new offer id: unguessable (128 random bits), URL- and topic-safe."""
    return secrets.token_urlsafe(16)


def valid_offer_id(value: Any) -> bool:
    """``value`` has the shape of an offer id (what arrives is checked before use)."""
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def device_notes(offer_id: str) -> dict[str, str]:
    """What the device's store keeps with a match started from offer ``offer_id``
    (:meth:`~companion.store.Store.new_match`'s ``notes``; none without an id)."""
    return {DEVICE_NOTE: offer_id} if offer_id else {}


def device_offer(store: Any, uid: str) -> str:
    """The offer the device's match ``uid`` was started from ("" for none)."""
    value = store.meta(DEVICE_NOTE + uid)
    return value if valid_offer_id(value) else ""


def offers_started(store: Any) -> set[str]:
    """Every offer the device's matches were started from (a round's offer is shown
    once: :func:`companion.club.rounds.already_started`)."""
    return {value for value in store.meta_under(DEVICE_NOTE).values()
            if valid_offer_id(value)}


class Played(NamedTuple):
    """A finished match of the dashboard's store that was started from an offer: the
    match (a :class:`~companion.store.MatchSummary`), the offer, the table it came from."""

    match: Any
    offer: str
    table: str


def keep_offer(store: Any, uid: str, offer_id: str, table: str) -> None:
    """The dashboard keeps that its match ``uid`` from ``table`` was started from
    ``offer_id`` (the one match it takes from that offer at that table)."""
    store.set_meta(DASHBOARD_NOTE + uid, json.dumps({"offer": offer_id, "table": table}))
    store.set_meta(f"{TAKEN_NOTE}{table}/{offer_id}", uid)


def taken_by(store: Any, offer_id: str, table: str) -> str | None:
    """The match the dashboard took as started from ``offer_id`` at ``table`` (None:
    none yet). An offer is one seat: a second match from it, whatever time its table
    says it started, is a match like any other."""
    return store.meta(f"{TAKEN_NOTE}{table}/{offer_id}")


def played(store: Any, offers: Collection[str], since: float) -> list[Played]:
    """The dashboard's finished matches (finished at ``since`` or later) started from
    one of ``offers``."""
    if not offers:
        return []
    claims: dict[str, tuple[str, str]] = {}
    for key, text in store.meta_under(DASHBOARD_NOTE).items():
        try:
            note = json.loads(text)
            offer, table = str(note["offer"]), str(note["table"])
        except (ValueError, KeyError, TypeError):
            continue
        if offer in offers:
            claims[key[len(DASHBOARD_NOTE):]] = (offer, table)
    if not claims:
        return []
    return [Played(match, *claims[match.uid]) for match in store.summaries(since=since)
            if match.uid in claims]
