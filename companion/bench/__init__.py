"""``companion bench``: the speed, memory and size targets of docs/design.md, measured on
whatever machine runs them. Reported, never asserted: tests never depend on the machine's
speed.

- :mod:`companion.bench.device`: cold start, press-to-frame, bytes to the panel, idle
  CPU, memory, replay, the card's writes, import, stats and History;
- :mod:`companion.bench.web`: the table page (press to the browser, its weight and cost);
- :mod:`companion.bench.club`: club mode's lag, a dashboard's restart, seating a night;
- :mod:`companion.bench.targets`: every target's number, defined once, and whether a
  figure met it (``"targets"`` in ``--json``, met or missed in the plain output).

The benches may import anything (they build the device the way ``companion run`` does);
nothing in the product imports them (tests/test_architecture.py).
"""
