"""JA3 and JA4 of ClientHellos: checked against tshark's JA3 and against JA4 built by hand
from what tshark reads in the same hellos, and against the JA4 specification's example."""

from __future__ import annotations

import hashlib

from tracepcap.extract.decoders import tls
from tracepcap.extract.extractors.tls_fingerprint import TlsFingerprint, ja3, ja4
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

# tls.handshake.ja3 of every ClientHello, as tshark 4.0 computes it
JA3 = {
    "discord.pcap": {("10.0.2.15", "6f5e62edfa5933b1332ddf8b9fb3ef9d", 3, 3, 1)},
    "signal.pcap": {("192.168.2.17", "17305a56a62a10f6b0ee8edcc3b1769c", 11, 182, 2),
                    ("192.168.2.17", "e4d448cdfe06dc1243c1eb026c74ac9a", 22, 196, 2),
                    ("192.168.2.17", "6725ca90906e1036febcbfd464e2e326", 25, 376, 8)},
    "demo_all_rules.pcap": {("192.168.100.10", "277452ccf6b8e55fff8361a76c988e22", 1600, 1600, 1),
                            ("192.168.100.10", "1d8dab785d5cd8a4fd99e5f70dfdede2", 1605, 1605, 1)},
}


def facts(result, source):
    return {(o.entity, o.value, o.witness.first_frame, o.witness.last_frame, o.witness.count)
            for o in result.observations if o.source == source}


def test_ja3_agrees_with_tshark(run, captures):
    for name, expected in JA3.items():
        assert facts(run(captures / name, TlsFingerprint), "ja3") == expected, name


def hash12(values):
    return hashlib.sha256(",".join(values).encode()).hexdigest()[:12]


def test_ja4_of_a_real_hello(run, captures):
    # discord.pcap frame 3 as tshark reads it: TLS 1.2 (no supported_versions), SNI
    # discord.com, 12 suites, 9 extensions, ALPN h2 first, and these signature algorithms
    ciphers = [49195, 49196, 52393, 49199, 49200, 52392, 49171, 49172, 156, 157, 47, 53]
    extensions = [65281, 0, 23, 35, 13, 5, 16, 11, 10]
    algorithms = "0403,0804,0401,0503,0805,0501,0806,0601,0201"
    b = hash12(sorted(f"{c:04x}" for c in ciphers))
    c = hashlib.sha256((",".join(sorted(f"{e:04x}" for e in extensions if e not in (0, 16)))
                        + "_" + algorithms).encode()).hexdigest()[:12]
    assert facts(run(captures / "discord.pcap", TlsFingerprint), "ja4") == {
        ("10.0.2.15", f"t12d1209h2_{b}_{c}", 3, 3, 1)}


def hello(ciphers, extensions, data, version=0x0303):
    """A ClientHello body offering `ciphers` and `extensions` (types, in order)."""
    def vec(raw, width):
        return len(raw).to_bytes(width, "big") + raw
    exts = b"".join(t.to_bytes(2, "big") + vec(data.get(t, b""), 2) for t in extensions)
    suites = b"".join(c.to_bytes(2, "big") for c in ciphers)
    return tls.client_hello(version.to_bytes(2, "big") + bytes(32) + b"\x00" + vec(suites, 2)
                            + b"\x01\x00" + vec(exts, 2))


def u16s(values, width=2):
    raw = b"".join(v.to_bytes(2, "big") for v in values)
    return len(raw).to_bytes(width, "big") + raw


SIGNATURES = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601]
DATA = {0x0000: u16s([]), 0x000D: u16s(SIGNATURES), 0x002B: u16s([0x7A7A, 0x0304, 0x0303], 1),
        0x0010: (5).to_bytes(2, "big") + b"\x02h2" + b"\x01x"}


def test_ja4_of_the_specifications_example():
    # technical_details/JA4.md: the cipher list, the extension list (GREASE added here, to
    # be ignored) and the signature algorithms give t13d1516h2_8daaf6152771_e5627efa2ab1
    ciphers = [0x2A2A, 0x1301, 0x1302, 0x1303, 0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8, 0xC013, 0xC014,
               0x009C, 0x009D, 0x002F, 0x0035]
    extensions = [0x0A0A, 0x001B, 0x0000, 0x0033, 0x0010, 0x4469, 0x0017, 0x002D, 0x000D, 0x0005, 0x0023, 0x0012,
                  0x002B, 0xFF01, 0x000B, 0x000A, 0x0015]
    assert ja4(hello(ciphers, extensions, DATA)) == "t13d1516h2_8daaf6152771_e5627efa2ab1"


def test_ja4_edge_cases():
    no_sni = hello([0x1301], [0x000D], DATA)
    assert ja4(no_sni).startswith("t12i0101") and ja4(no_sni).split("_")[0][-2:] == "00"
    bare = hello([], [], {}, version=0x0301)
    assert ja4(bare) == "t10i000000_000000000000_000000000000"
    no_algorithms = hello([0x1301], [0x0017], {})
    assert ja4(no_algorithms).endswith("_" + hash12(["0017"]))
    odd_alpn = hello([0x1301], [0x0010], {0x0010: (4).to_bytes(2, "big") + b"\x03\xab\x30\xcd"})
    assert ja4(odd_alpn).split("_")[0][-2:] == "ad"  # not alphanumeric: hex digits instead
    assert ja3(bare) == hashlib.md5(b"769,,,,").hexdigest()


def test_a_synthetic_session(run, rows):
    net = Scenario()
    client, server = net.host("10.0.0.21", "00:1b:21:4a:7e:21"), net.host("10.0.0.10", "00:26:b9:5c:20:10")
    offer = app.tls_client_hello("intranet.example", alpn=["h2", "http/1.1"], supported_versions=[0x0304, 0x0303])
    net.tcp_session(client, server, 49152, 443, client=[offer], server=[app.tls_server_hello()])
    found = rows(run(net, TlsFingerprint))
    assert {(e, s) for e, _k, _v, s, *_ in found} == {("10.0.0.21", "ja3"), ("10.0.0.21", "ja4")}
    assert next(v for _e, _k, v, s, *_ in found if s == "ja4").startswith("t13d1208h2_")


def test_hellos_of_one_shape_share_their_fingerprints_and_the_cache_is_bounded(run, rows):
    from tracepcap.limits import Limits
    net = Scenario()
    client, server = net.host("10.0.0.21", "00:1b:21:4a:7e:21"), net.host("10.0.0.10", "00:26:b9:5c:20:10")
    for port, (name, alpn) in enumerate([("a.example", ["h2"]), ("b.example", ["h2"]), ("c.example", ["http/1.1"])]):
        net.tcp_session(client, server, 49152 + port, 443, client=[app.tls_client_hello(name, alpn=alpn)])
    for limits in (Limits(), Limits(max_fingerprint_shapes=0)):
        found = {(v, s, count) for _e, _k, v, s, _f, _l, count in rows(run(net, TlsFingerprint, limits=limits))}
        assert {(s, count) for _v, s, count in found} == {("ja3", 3), ("ja4", 2), ("ja4", 1)}
