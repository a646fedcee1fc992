"""VPN handshakes by shape: WireGuard, OpenVPN, IKE, ESP, L2TP."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import vpn
from tracepcap.testing import identity


def test_real_wireguard_initiation(payload):
    # monitor_large_week2_personal_laptop_vpn.pcap frame 46: 10.0.4.20 -> 198.51.100.50:51820,
    # tshark: "WireGuard Handshake Initiation, sender=0x2970A345"
    data = payload("monitor_large_week2_personal_laptop_vpn.pcap", 46)
    assert vpn.wireguard(memoryview(data)) == vpn.Handshake("wireguard", "initiation", True)


def test_synthetic_handshakes():
    assert vpn.wireguard(identity.wireguard_response(9, 0x1234)) == \
        vpn.Handshake("wireguard", "response", False)
    assert vpn.openvpn(identity.openvpn_hard_reset_client(7)) == \
        vpn.Handshake("openvpn", "hard reset client", True)
    assert vpn.ike(identity.ike_sa_init(0xAABB)) == vpn.Handshake("ike", "v2 IKE_SA_INIT", True)
    assert vpn.ike(identity.ike_sa_init(0xAABB, natt=True), natt=True) == \
        vpn.Handshake("ike", "v2 IKE_SA_INIT", True)
    assert vpn.esp(identity.esp(0xABCD, 1)) == vpn.Handshake("esp", "spi 0x0000abcd", None)
    assert vpn.l2tp(identity.l2tp_sccrq()) == vpn.Handshake("l2tp", "v2 control", None)


@pytest.mark.parametrize("data", [
    b"\x01\x00\x00\x01" + bytes(144),  # right size, but the reserved bytes must be zero
    bytes(148)[:147],
    b"\x03\x00\x00\x00" + bytes(60),  # a cookie reply is no handshake opening
])
def test_wireguard_shape_is_exact(data):
    assert vpn.wireguard(data) is None


def test_other_shapes_are_refused():
    sa_init = bytearray(identity.ike_sa_init(0xAABB))
    sa_init[-1] ^= 0xFF
    assert vpn.ike(bytes(sa_init[:-1])) is None  # length field no longer matches
    assert vpn.ike(identity.ike_sa_init(1)) is not None
    assert vpn.ike(identity.ike_sa_init(1), natt=True) is None  # no non-ESP marker
    assert vpn.openvpn(b"\x48" + bytes(20)) is None  # P_DATA_V1: not a session opening
    assert vpn.esp(b"\x00\x00\x00\x05" + bytes(8)) is None  # reserved SPI
    assert vpn.l2tp(b"\x00\x05") is None


@pytest.mark.parametrize("decode, data", [
    (vpn.wireguard, identity.wireguard_initiation(5)),
    (vpn.openvpn, identity.openvpn_hard_reset_client(7)),
    (vpn.ike, identity.ike_sa_init(3)),
    (lambda b: vpn.ike(b, natt=True), identity.ike_sa_init(3, natt=True)),
    (vpn.esp, identity.esp(0x1000, 2)),
    (vpn.l2tp, identity.l2tp_sccrq()),
])
def test_truncation_sweep(sweep, decode, data):
    sweep(decode, data)
