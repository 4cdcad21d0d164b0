"""Club mode: many tables, one league, over an MQTT broker (Mosquitto).

- :mod:`.wire`: the topic tree, the payloads, the log's chain hash, broker URLs.
- :mod:`.mqtt`: one paho-mqtt connection that only posts into its owner's queue.
- :mod:`.publisher`: the device's thread that publishes its game log, the log being the
  outbox (``[club] broker`` in the config starts it).
- :mod:`.receiver`: the dashboard's logic: every table's matches into one Store,
  whatever the order, duplicates or outages; by concern in :mod:`.mirror` (a match as
  held, its waiting messages), :mod:`.matchbook` (storing and judging a match) and
  :mod:`.tables` (per-table bookkeeping, receipts, sync pacing, the live view), with
  :mod:`.review` (what is held for the organiser), :mod:`.organiser_tools` (a device bound
  to another table, two devices at once, a locked season) and :mod:`.lines` (the log,
  one line per cause, table and minute).
- :mod:`.offers`: a round's offer id, which binds a round's result to the table it was
  sent to; :mod:`.moves`: a device moved to another table, kept on the broker for every
  dashboard.
- :mod:`.dashboard`: ``companion club``, the receiver on its own thread.
- :mod:`.web`: the club page (every table live, the league) on the table page's app.
- :mod:`.bench`: ``companion bench --club``; :mod:`.localbroker`: a throwaway Mosquitto
  for it and for the tests.

Importing this package imports no MQTT client; paho is loaded by :mod:`.mqtt` only.
``docs/club.md`` describes the topics and payloads for other programs.
"""
