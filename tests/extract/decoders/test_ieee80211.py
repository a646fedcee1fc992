"""802.11 data frames (bare, behind Radiotap, behind PPI): addresses by the DS bits, the
SNAP ethertype; management, protected and Null frames read as carrying nothing."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, ieee80211, ppi, radiotap
from tracepcap.testing import links

STA, SERVER, AP = "02:00:00:00:00:05", "02:00:00:00:00:09", "02:00:00:00:00:01"


@pytest.mark.parametrize("to_ds, from_ds, qos", [(False, False, False), (True, False, True),
                                                 (False, True, False), (True, True, True)])
def test_addresses_by_the_ds_bits(to_ds, from_ds, qos):
    frame = links.ieee80211_data(STA, SERVER, AP, 0x86DD, b"payload", to_ds=to_ds, from_ds=from_ds, qos=qos)
    src, dst, ethertype, at = ieee80211.decode(frame)
    assert (src.hex(":"), dst.hex(":"), ethertype, frame[at:]) == (STA, SERVER, 0x86DD, b"payload")


def test_frames_that_carry_nothing_we_read():
    beacon = links.ieee80211_beacon(AP, "office")
    assert ieee80211.decode(beacon) == (None, None, 0, len(beacon))
    protected = links.ieee80211_data(STA, SERVER, AP, 0x0800, b"secret", to_ds=True, protected=True)
    assert ieee80211.decode(protected)[2] == 0
    null = bytearray(links.ieee80211_data(STA, SERVER, AP, 0x0800, b"", to_ds=True))
    null[0] |= 0x40  # subtype Null: no body
    assert ieee80211.decode(bytes(null))[2] == 0
    llc = links.ieee80211_data(STA, SERVER, AP, 0, b"")[:24] + b"\x42\x42\x03" + bytes(35)  # STP
    assert ieee80211.decode(llc)[2] == 0


def test_radiotap_and_ppi_headers():
    frame = links.ieee80211_data(STA, SERVER, AP, 0x0800, b"x", to_ds=True)
    data = links.radiotap(frame)
    assert data[radiotap.decode(data):] == frame
    data = links.ppi(links.LINKTYPE_IEEE802_11, frame)
    linktype, at = ppi.decode(data)
    assert (linktype, data[at:]) == (105, frame)
    with pytest.raises(Malformed):
        radiotap.decode(b"\x01\x00\x08\x00\x00\x00\x00\x00")
    with pytest.raises(Malformed):
        ppi.decode(b"\x00\x00\x04\x00\x69\x00\x00\x00")


def test_cut_short(sweep):
    frame = links.ieee80211_data(STA, SERVER, AP, 0x0800, b"x", to_ds=True, from_ds=True, qos=True)
    with pytest.raises(Truncated):
        ieee80211.decode(frame[:30])
    sweep(ieee80211.decode, frame)
    sweep(radiotap.decode, links.radiotap(frame))
    sweep(ppi.decode, links.ppi(105, frame))
