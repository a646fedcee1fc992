"""Server names and JA4 from QUIC client Initials, on any UDP port, with the ClientHello
spread over several Initials out of order; tshark reads the same names from the capture."""

from __future__ import annotations

import subprocess

from tracepcap.extract.extractors.quic import Quic
from tracepcap.extract.extractors.tls_fingerprint import ja4
from tracepcap.limits import Limits
from tracepcap.extract.decoders import tls as tls_decoder
from tracepcap.testing import quic as q, tls
from tracepcap.testing.scenario import Scenario

HELLO = tls.tls_client_hello("video.example.net", version=tls.TLS12, alpn=("h3",),
                             supported_versions=(0x0304,),
                             extra_extensions=[(0x39, b"\x01\x02\x40\x00" * 200)])[5:]


def scenario() -> Scenario:
    s = Scenario()
    client = s.host("10.0.0.5", "02:00:00:00:00:05")
    server = s.host("198.51.100.9", via=s.host("10.0.0.1", "02:00:00:00:00:01"))
    other = s.host("198.51.100.10", via=s.host("10.0.0.1", "02:00:00:00:00:01"))
    dcid = bytes.fromhex("0011223344556677")
    half = len(HELLO) // 2
    # the second half first, the first half in a later datagram, then a retransmission
    s.udp(client, server, 50001, 443, q.client_initial(dcid, q.crypto_frame(half, HELLO[half:]),
                                                      packet_number=1))
    s.udp(server, client, 443, 50001, q.client_initial(b"\x99" * 8, q.crypto_frame(0, b"\x02junk")))
    s.udp(client, server, 50001, 443, q.client_initial(dcid, q.crypto_frame(0, HELLO[:half]),
                                                      packet_number=2))
    s.udp(client, server, 50001, 443, q.client_initial(dcid, q.crypto_frame(0, HELLO[:half]),
                                                      packet_number=3))
    # QUIC v2 on a port that is not 443, the whole hello in one Initial
    small = tls.tls_client_hello("alt.example.org", version=tls.TLS12, alpn=("h3",),
                                 supported_versions=(0x0304,))[5:]
    s.udp(client, other, 50002, 8443, q.client_initial(b"\x42" * 12, q.crypto_frame(0, small),
                                                       version=q.V2))
    return s


def test_sni_and_ja4_on_the_client(run, rows):
    result = run(scenario(), Quic)
    ja4_value = ja4(tls_decoder.client_hello(HELLO[4:]), "q")
    assert ja4_value.startswith("q13d")
    assert rows(result) == {
        ("10.0.0.5", "tls-sni", "video.example.net", "quic", 1, 1, 1),
        ("10.0.0.5", "tls-sni", "alt.example.org", "quic", 5, 5, 1),
        ("10.0.0.5", "tls-client-fingerprint", ja4_value, "ja4", 1, 1, 1),
        ("10.0.0.5", "tls-client-fingerprint",
         ja4(tls_decoder.client_hello(tls.tls_client_hello(
             "alt.example.org", version=tls.TLS12, alpn=("h3",), supported_versions=(0x0304,))[9:]), "q"),
         "ja4", 5, 5, 1),
    }


def test_tshark_reads_the_same_names(tmp_path):
    path = scenario().write_pcap(tmp_path / "quic.pcap")
    out = subprocess.run(["tshark", "-n", "-r", str(path), "-d", "udp.port==8443,quic", "-Y", "quic",
                          "-T", "fields", "-e", "frame.number", "-e", "tls.handshake.extensions_server_name"],
                         capture_output=True, text=True, check=True).stdout
    names = {line.split("\t")[1] for line in out.splitlines() if line.split("\t")[1]}
    assert names == {"video.example.net", "alt.example.org"}


def test_a_full_table_drops_the_oldest_unfinished_hello(run, rows, manifest):
    s = Scenario()
    client = s.host("10.0.0.5", "02:00:00:00:00:05")
    server = s.host("10.0.0.9", "02:00:00:00:00:09")
    for n in range(3):  # three connections, each only the second half of its hello
        s.udp(client, server, 50000 + n, 443, q.client_initial(bytes([n]) * 8, q.crypto_frame(10, HELLO[10:])))
    s.udp(client, server, 50002, 443, q.client_initial(bytes([2]) * 8, q.crypto_frame(0, HELLO[:10])))
    result = run(s, Quic, limits=Limits(max_pending=2))
    assert {r[2] for r in rows(result, "tls-sni")} == {"video.example.net"}
    assert manifest(result, "quic").error == "1 entries evicted from a bounded table"
