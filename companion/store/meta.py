"""Small values the file keeps about itself (the ``meta`` table), among them this
device's own id."""

from __future__ import annotations

from companion.store.file import StoreFile
from companion.store.records import new_uid

__all__ = ["Meta"]


class Meta(StoreFile):
    """This device's id and the ``meta`` key/value table."""

    def device_id(self) -> str:
        """This device's own random id, made once and kept in the file."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
        if row is not None:
            return str(row["value"])
        made = new_uid()
        with self._transaction() as conn:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('device_id', ?)",
                         (made,))
            (value,) = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
        return str(value)

    def meta(self, key: str) -> str | None:
        """A value kept in the file's ``meta`` table (None when unset)."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (str(key),)).fetchone()
        return None if row is None else str(row["value"])

    def set_meta(self, key: str, value: str | None) -> None:
        """Keep ``value`` under ``key`` in the ``meta`` table (None removes it)."""
        with self._transaction() as conn:
            if value is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (str(key),))
            else:
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             (str(key), str(value)))
