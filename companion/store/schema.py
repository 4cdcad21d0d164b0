"""The file's layout: its tables, its mark and the forward migrations between versions.

Never edit a released migration step; append a new one. :data:`SCHEMA_VERSION` is what
this program writes; a file with a higher ``user_version`` is from a newer companion.
"""

from __future__ import annotations

__all__ = ["APPLICATION_ID", "MIGRATIONS", "PAGE_SIZE", "SCHEMA_VERSION"]

#: Marks the file as ours (``PRAGMA application_id``), so a stray SQLite file at the
#: same path is refused instead of being "migrated" into.
APPLICATION_ID = 0x54544331  # "TTC1"

#: The page size of a new log. Every commit writes each page it changed to the WAL in
#: full, and an event changes one or two pages of the ``events`` b-tree, so the page
#: is what one event costs the SD card: 1 KiB pages write about 1.9 KB per event where
#: SQLite's default 4 KiB pages wrote 5.3 KB (``companion bench``, ``card_writes``).
#: Reads are as fast: stats over 10,000 matches whose 4.4 KB results overflow a 1 KiB
#: page took 0.49 s of CPU, against 0.47 s with 4 KiB pages. A log made with another
#: page size keeps it (it cannot change without rewriting the whole file). The
#: checkpoint interval (``wal_autocheckpoint``, 1000 pages) and ``journal_size_limit``
#: (none) stay SQLite's: checkpoints add under 100 bytes an event, and a WAL reused in
#: place, never cut short, keeps its size, so a sync writes no file-size change too.
PAGE_SIZE = 1024

#: Forward migrations: step ``i`` takes the file from version ``i`` to ``i + 1``, inside
#: one transaction together with the new ``user_version``. Never edit a released step;
#: append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first schema.
    (
        f"PRAGMA application_id = {APPLICATION_ID}",
        """CREATE TABLE players (
            name TEXT PRIMARY KEY COLLATE NOCASE,
            added REAL NOT NULL,
            last_used REAL
        )""",
        """CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            game_id TEXT NOT NULL,
            players TEXT NOT NULL,
            options TEXT NOT NULL,
            started REAL NOT NULL,
            finished REAL,
            result TEXT,
            abandoned INTEGER NOT NULL DEFAULT 0 CHECK (abandoned IN (0, 1))
        )""",
        """CREATE TABLE events (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (match_id, seq)
        ) WITHOUT ROWID""",
        "CREATE INDEX matches_by_finish ON matches (finished)",
    ),
    # 2: a match keeps one identity wherever it goes (export/import, club dashboards):
    # ``uid``; ``origin`` is where it was played ("" = this device, else a club table);
    # ``published`` is how many of its events the club broker has acknowledged (the
    # outbox mark); ``meta`` holds this device's own id.
    (
        "ALTER TABLE matches ADD COLUMN uid TEXT",
        "UPDATE matches SET uid = lower(hex(randomblob(16)))",
        "CREATE UNIQUE INDEX matches_by_uid ON matches (uid)",
        "ALTER TABLE matches ADD COLUMN origin TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE matches ADD COLUMN published INTEGER NOT NULL DEFAULT 0",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    # 3: undo is never a re-roll. ``secret`` is the match's own random source
    # (companion.chance: the device's draws are an HMAC of it and their place in the
    # match), kept with the match so it survives a power cut, never shown. ``undone``
    # keeps each event taken back: the place (``seq``) it held, when it was played
    # (``at``) and taken back (``undone``); ``n`` is the order things were taken back in.
    (
        "ALTER TABLE matches ADD COLUMN secret BLOB",
        """CREATE TABLE undone (
            n INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches (id),
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            at REAL NOT NULL,
            undone REAL NOT NULL
        )""",
        "CREATE INDEX undone_by_match ON undone (match_id, seq)",
    ),
)

#: The schema version this program writes.
SCHEMA_VERSION = len(MIGRATIONS)
