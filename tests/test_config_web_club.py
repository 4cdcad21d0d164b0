"""The [web] and [club] sections: checked like every other key."""

from __future__ import annotations

import pytest

from companion.config import dump_toml, parse_config, parse_listen, valid_table_name
from companion.errors import ConfigError


def test_defaults_are_off() -> None:
    config = parse_config("")
    assert config.web.listen == "" and config.web.open_reads is True
    assert config.club.broker == "" and config.club.table == ""


def test_a_listen_address_and_flags_are_read() -> None:
    config = parse_config('[web]\nlisten = "0.0.0.0:8080"\nopen_reads = false\n')
    assert config.web.listen == "0.0.0.0:8080" and config.web.open_reads is False
    assert parse_listen("[::1]:9000") == ("::1", 9000)


@pytest.mark.parametrize("listen", ["8080", "host:", ":8080", "host:0", "host:70000",
                                    "host:80a", "a b:80", "[::1", "::1:8080", "[nope]:80",
                                    "[::1]]:80", "hôte:80"])
def test_a_bad_listen_address_names_the_key(listen: str) -> None:
    with pytest.raises(ConfigError, match=r"web\.listen"):
        parse_config(f'[web]\nlisten = "{listen}"\n')


def test_open_reads_must_be_true_or_false() -> None:
    with pytest.raises(ConfigError, match=r"web\.open_reads must be true or false"):
        parse_config("[web]\nopen_reads = 1\n")


def test_a_club_needs_a_known_scheme_and_a_table_name() -> None:
    good = parse_config('[club]\nbroker = "mqtts://club.local:8883"\ntable = "table-7"\n')
    assert good.club.table == "table-7"
    with pytest.raises(ConfigError, match=r"club\.broker"):
        parse_config('[club]\nbroker = "http://x"\ntable = "t"\n')
    with pytest.raises(ConfigError, match=r"club\.table"):
        parse_config('[club]\nbroker = "mqtt://x"\n')
    with pytest.raises(ConfigError, match=r"club\.table"):
        parse_config('[club]\nbroker = "mqtt://x"\ntable = "a/b"\n')
    assert not valid_table_name("#") and not valid_table_name("x" * 33)


def test_the_printed_config_hides_the_club_password() -> None:
    config = parse_config('[club]\nbroker = "mqtt://x"\ntable = "t"\npassword = "hunter2"\n')
    text = dump_toml(config)
    assert "hunter2" not in text and 'password = "********"' in text
    assert "open_reads = true" in text
