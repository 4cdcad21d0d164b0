"""What can go wrong with the game log, one class per thing the caller may do next.

Every store error is a :class:`~companion.errors.StoreError` with a line a person can
read; these subclasses let the app and the club choose what to do about it.
"""

from __future__ import annotations

from companion.errors import StoreError
from companion.lang import pgettext

__all__ = ["DuplicateMatch", "RosterFull", "StoreCorrupt", "StoreError", "StoreTooNew"]


class StoreCorrupt(StoreError):
    """The file is damaged or not a database; :meth:`Store.set_aside` can move it away."""


class StoreTooNew(StoreError):
    """A newer companion wrote the file; it is left exactly as it is."""


class RosterFull(StoreError):
    """The roster holds :data:`~companion.store.roster.ROSTER_MAX` names already."""

    full = True


class DuplicateMatch(StoreError):
    """A match with this uid is stored already (an import or a delivery seen twice)."""

    def __init__(self, uid: str, match_id: int):
        super().__init__(pgettext("screen 21x8", "match {uid} is stored already (as match {n})")
                         .format(uid=uid, n=match_id))
        self.uid = uid
        self.match_id = match_id
