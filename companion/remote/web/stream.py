"""Server-Sent Events for both web pages (the table page and the club page): one
message's text, the keepalive a page uses to notice a quiet link, the loop over a hub's
changes, and the streaming response."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any

from starlette.responses import StreamingResponse

#: Seconds between keepalive messages on an idle stream (proxies and phones drop
#: connections that say nothing for a minute; the page reconnects when one is missed).
KEEPALIVE = 20.0


def sse(data: str, *, event: str | None = None, id: int | None = None) -> str:
    """One Server-Sent Events message (``data`` is one line of JSON)."""
    head = (f"event: {event}\n" if event else "") + (f"id: {id}\n" if id is not None else "")
    return f"{head}data: {data}\n\n"


def keepalive_text(every: float = KEEPALIVE) -> str:
    """The message an idle stream sends every ``every`` seconds; it says how often, so
    the page knows when one is missed (the link went quiet) and reconnects."""
    return sse(json.dumps({"every": every}), event="keepalive")


async def hub_changes(queue: asyncio.Queue, keepalive: float = KEEPALIVE) -> Any:
    """Each change the hub puts on ``queue``, and ``None`` after every ``keepalive``
    seconds of quiet (send :func:`keepalive_text` then, so a proxy or a phone that
    went to sleep notices a dead link); ends when the hub puts ``None`` (closing)."""
    while True:
        try:
            change = await asyncio.wait_for(queue.get(), keepalive)
        except TimeoutError:
            yield None
            continue
        if change is None:
            return
        yield change


def event_stream(messages: Any, finished: Callable[[], None]) -> StreamingResponse:
    """An SSE response of ``messages`` (an async iterator of message texts) that tells
    the browser to reconnect after 1 s, and calls ``finished`` however it ends."""

    async def body() -> Any:
        try:
            yield "retry: 1000\n\n"
            async for text in messages:
                yield text
        finally:
            finished()

    return StreamingResponse(body(), media_type="text/event-stream", headers={
        "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def ev_message(payload: Mapping[str, Any]) -> str:
    """The stream's message for one event: ``id`` = seq, ``data`` = the ``EV`` JSON."""
    return sse(json.dumps(payload, ensure_ascii=False, separators=(",", ":")), id=payload["seq"])


def said_message(said: Mapping[str, Any]) -> str:
    """The stream's message for one announcement (``event: say``): a page that speaks
    says its ``text`` in its ``language``; never sent again on a reconnect."""
    return sse(json.dumps(said, ensure_ascii=False, separators=(",", ":")), event="say")
