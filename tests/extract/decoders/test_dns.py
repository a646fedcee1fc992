"""DNS message decoding: real answers with compression, mDNS sections, pointer loops."""

from __future__ import annotations

import random
import struct

import pytest

from tracepcap.extract.decoders import DecodeError, Malformed, Truncated, dns

HEADER = struct.Struct("!HHHHHH")


def sweep(data: bytes) -> None:
    """Every prefix decodes or raises Truncated/Malformed, never anything else."""
    for n in range(len(data) + 1):
        try:
            dns.decode(memoryview(data)[:n])
        except (Truncated, Malformed):
            pass


def test_cname_then_address_with_compression(payload):
    # dns_demo.pcap frame 4: www.example.com CNAME example.com, example.com A 93.184.216.34
    msg = dns.decode(memoryview(payload("dns_demo.pcap", 4)))
    assert (msg.ident, msg.response, msg.opcode, msg.rcode) == (2, True, 0, 0)
    assert msg.questions == (dns.Question("www.example.com", dns.A, 1),)
    assert [(r.name, r.rtype, r.ttl, r.value) for r in msg.answers] == [
        ("www.example.com", dns.CNAME, 300, "example.com"),
        ("example.com", dns.A, 300, "93.184.216.34")]
    assert msg.authority == msg.additional == ()


def test_aaaa_answer(payload):
    # dns_demo.pcap frame 8: google.com AAAA 2607:f8b0:4005:80a::200e
    (answer,) = dns.decode(payload("dns_demo.pcap", 8)).answers
    assert (answer.name, answer.rtype, answer.value) == ("google.com", dns.AAAA,
                                                         "2607:f8b0:4005:80a::200e")


def test_ptr_answer_and_its_address(payload):
    # dns_demo.pcap frame 22: 34.216.184.93.in-addr.arpa PTR example.com
    (answer,) = dns.decode(payload("dns_demo.pcap", 22)).answers
    assert (answer.name, answer.rtype, answer.value) == ("34.216.184.93.in-addr.arpa", dns.PTR,
                                                         "example.com")
    assert dns.reverse_address(answer.name) == "93.184.216.34"


def test_query(payload):
    # dns_demo.pcap frame 1: query A example.com
    msg = dns.decode(payload("dns_demo.pcap", 1))
    assert (msg.response, msg.questions, msg.answers) == (
        False, (dns.Question("example.com", dns.A, 1),), ())


def test_mdns_response_sections(payload):
    # demo_all_rules.pcap frame 1564: a Sonos speaker's _spotify-connect answer; TXT, SRV
    # and its A record ride in the additional section with the cache-flush bit set
    msg = dns.decode(memoryview(payload("demo_all_rules.pcap", 1564)))
    assert (msg.ident, msg.response, msg.questions) == (0, True, ())
    assert [(r.name, r.rtype, r.value) for r in msg.answers] == [
        ("_spotify-connect._tcp.local", dns.PTR, "sonos7828CA05FACC._spotify-connect._tcp.local")]
    assert [(r.name, r.rtype, r.rclass) for r in msg.additional] == [
        ("sonos7828CA05FACC._spotify-connect._tcp.local", 16, 0x8001),
        ("sonos7828CA05FACC._spotify-connect._tcp.local", 33, 0x8001),
        ("sonos7828CA05FACC.local", dns.A, 0x8001)]
    assert msg.additional[2].value == "192.168.1.69"


@pytest.mark.parametrize("capture, frame", [("dns_demo.pcap", 4), ("dns_demo.pcap", 22),
                                            ("dns_demo.pcap", 8), ("demo_all_rules.pcap", 1564)])
def test_truncation_sweep(payload, capture, frame):
    sweep(payload(capture, frame))


def test_short_buffers_are_truncated(payload):
    data = payload("dns_demo.pcap", 4)
    with pytest.raises(Truncated):
        dns.decode(data[:11])
    with pytest.raises(Truncated):
        dns.decode(data[:-1])


def test_pointer_to_itself_is_malformed():
    msg = HEADER.pack(1, 0, 1, 0, 0, 0) + b"\xc0\x0c" + b"\x00\x01\x00\x01"
    with pytest.raises(Malformed, match="does not point back"):
        dns.decode(msg)


def test_pointer_loop_through_labels_is_malformed():
    # offset 12: "a" then a pointer back to 12 -> a.a.a.a... forever without the rule
    msg = HEADER.pack(1, 0, 1, 0, 0, 0) + b"\x01a\xc0\x0c" + b"\x00\x01\x00\x01"
    with pytest.raises(Malformed):
        dns.decode(msg)


def test_two_names_pointing_at_each_other_are_malformed():
    # question at 12 points forward to the answer owner at 18, which points back to 12
    msg = (HEADER.pack(1, 0x8000, 1, 1, 0, 0) + b"\xc0\x12" + b"\x00\x01\x00\x01"
           + b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 0, 4) + b"\x01\x02\x03\x04")
    with pytest.raises(Malformed):
        dns.decode(msg)


def test_name_longer_than_255_is_malformed():
    name = b"".join(b"\x3f" + b"x" * 63 for _ in range(5)) + b"\x00"
    with pytest.raises(Malformed, match="longer than 255"):
        dns.decode(HEADER.pack(1, 0, 1, 0, 0, 0) + name + b"\x00\x01\x00\x01")


def test_bad_address_length_is_malformed():
    msg = (HEADER.pack(1, 0x8000, 0, 1, 0, 0) + b"\x01a\x00"
           + struct.pack("!HHIH", dns.A, 1, 0, 3) + b"\x01\x02\x03")
    with pytest.raises(Malformed, match="rdata of 3 bytes"):
        dns.decode(msg)


def test_non_utf8_label_keeps_its_bytes_not_raised():
    msg = HEADER.pack(1, 0, 1, 0, 0, 0) + b"\x02\xff\xfe\x00" + b"\x00\x01\x00\x01"
    assert dns.decode(msg).questions[0].name == "\udcff\udcfe"  # surrogateescape: the bytes kept


def test_mutations_raise_only_decode_errors(payload):
    rng = random.Random(1035)
    base = bytearray(payload("demo_all_rules.pcap", 1564))
    for _ in range(2000):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            dns.decode(bytes(data))
        except DecodeError:
            pass


@pytest.mark.parametrize("name, address", [
    ("34.216.184.93.in-addr.arpa", "93.184.216.34"),
    ("8.8.8.8.IN-ADDR.ARPA", "8.8.8.8"),
    ("8.1.3.E.7.1.8.7.A.1.9.0.A.B.4.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.E.F.ip6.arpa",
     "fe80::4ba:91a:7817:e318"),
    ("168.192.in-addr.arpa", None),  # a zone, not an address
    ("300.1.168.192.in-addr.arpa", None),
    ("x.1.168.192.in-addr.arpa", None),
    ("\u00b2.1.168.192.in-addr.arpa", None),  # a digit to str.isdigit, not to int()
    ("example.com", None),
])
def test_reverse_address(name, address):
    assert dns.reverse_address(name) == address


def test_plausible(payload):
    assert dns.plausible(memoryview(payload("dns_demo.pcap", 1)))
    assert not dns.plausible(b"\x00" * 11)
    assert not dns.plausible(HEADER.pack(1, 3 << 11, 1, 0, 0, 0))  # opcode 3 is unassigned


def test_read_keeps_the_sections_before_a_cut_and_says_where_it_stopped(payload):
    # dns_demo.pcap frame 4 (above) cut inside its second answer: the question and the CNAME stay
    whole = payload("dns_demo.pcap", 4)
    for n in range(HEADER.size, len(whole) + 1):
        msg, error = dns.read(memoryview(whole)[:n])
        assert msg.ident == 2
        if n == len(whole):
            assert error is None and msg == dns.decode(whole)
        else:
            assert isinstance(error, (Truncated, Malformed))
            assert msg.answers == dns.decode(whole).answers[:len(msg.answers)]
    msg, error = dns.read(whole[:-3])
    assert [r.rtype for r in msg.answers] == [dns.CNAME] and isinstance(error, Truncated)
    with pytest.raises(Truncated):
        dns.read(whole[:HEADER.size - 1])  # not even a header: nothing to show
