"""``GET /api/backup``: a fresh backup of the game log, downloaded by a paired phone.

The backup (:mod:`companion.store.backup`) is made in the server's thread pool over the
page's own read-only connection, so the table never waits for it; it is streamed from a
file that is already unlinked, so nothing is left behind however the download ends.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse

from companion import __version__
from companion.store.backup import CHUNK, write_backup
from companion.store.keeper import backup_name

__all__ = ["backup_response"]


def _made(store: Any) -> tuple[IO[bytes], str, int]:
    """A backup of ``store`` as an open file with no name left on disk, its name, size."""
    folder = Path(tempfile.mkdtemp(prefix="companion-backup-"))
    try:
        now = time.time()
        path = folder / backup_name(store.meta("device_id"), now)
        write_backup(store, path, app_version=__version__, clock=lambda: now)
        handle = open(path, "rb")  # closed by _chunks, once streamed
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return handle, path.name, os.fstat(handle.fileno()).st_size


def _chunks(handle: IO[bytes]) -> Iterator[bytes]:
    with handle:
        while chunk := handle.read(CHUNK):
            yield chunk


async def backup_response(source: Any) -> Response:
    """The download: ``application/zip`` as an attachment named like the device's own
    backups; a failure is the source's usual one-line refusal."""
    handle, name, size = await run_in_threadpool(source.read, _made)
    return StreamingResponse(_chunks(handle), media_type="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{name}"',
        "Content-Length": str(size), "Cache-Control": "no-store"})
