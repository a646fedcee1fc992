"""Malformed input for the identity decoders (Browser, VPN shapes, logins, DHCP client id,
DHCPv6 IA_NA): each payload mutated at random and cut at every length. A DecodeError is
the only failure allowed; the login readers accept any bytes."""

from __future__ import annotations

import base64
import random
import struct

import pytest

from tracepcap.extract.decoders import DecodeError, browser, dhcp, dhcpv6, logins, vpn
from tracepcap.testing import identity, snmp

IA_NA = struct.pack("!III", 7, 0, 0) + struct.pack("!HH", 5, 24) + bytes(15) + b"\x01" + struct.pack("!II", 1, 2)
CASES = {
    "browser": (browser.decode, identity.browser_announcement("DESKTOP-7", "10.0.0.5", comment="hi")),
    "wireguard": (vpn.wireguard, identity.wireguard_initiation(3)),
    "openvpn": (vpn.openvpn, identity.openvpn_hard_reset_client(9)),
    "ike": (lambda b: vpn.ike(b, natt=True), identity.ike_sa_init(5, natt=True)),
    "esp": (vpn.esp, identity.esp(0x1234, 1, 16)),
    "l2tp": (vpn.l2tp, identity.l2tp_sccrq()),
    "user-pass": (lambda b: logins.user_pass(bytes(b)),
                  b"USER a\r\nPASS b\r\nAUTH LOGIN\r\n" + base64.b64encode(b"u") + b"\r\nAPOP x y\r\n"),
    "imap": (lambda b: logins.imap(bytes(b)),
             b'a LOGIN "q\\"x" y\r\nb AUTHENTICATE PLAIN\r\n' + base64.b64encode(b"\0u\0p") + b"\r\n"),
    "http-basic": (lambda b: logins.http_basic(bytes(b)),
                   b"GET / HTTP/1.1\r\nAuthorization: Basic " + base64.b64encode(b"u:p") + b"\r\n\r\n"),
    "telnet": (lambda b: logins.telnet(bytes(b)), b"\xff\xfd\x18\xff\xfa\x18\x00VT\xff\xf0root\r\x00pw\r\n"),
    "snmp-community": (logins.snmp_community, snmp.get_request(3, ["1.3.6.1.2.1.1.5.0"], community="c")),
    "dhcp-client-id": (lambda b: dhcp.client_id(bytes(b)),
                       bytes.fromhex("ff8f9aaebd000100011fcb3eceb827eb3d08db")),
    "dhcpv6-ia-na": (lambda b: dhcpv6.ia_na_addresses(bytes(b)), IA_NA),
}


def attempt(decode, data: bytes) -> None:
    try:
        decode(memoryview(data))
    except DecodeError:
        pass


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_prefix_and_mutations(name):
    decode, base = CASES[name]
    for cut in range(len(base) + 1):
        attempt(decode, base[:cut])
    rng = random.Random(name)
    for _ in range(400):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        attempt(decode, bytes(data))
