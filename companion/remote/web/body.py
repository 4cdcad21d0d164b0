"""The body of a write to either web page, read whole and checked once: a JSON object of
known fields with the right types, no key twice, no number out of range, at most
:data:`MAX_BODY` bytes (:func:`read_json`); and :class:`Refusal`, how a request is
refused before it reaches a command (a status and one line of words)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.requests import Request

from companion.errors import Refusal, one_line, written
from companion.lang import _
from companion.remote.web.pages import INT_MAX

__all__ = ["MAX_BODY", "read_json"]

#: The most a request body may hold.
MAX_BODY = 64 * 1024


async def read_json(request: Request, fields: Mapping[str, type | tuple[type, ...]],
                    required: Sequence[str] = ()) -> dict[str, Any]:
    """The body as a JSON object with only ``fields`` (name -> allowed types), or a
    :class:`Refusal`: too big (413), not JSON, a key twice, a number out of range, not
    an object, an unknown or missing field, a wrong type (400). An empty body is ``{}``.
    (Its Content-Type was checked at the door.)"""
    length = request.headers.get("content-length", "")
    if length and not length.isdigit():
        raise Refusal(400, _("Content-Length must be a whole number of bytes"), code="BADARG")
    if length and int(length) > MAX_BODY:
        raise Refusal(413, _too_big())
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refusal(413, _too_big())
    if not body.strip():
        data: Any = {}
    else:
        try:
            data = json.loads(body.decode("utf-8"), parse_constant=_no_constant,
                              parse_int=_whole_number, parse_float=_finite_number,
                              object_pairs_hook=_no_twice)
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise Refusal(400, _("the body is not JSON")) from None
    if not isinstance(data, dict):
        raise Refusal(400, _("the body must be one JSON object"))
    unknown = sorted(set(data) - set(fields))
    if unknown:
        # Translators: {known} lists the field names (JSON keys, not translated) or "none".
        known = ", ".join(fields) or _("none")
        raise Refusal(400, _("unknown field {field} (fields: {known})").format(
            field=written(unknown[0], 40), known=known))
    for name in required:
        if name not in data:
            raise Refusal(400, _("the field {field} is missing").format(field=written(name)))
    for name, value in data.items():
        kinds = fields[name]
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple)
                                                    else (kinds,)):
            raise Refusal(400, _wrong_type(name))
        if not isinstance(value, kinds):
            raise Refusal(400, _wrong_type(name))
    return data


def _too_big() -> str:
    return _("a request body holds at most {size} KiB").format(size=MAX_BODY // 1024)


def _wrong_type(name: str) -> str:
    return _("the field {field} has the wrong type").format(field=written(name))


def _no_constant(name: str) -> Any:
    # Translators: {value} is what the body held: NaN, Infinity or -Infinity.
    raise Refusal(400, _("{value} is not a number here").format(value=name), code="BADARG")


def _whole_number(text: str) -> int:
    value = int(text) if len(text) <= 20 else INT_MAX + 1
    return value if abs(value) <= INT_MAX else _out_of_range(text)


def _finite_number(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else _out_of_range(text)


def _out_of_range(text: str) -> Any:
    # Translators: {value} is the number as the body held it (1e999).
    raise Refusal(400, _("the number {value} in the body is out of range").format(
        value=one_line(text, 40)), code="BADARG")


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose every key is there once: ``{"a": 1, "a": 2}`` means two
    things to two parsers, so it is refused."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _value in pairs if key in seen or seen.add(key))
        raise Refusal(400, _("the key {key} is in the body twice").format(
            key=written(twice, 40)), code="BADARG")
    return data
