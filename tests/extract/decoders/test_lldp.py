"""LLDP and CDP: names, descriptions, capabilities and management addresses."""

from __future__ import annotations

import struct

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, cdp, lldp
from tracepcap.testing import discovery as d

MAC = "00:1b:21:0a:0b:0c"
SWITCH = d.lldp_frame(MAC, chassis_mac="00:00:0c:aa:bb:cc", port="Gi1/0/24", system_name="sw-core-1",
                      description="Cisco IOS Software, C3750E Software (C3750E-UNIVERSALK9-M), "
                                  "Version 15.0(2)SE11",
                      capabilities=["bridge", "router"], enabled=["bridge"],
                      management=["10.0.0.2", "2001:db8::2"], med={d.MED_MODEL: "WS-C3750X-48P"})
PHONE = d.cdp_frame(MAC, device_id="SEP001B210A0B0C", port="Port 1",
                    capabilities=["host", "phone"], software="SCCP75.9-4-2SR1S",
                    platform="Cisco IP Phone 7975", addresses=["10.0.5.21", "2001:db8::21"])


def test_lldp():
    msg = lldp.decode(SWITCH[14:])
    assert msg == lldp.Lldp("00:00:0c:aa:bb:cc", bytes.fromhex("00000caabbcc"), "Gi1/0/24", "sw-core-1",
                            "Cisco IOS Software, C3750E Software (C3750E-UNIVERSALK9-M), Version 15.0(2)SE11",
                            ("bridge", "router"), ("bridge",), ("10.0.0.2", "2001:db8::2"),
                            {d.MED_MODEL: "WS-C3750X-48P"})


def test_lldp_needs_an_end():
    body = SWITCH[14:SWITCH.index(b"\x00\x00", 14 + 60)]  # up to the End TLV
    with pytest.raises(Truncated):
        lldp.decode(body)
    with pytest.raises(Malformed, match="empty TLV 1"):
        lldp.decode(struct.pack("!H", 1 << 9) + b"\x00\x00")


def test_lldp_sweep(sweep):
    sweep(lldp.decode, SWITCH[14:])


def test_cdp():
    link = PHONE[14:14 + int.from_bytes(PHONE[12:14], "big")]
    assert cdp.is_cdp(link)
    assert cdp.decode(link) == cdp.Cdp(2, "SEP001B210A0B0C", "Port 1", ("telephone", "station"),
                                       "SCCP75.9-4-2SR1S", "Cisco IP Phone 7975",
                                       ("10.0.5.21", "2001:db8::21"))


def test_cdp_switch_capabilities_read_as_lldp_words():
    assert cdp.capability_names(0x29) == ("bridge", "router", "igmp")  # Router Switch IGMP


def test_cdp_malformed():
    link = PHONE[14:14 + int.from_bytes(PHONE[12:14], "big")]
    with pytest.raises(Malformed, match="version 7"):
        cdp.decode(link[:8] + b"\x07" + link[9:])
    with pytest.raises(Malformed, match="length 2"):
        cdp.decode(link[:12] + b"\x00\x01\x00\x02" + link[16:])
    assert not cdp.is_cdp(b"\x42\x42\x03\x00\x00\x00")  # spanning tree's LLC


def test_cdp_sweep(sweep):
    sweep(cdp.decode, PHONE[14:14 + int.from_bytes(PHONE[12:14], "big")])
