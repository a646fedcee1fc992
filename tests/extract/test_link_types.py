"""Every link type the hot path reads, on synthetic frames, checked against tshark: the
same addresses and ports, and the same MACs where the link layer has them."""

from __future__ import annotations

import subprocess

import pytest

from tracepcap.extract.decoders import DecodeError
from tracepcap.extract.packet import decode_frame
from tracepcap.testing import frames as f, links
from tracepcap.testing.writers import PcapWriter

A, B = "192.0.2.10", "198.51.100.20"
A6, B6 = "2001:db8::10", "2001:db8::20"
STA, SERVER, AP = "02:00:00:00:00:05", "02:00:00:00:00:09", "02:00:00:00:00:01"


def tcp4() -> bytes:
    return f.ipv4(A, B, 6, f.tcp(A, B, 51000, 80, 1, 0, "S"))


def udp6() -> bytes:
    return f.ipv6(A6, B6, 17, f.udp(A6, B6, 5353, 53, b"q"))


FRAMES = {  # name: (link type, frame, source MAC expected or None)
    "nflog": (239, links.nflog(links.AF_INET, tcp4(), mac=STA, prefix="ACCEPT"), STA),
    "nflog-big-endian": (239, links.nflog(links.AF_INET6, udp6(), big_endian=True), None),
    "802.11": (105, links.ieee80211_data(STA, SERVER, AP, 0x0800, tcp4(), to_ds=True, qos=True), STA),
    "radiotap": (127, links.radiotap(links.ieee80211_data(STA, SERVER, AP, 0x86DD, udp6(), from_ds=True)),
                 STA),
    "ppi": (192, links.ppi(105, links.ieee80211_data(STA, SERVER, AP, 0x0800, tcp4())), STA),
    "ppi-ethernet": (192, links.ppi(1, f.ethernet(STA, SERVER, 0x0800, tcp4())), STA),
    "ppp": (9, links.ppp(links.PPP_IPV4, tcp4()), None),
    "ppp-hdlc": (50, links.ppp(links.PPP_IPV6, udp6()), None),
    "cisco-hdlc": (50, links.cisco_hdlc(0x0800, tcp4()), None),
    "c-hdlc": (104, links.cisco_hdlc(0x86DD, udp6()), None),
    "sll-vlan": (113, f.linux_sll(STA, 0x8100, b"\x00\x64\x08\x00" + tcp4()), STA),
    "sll2": (276, f.linux_sll2(STA, 0x86DD, udp6()), STA),
}
FIELDS = ("ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "tcp.dstport", "udp.dstport", "wlan.sa", "sll.src.eth")


def tshark(tmp_path, linktype: int, frame: bytes, big_endian: bool) -> dict[str, str]:
    path = tmp_path / f"{linktype}.pcap"
    with open(path, "wb") as out:  # an NFLOG file is in its capturing host's byte order
        PcapWriter(out, linktype=linktype, big_endian=big_endian).write(1_700_000_000.0, frame)
    out = subprocess.run(["tshark", "-n", "-r", str(path), "-T", "fields",
                          *(arg for name in FIELDS for arg in ("-e", name))],
                         capture_output=True, text=True, check=True).stdout
    return dict(zip(FIELDS, out.rstrip("\n").split("\t")))


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_as_tshark_reads_it(tmp_path, name):
    linktype, frame, mac = FRAMES[name]
    pkt = decode_frame(linktype, memoryview(frame), 1, 0.0, len(frame))
    seen = tshark(tmp_path, linktype, frame, big_endian=name.endswith("big-endian"))
    assert pkt.src == (seen["ip.src"] or seen["ipv6.src"])
    assert pkt.dst == (seen["ip.dst"] or seen["ipv6.dst"])
    assert str(pkt.dport) == (seen["tcp.dstport"] or seen["udp.dstport"])
    assert pkt.src_mac_text == mac
    if linktype in (105, 127) or (linktype == 192 and name == "ppi"):
        assert seen["wlan.sa"] == mac


def test_vlan_tag_after_a_cooked_header():
    linktype, frame, _ = FRAMES["sll-vlan"]
    assert decode_frame(linktype, memoryview(frame), 1, 0.0, len(frame)).vlans == (100,)


@pytest.mark.parametrize("linktype, frame", [
    (105, links.ieee80211_beacon(AP, "office")),
    (127, links.radiotap(links.ieee80211_data(STA, SERVER, AP, 0x0800, tcp4(), to_ds=True, protected=True))),
    (239, links.nflog(links.AF_INET, None, prefix="no copy")),
    (9, links.ppp(links.PPP_LCP, b"\x01\x01\x00\x04")),
])
def test_frames_without_ip_are_non_ip_frames(linktype, frame):
    pkt = decode_frame(linktype, memoryview(frame), 1, 0.0, len(frame))
    assert pkt.src is None and pkt.link is not None


def test_ppi_of_an_unknown_link_type():
    frame = links.ppi(147, b"\x00" * 20)
    with pytest.raises(DecodeError, match="unsupported link type 147 after the PPI header"):
        decode_frame(192, memoryview(frame), 1, 0.0, len(frame))


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_every_prefix_decodes_or_raises_decode_error(name):
    linktype, frame, _ = FRAMES[name]
    for cut in range(len(frame) + 1):
        try:
            decode_frame(linktype, memoryview(frame[:cut]), 1, 0.0, cut)
        except DecodeError:
            pass
