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

    def meta_under(self, prefix: str) -> dict[str, str]:
        """Every ``meta`` value whose key starts with ``prefix``, by key (one read: the
        club dashboard's notes on its mirrored matches, at its start)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?",
                                (len(prefix), str(prefix))).fetchall()
        return {str(row["key"]): str(row["value"]) for row in rows}

    def set_meta(self, key: str, value: str | None) -> None:
        """Keep ``value`` under ``key`` in the ``meta`` table (None removes it)."""
        with self._transaction() as conn:
            if value is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (str(key),))
            else:
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             (str(key), str(value)))
