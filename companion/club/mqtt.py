"""One connection to the club's broker (paho-mqtt), reporting into its owner's queue.

paho runs its own network thread: it connects, reconnects after any outage (with a
growing pause) and resends what the broker did not acknowledge. Nothing in here touches
a store or waits for the network: every callback only *posts* a tuple to ``post``, and
the owner's thread (the publisher or the dashboard) does the work::

    ("up",)                     connected (again): subscribe, resend
    ("down",)                   the connection is gone; paho retries by itself
    ("failed", reason)          a connection attempt failed (TLS, refused, no route):
                                one line of words; paho tries again by itself
    ("acked", mid)              the broker has the QoS 1 message ``mid``
    ("message", topic, bytes, retained)   a message on a subscribed topic (``retained``:
                                the broker's kept copy, not news)

paho is imported here only, so the device loads it only when club mode is on.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable, Sequence
from typing import Any

from companion.club.wire import MAX_PAYLOAD, Broker
from companion.errors import CompanionError, one_line
from companion.lang import _

log = logging.getLogger("companion.club")

Post = Callable[..., None]

#: CONNACK reason codes of a wrong user name or password (MQTT 3.1.1's 4 and 5, as paho
#: gives them: 134 and 135).
BAD_LOGIN = (4, 5, 134, 135)


def refusal(username: str, reason: Any) -> str:
    """Why the broker refused a login, in words for the organiser."""
    if getattr(reason, "value", None) in BAD_LOGIN:
        if not username:
            return _("the broker refused a login without a user name: wrong user name or "
                     "password ({reason})").format(reason=reason)
        return _("the broker refused the login {login}: wrong user name or password "
                 "({reason})").format(login=username, reason=reason)
    return _("the broker refused the login: {reason}").format(reason=reason)


class BrokerLink:
    """A paho client for ``broker``; ``will`` is (topic, payload) set retained when the
    connection dies; ``subscribe`` are topics (QoS 1) to (re)subscribe on every connect;
    ``persistent`` keeps the broker's session (and so its queue for us) across outages."""

    def __init__(
        self,
        broker: Broker,
        client_id: str,
        post: Post,
        *,
        username: str = "",
        password: str = "",
        ca_file: str = "",
        will: tuple[str, bytes] | None = None,
        subscribe: Sequence[str] = (),
        persistent: bool = False,
        retry: tuple[float, float] = (0.5, 10.0),
        keepalive: int = 30,
    ):
        try:
            import paho.mqtt.client as mqtt
        except ImportError:
            raise CompanionError(_("club mode needs paho-mqtt: pip install paho-mqtt")) from None
        self.broker = broker
        self.post = post
        self.keepalive = keepalive
        self.subscribe = tuple(subscribe)
        self.client = mqtt.Client(
            callback_api_version=mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=not persistent,
            protocol=mqtt.MQTTv311,
        )
        user = username or broker.username
        self.username = user
        if user:
            self.client.username_pw_set(user, password or broker.password or None)
        if broker.tls:
            try:
                self.client.tls_set(ca_certs=ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
            except (OSError, ssl.SSLError) as err:
                raise CompanionError(_("cannot use the club CA file {path!r}: {problem}")
                                     .format(path=ca_file, problem=err)) from None
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=retry[0], max_delay=retry[1])
        self.client.max_queued_messages_set(0)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_publish = self._published
        self.client.on_message = self._message
        self.client.on_connect_fail = self._failed
        self._attempt = self.client.reconnect
        self.client.reconnect = self._reconnect  # paho's own retry loop calls this
        self._why = ""
        self._mqtt = mqtt

    def start(self) -> BrokerLink:
        """Connect in the background (a broker that is down is retried, never waited for)."""
        self.client.connect_async(self.broker.host, self.broker.port,
                                  keepalive=self.keepalive)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        """Disconnect cleanly (the will is not sent) and stop paho's thread."""
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> int:
        """Hand a QoS 1 message to paho (never blocks on the network); its mid."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        return int(info.mid)

    # -- paho's thread: post only -------------------------------------------------

    def _reconnect(self) -> Any:
        """paho's connect attempt, remembering why it failed (paho's own callback for a
        failed attempt is told nothing)."""
        try:
            return self._attempt()
        except OSError as err:
            self._why = one_line(str(err) or type(err).__name__)
            raise

    def _failed(self, client: Any, userdata: Any) -> None:
        self.post("failed", self._why or _("cannot connect"))

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any,
                   properties: Any = None) -> None:
        if reason.is_failure:
            self.post("failed", refusal(self.username, reason))
            return
        for topic in self.subscribe:
            client.subscribe(topic, qos=1)
        self.post("up")

    def _disconnected(self, client: Any, userdata: Any, flags: Any, reason: Any,
                      properties: Any = None) -> None:
        self.post("down")

    def _published(self, client: Any, userdata: Any, mid: int, reason: Any = None,
                   properties: Any = None) -> None:
        self.post("acked", mid)

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        if len(message.payload) > MAX_PAYLOAD:  # never queued: it would only be dropped
            log.warning("club: dropped a message of %d bytes on %s", len(message.payload),
                        str(message.topic)[:200])
            return
        self.post("message", message.topic, bytes(message.payload), bool(message.retain))
