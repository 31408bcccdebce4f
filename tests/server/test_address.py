"""The address join codes carry: the LAN address when serving beyond this machine, never
127.0.0.1 there; the browser's own address for a loopback server."""

from __future__ import annotations

import pytest

from assistant.server.address import lan_address, public_base


def test_the_probe_s_first_usable_answer_is_the_lan_address():
    answers = {"10.255.255.255": None, "192.168.255.255": "127.0.1.1", "172.31.255.255": "172.20.3.4"}
    assert lan_address(answers.get, lambda: ["192.168.1.9"]) == "172.20.3.4"


def test_without_a_route_the_host_name_s_address_is_used_and_loopback_never():
    assert lan_address(lambda target: None, lambda: ["127.0.1.1", "0.0.0.0", "192.168.1.9"]) == "192.168.1.9"
    assert lan_address(lambda target: "127.0.0.1", lambda: ["127.0.1.1"]) is None


def test_the_base_url_for_each_kind_of_bind_address():
    lan = lambda: "192.168.1.20"                                    # noqa: E731
    assert public_base("127.0.0.1", 8750, lan) is None              # the browser's own address
    assert public_base("localhost", 8750, lan) is None
    assert public_base("0.0.0.0", 8750, lan) == "http://192.168.1.20:8750"
    assert public_base("::", 9000, lan) == "http://192.168.1.20:9000"
    assert public_base("10.0.0.5", 8750, lan) == "http://10.0.0.5:8750"
    with pytest.raises(OSError, match="no network address but loopback"):
        public_base("0.0.0.0", 8750, lambda: None)


def test_this_machine_s_answer_is_never_loopback():
    found = lan_address()
    assert found is None or not (found.startswith("127.") or found == "0.0.0.0")
