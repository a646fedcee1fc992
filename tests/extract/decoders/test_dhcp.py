"""DHCPv4 decoding: real DISCOVERs and an OFFER, option overload, long options, FQDN."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import DecodeError, Malformed, Truncated, dhcp
from tracepcap.testing import app


def sweep(data: bytes) -> None:
    for n in range(len(data) + 1):
        try:
            dhcp.decode(memoryview(data)[:n])
        except (Truncated, Malformed):
            pass


def test_discover_from_unbound_client(payload):
    # demo_all_rules.pcap frame 597: a Raspberry Pi's DISCOVER from 0.0.0.0
    msg = dhcp.decode(memoryview(payload("demo_all_rules.pcap", 597)))
    assert (msg.op, msg.msg_type, msg.xid) == (dhcp.BOOTREQUEST, dhcp.DISCOVER, 0xDEC99B22)
    assert (msg.ciaddr, msg.yiaddr, msg.giaddr) == ("0.0.0.0", "0.0.0.0", "0.0.0.0")
    assert msg.chaddr.hex(":") == "00:80:8f:9a:ae:bd"
    assert dhcp.text(msg.options[dhcp.OPT_HOSTNAME]) == "pi3.ntop.org"
    assert dhcp.text(msg.options[dhcp.OPT_VENDOR_CLASS]) == \
        "dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835"
    assert list(msg.options[dhcp.OPT_PARAM_LIST]) == [1, 121, 33, 3, 6, 12, 15, 26, 28, 42,
                                                      51, 54, 58, 59, 119]
    assert list(msg.options) == [53, 61, 80, 116, 57, 60, 12, 145, 55]  # wire order


def test_mac_discover(payload):
    # signal.pcap frame 1: a Mac's DISCOVER, hostname Lucas-iMac
    msg = dhcp.decode(payload("signal.pcap", 1))
    assert (msg.xid, msg.chaddr.hex(":")) == (0x21BA8EAA, "d8:30:62:56:00:1c")
    assert dhcp.text(msg.options[dhcp.OPT_HOSTNAME]) == "Lucas-iMac"
    assert list(msg.options[dhcp.OPT_PARAM_LIST]) == [1, 121, 3, 6, 15, 119, 252, 95, 44, 46]


def test_offer(payload):
    # demo_all_rules.pcap frame 1578: an OFFER of 192.168.100.10 from 192.168.100.254
    msg = dhcp.decode(payload("demo_all_rules.pcap", 1578))
    assert (msg.op, msg.msg_type, msg.xid, msg.yiaddr) == (dhcp.BOOTREPLY, dhcp.OFFER,
                                                           0xABCD1234, "192.168.100.10")
    assert msg.options[1] == bytes([255, 255, 255, 0])


@pytest.mark.parametrize("capture, frame", [("demo_all_rules.pcap", 597),
                                            ("demo_all_rules.pcap", 1578), ("signal.pcap", 1)])
def test_truncation_sweep(payload, capture, frame):
    sweep(payload(capture, frame))


def test_fixed_part_shorter_than_240_is_truncated(payload):
    with pytest.raises(Truncated):
        dhcp.decode(payload("signal.pcap", 1)[:239])


def test_option_running_past_the_end_is_truncated():
    msg = app.dhcp(app.BOOTREQUEST, 1, "00:11:22:33:44:55", app.DISCOVER)[:240]
    with pytest.raises(Truncated):
        dhcp.decode(msg + bytes([dhcp.OPT_HOSTNAME, 10]) + b"abc")


def test_bad_op_is_malformed():
    msg = bytearray(app.dhcp(app.BOOTREQUEST, 1, "00:11:22:33:44:55", app.DISCOVER))
    msg[0] = 7
    with pytest.raises(Malformed, match="op 7"):
        dhcp.decode(bytes(msg))


def test_plain_bootp_has_no_options():
    msg = bytearray(app.dhcp(app.BOOTREQUEST, 1, "00:11:22:33:44:55", app.DISCOVER))
    msg[236:240] = b"\x00\x00\x00\x00"
    assert dhcp.decode(bytes(msg)).options == {}


def test_long_option_split_in_two_is_concatenated():
    # RFC 3396: an option longer than 255 bytes is sent as several instances
    fixed = app.dhcp(app.BOOTREQUEST, 1, "00:11:22:33:44:55", app.DISCOVER)[:240]
    options = b"\x0c\x03abc\x35\x01\x01\x0c\x03def\xff"
    msg = dhcp.decode(fixed + options)
    assert (msg.options[dhcp.OPT_HOSTNAME], msg.msg_type) == (b"abcdef", dhcp.DISCOVER)


def test_option_overload_reads_file_and_sname():
    msg = bytearray(app.dhcp(app.BOOTREQUEST, 1, "00:11:22:33:44:55", app.DISCOVER)[:240])
    msg[108:108 + 7] = b"\x0c\x04host\xff"  # file field (RFC 2132 9.3)
    msg[44:44 + 5] = b"\x3c\x03abc"  # sname field, no END: zero padding to the field's end
    decoded = dhcp.decode(bytes(msg) + b"\x35\x01\x03\x34\x01\x03\xff")
    assert decoded.options[dhcp.OPT_HOSTNAME] == b"host"
    assert decoded.options[dhcp.OPT_VENDOR_CLASS] == b"abc"
    assert decoded.msg_type == dhcp.REQUEST


def test_client_fqdn_wire_and_ascii():
    assert dhcp.client_fqdn(b"\x05\x00\x00\x06laptop\x04corp\x07example\x00") == \
        "laptop.corp.example"
    assert dhcp.client_fqdn(b"\x05\x00\x00\x06laptop") == "laptop"  # partial name, no root
    assert dhcp.client_fqdn(b"\x00\x00\x00DESKTOP-1.corp.example\x00") == "DESKTOP-1.corp.example"
    with pytest.raises(Malformed, match="compression"):
        dhcp.client_fqdn(b"\x04\x00\x00\xc0\x0c")
    with pytest.raises(Truncated):
        dhcp.client_fqdn(b"\x04\x00\x00\x06lap")
    with pytest.raises(Truncated):
        dhcp.client_fqdn(b"\x04\x00")


def test_text_strips_nul_terminator_and_keeps_bad_bytes():
    assert dhcp.text(b"android-dhcp-13\x00") == "android-dhcp-13"
    assert dhcp.text(b"caf\xe9") == "caf\udce9"  # surrogateescape: visible() renders caf\xe9


def test_mutated_options_raise_only_decode_errors(payload):
    data = bytearray(payload("demo_all_rules.pcap", 597))
    for at in range(236, len(data)):
        for value in (0x00, 0x34, 0x51, 0xFF, 0x03):
            mutated = bytearray(data)
            mutated[at] = value
            try:
                msg = dhcp.decode(bytes(mutated))
                if dhcp.OPT_CLIENT_FQDN in msg.options:
                    dhcp.client_fqdn(msg.options[dhcp.OPT_CLIENT_FQDN])
            except DecodeError:
                pass


def test_client_id_by_type():
    assert dhcp.client_id(bytes.fromhex("01d830625600 1c".replace(" ", ""))) == \
        "ethernet d8:30:62:56:00:1c"
    # demo_all_rules.pcap frame 597 (pi3.ntop.org): IAID 8f9aaebd, DUID-LLT of b8:27:eb:3d:08:db
    assert dhcp.client_id(bytes.fromhex("ff8f9aaebd000100011fcb3eceb827eb3d08db")) == \
        "rfc4361 iaid 8f9aaebd duid-llt b8:27:eb:3d:08:db"
    assert dhcp.client_id(b"\x00printer") == "text printer"
    assert dhcp.client_id(b"\x06\x01\x02") == "type 6 0102"
    assert dhcp.client_id(b"\xff\x01") == "type 255 01"  # too short for an IAID and DUID
    with pytest.raises(Truncated):
        dhcp.client_id(b"")


def test_user_class_items_or_bare_text():
    assert dhcp.user_class(b"\x04iPXE\x03lab") == "iPXE,lab"
    assert dhcp.user_class(b"MSFT 5.0") == "MSFT 5.0"  # 'M' is no fitting length
    assert dhcp.user_class(b"") == ""


def test_client_id_sweep(sweep):
    sweep(lambda b: dhcp.client_id(bytes(b)), bytes.fromhex("ff8f9aaebd000100011fcb3eceb827eb3d08db"))
    sweep(lambda b: dhcp.user_class(bytes(b)), b"\x04iPXE\x03lab")


def test_read_keeps_the_options_before_a_cut(payload):
    # demo_all_rules.pcap frame 597 (above) cut inside its hostname option (12)
    whole = payload("demo_all_rules.pcap", 597)
    cut = whole[:whole.index(b"pi3.ntop") + 3]
    msg, error = dhcp.read(memoryview(cut))
    assert isinstance(error, Truncated) and msg.xid == 0xDEC99B22
    assert list(msg.options) == [53, 61, 80, 116, 57, 60]  # wire order, up to the one cut
    with pytest.raises(Truncated):
        dhcp.decode(memoryview(cut))
    assert dhcp.read(memoryview(whole)) == (dhcp.decode(memoryview(whole)), None)
