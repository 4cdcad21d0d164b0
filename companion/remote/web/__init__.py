"""The table page: a live web page served by the device itself (nothing from the internet).

Importing this package imports nothing of the web stack; Starlette, uvicorn and Jinja2
are imported only once a page is switched on (``[web] listen`` or ``--web``), in the
server's own thread, after the device's first frame.

Parts:

- :mod:`.source`: where the data comes from. :class:`~.source.DeviceSource` wraps a
  running :class:`~companion.app.App` (snapshots and commands through the app's queue,
  via :mod:`companion.remote.commands`; events from ``ctx.listeners``);
  :class:`~.source.StoreSource` is a game log that is only read (the club dashboard).
- :mod:`.asgi`: :func:`~.asgi.build_app`, the Starlette app over a source.
- :mod:`.gate`: the door every request passes (Host, a write's Origin and body type,
  the security headers, one log line for a bug).
- :mod:`.pairing`: the 6-digit code of Settings > Pair a phone, traded for a token.
- :mod:`.server`: uvicorn in a thread with its own event loop; :func:`~.server.start`
  puts it beside a live device.
- :mod:`.views`: the log in words, standings, and the chart drawn as SVG.

Reusing the app (the club dashboard)::

    from starlette.routing import Route
    from companion.remote.web.asgi import build_app
    from companion.remote.web.source import Change, StoreSource

    source = StoreSource(store)                # every write answers 403 READONLY
    app = build_app(source, extra_routes=[Route("/tables", tables_page)],
                    template_dirs=[my_templates], title="Club")
    site = app.state.site                      # site.render(request, "tables.html", ...)
    source.hub.publish(Change(tick, payload, None))   # from any thread: to open streams

``extra_routes`` come first, so they may also replace a built-in page (e.g. ``/``);
``template_dirs`` are searched before the built-in templates, so a ``base.html`` there
restyles every page. ``site.render(request, name, **context)`` renders a page with the
common context (``paired``, ``writable``, ``site_title``, ``game_title``). The store
functions behind the pages (:func:`~.pages.past_matches`, :func:`~.pages.match_details`,
:func:`~.pages.export_text`, :func:`~.pages.player_figures`) take any store and are
there to reuse. A source is any object with ``hub``, ``writable``, ``snapshot()``,
``read(fn)``, ``command(fn, *args)``, ``attach()`` and ``detach()``.

HTTP interface (a contract; docs/web.md has the details): ``GET /api/state``,
``GET /api/stream`` (Server-Sent Events, ``id:`` = seq, ``data:`` = the serial
console's ``EV`` JSON, ``Last-Event-ID`` catch-up), ``GET /api/history``,
``GET /api/matches/ID``, ``GET /matches/ID/export.jsonl|csv``; paired writes
``POST /api/pair``, ``/api/players``, ``/api/matches``, ``/api/events``, ``/api/undo``.
"""
