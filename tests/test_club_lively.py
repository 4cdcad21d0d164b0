"""Issue 29 point 5 through a real Mosquitto: a table whose link stalls is shown offline
by its will (the keepalive that makes that quick enough is measured, not timed here:
docs/club.md), and "not confirmed" clears once the dashboard holds the match."""

from __future__ import annotations

from companion.club.publisher import KEEPALIVE, Publisher
from companion.config import Club
from companion.store import Store
from tests import test_club
from tests.mosquitto import wait_for
from tests.quiet_link import QuietLink
from tests.test_club import RETRY, Table, all_published, wait_mirrored

broker, club = test_club.broker, test_club.club  # the real broker's fixtures
#: Mosquitto 2.0.11 checks keepalives every 6 s (src/keepalive.c: ``last + 5 < now``).
BROKER_CHECKS_EVERY = 6


def test_the_keepalive_lets_the_broker_give_up_on_a_stalled_table_within_15_s():
    """The worst case on Mosquitto 2.0.11: the link stalls just after a packet; the broker
    gives up when it has heard nothing for more than 1.5 keepalives (whole seconds, up
    to one more), at its next check."""
    assert KEEPALIVE * 3 // 2 + 2 + BROKER_CHECKS_EVERY <= 15


def test_a_stalled_table_is_shown_offline_by_its_will(club, broker, tmp_path):
    _, dashboard = club
    dash = dashboard()
    relay = QuietLink(broker.port)
    store = Store.in_dir(tmp_path / "pi")
    publisher = Publisher(Club(broker=f"mqtt://127.0.0.1:{relay.port}", table="t9"),
                          store.path, retry=RETRY).start()

    def online() -> object:
        return (dash.snapshot()["tables"].get("t9") or {}).get("online")
    try:
        wait_for(lambda: online() is True, what="t9 online")
        relay.stall()  # no byte passes any more, no new connection either
        wait_for(lambda: online() is False, what="t9 shown offline once its link stalled")
    finally:
        publisher.stop(0.5)
        relay.close()
        store.close()


def test_not_confirmed_clears_once_the_dashboard_holds_the_match(club):
    """A counted match its table rewrites is held for the organiser: the table is told
    so ("held") and stops sending it, its status and the page say nothing is waiting."""
    table, dashboard = club
    dash = dashboard()
    one = table("t1").connect().new()
    one.play(6)
    one.end()
    wait_mirrored(dash, one)
    one.undo()  # the end is taken back and the match played on: held on the dashboard
    one.play(3)
    one.end()
    wait_for(lambda: dash.snapshot()["held"], what="the rewrite to be held")
    # Confirmed: the OLED's mark says nothing waits (it never said otherwise when the
    # receipt came before the table's first resend).
    wait_for(lambda: all_published(one) and (not one.lags or one.lags[-1] == 0),
             what="the table to count the held match as confirmed")
    wait_for(lambda: dash.snapshot()["tables"]["t1"]["unconfirmed"] == 0,
             what="the page to show nothing unconfirmed at t1")
    assert isinstance(one, Table)
