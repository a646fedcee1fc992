"""DHCPv6 decoding: client messages, relay wrapping, client FQDN and vendor class.

No shared capture holds DHCPv6; messages come from the synthetic builder
(`tracepcap.testing.dhcp`, written from RFC 8415 separately) or are built here."""

from __future__ import annotations

import socket
import struct

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, dhcpv6
from tracepcap.testing import app

MAC = "00:15:5d:01:02:03"
SOLICIT = app.dhcpv6(app.DHCP6_SOLICIT, 0xA1B2C3, MAC, fqdn="WIN-DESKTOP.corp.example",
                     vendor_class="MSFT 5.0")


def relay_forward(inner: bytes, peer: str = "fe80::215:5dff:fe01:203") -> bytes:
    link = socket.inet_pton(socket.AF_INET6, "2001:db8::1")
    return (struct.pack("!BB16s16s", dhcpv6.RELAY_FORW, 0, link,
                        socket.inet_pton(socket.AF_INET6, peer))
            + struct.pack("!HH", dhcpv6.OPT_RELAY_MSG, len(inner)) + inner)


def test_solicit():
    msg = dhcpv6.decode(memoryview(SOLICIT))
    assert (msg.msg_type, msg.txid, msg.peer) == (dhcpv6.SOLICIT, 0xA1B2C3, None)
    assert [code for code, _ in msg.options] == [1, 8, 39, 16, 6]
    assert dhcpv6.client_fqdn(msg.option(dhcpv6.OPT_CLIENT_FQDN)) == "WIN-DESKTOP.corp.example"
    assert dhcpv6.vendor_class(msg.option(dhcpv6.OPT_VENDOR_CLASS)) == (311, ("MSFT 5.0",))
    assert msg.option(99) is None


def test_relay_forward_names_the_peer():
    msg = dhcpv6.decode(relay_forward(SOLICIT))
    assert (msg.msg_type, msg.txid, msg.peer) == (dhcpv6.RELAY_FORW, 0, "fe80::215:5dff:fe01:203")
    assert dhcpv6.decode(msg.option(dhcpv6.OPT_RELAY_MSG)) == dhcpv6.decode(SOLICIT)


def test_partial_fqdn_and_several_vendor_items():
    assert dhcpv6.client_fqdn(b"\x01\x06laptop") == "laptop"
    data = struct.pack("!IH", 4413, 3) + b"abc" + struct.pack("!H", 2) + b"de"
    assert dhcpv6.vendor_class(data) == (4413, ("abc", "de"))
    with pytest.raises(Truncated):
        dhcpv6.vendor_class(struct.pack("!IH", 4413, 9) + b"abc")


def test_compressed_fqdn_is_malformed():
    with pytest.raises(Malformed):
        dhcpv6.client_fqdn(b"\x01\xc0\x04")


@pytest.mark.parametrize("data", [SOLICIT, relay_forward(SOLICIT)])
def test_truncation_sweep(data):
    for n in range(len(data) + 1):
        try:
            msg = dhcpv6.decode(memoryview(data)[:n])
            for code, option in msg.options:
                if code == dhcpv6.OPT_CLIENT_FQDN:
                    dhcpv6.client_fqdn(option)
                elif code == dhcpv6.OPT_VENDOR_CLASS:
                    dhcpv6.vendor_class(option)
        except (Truncated, Malformed):
            pass


def test_ia_na_addresses_skip_released_ones(sweep):
    ia = struct.pack("!III", 7, 0, 0)
    for addr, valid in (("2001:db8::77", 7200), ("2001:db8::78", 0)):
        body = socket.inet_pton(socket.AF_INET6, addr) + struct.pack("!II", 3600, valid)
        ia += struct.pack("!HH", 5, len(body)) + body
    assert dhcpv6.ia_na_addresses(ia) == ("2001:db8::77",)
    sweep(lambda b: dhcpv6.ia_na_addresses(bytes(b)), ia)
