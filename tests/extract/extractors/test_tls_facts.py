"""TLS facts: SNI on the client, certificate names on the server, across segments."""

from __future__ import annotations

from tracepcap.extract.extractors.tls import Tls, host_names
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario
from tracepcap.testing.tls import CA_KEY_SEED

HANDSHAKE_FRAMES = 3  # SYN, SYN-ACK, ACK: the client's first data segment is frame 4


def pair():
    net = Scenario()
    return (net, net.host("10.0.0.5", "00:1b:21:00:00:05"),
            net.host("10.0.0.80", "00:1b:21:00:00:50"))


def corp_chain() -> list[bytes]:
    leaf = app.certificate("portal.corp.example", ["portal.corp.example", "*.corp.example",
                                                   "portal"],
                           issuer_cn="Corp Issuing CA", issuer_key_seed=CA_KEY_SEED,
                           pki_url="http://pki.corp.example")
    return [leaf, app.ca_cert("Corp Issuing CA")]


def test_hello_in_two_segments_and_certificate_in_many(run, rows, manifest):
    net, client, server = pair()
    hello = app.tls_client_hello("portal.corp.example")
    flight = app.tls_server_flight(corp_chain())
    half = len(hello) // 2 + 1
    assert len(hello) > half and len(flight) > 8 * half  # the chain spans many segments
    net.tcp_session(client, server, 50000, 443, client=[hello], server=[flight], segment=half)
    server_first = HANDSHAKE_FRAMES + 2 + 1 + 1  # two hello segments, an ACK, then data
    result = run(net, Tls)
    assert rows(result) == {
        ("10.0.0.5", "tls-sni", "portal.corp.example", "tls", 4, 4, 1),
        ("10.0.0.80", "hostname-claim", "portal.corp.example", "tls-certificate",
         server_first, server_first, 1),
        ("10.0.0.80", "hostname-claim", "portal", "tls-certificate", server_first, server_first, 1)}
    assert manifest(result, "tls").status == "completed"


def test_segments_out_of_order(run, rows):
    net, client, server = pair()
    hello = app.tls_client_hello("reordered.example")
    net.tcp_session(client, server, 50001, 443, client=[hello], segment=64, reorder=True)
    # frame 4 carries the second piece, frame 5 the first: the head starts at frame 4
    assert rows(run(net, Tls)) == {("10.0.0.5", "tls-sni", "reordered.example", "tls", 4, 4, 1)}


def test_client_certificate_is_not_a_server_name(run, rows):
    net, client, server = pair()
    client_flight = app.tls_certificate([app.self_signed_cert("user-laptop-17")])
    net.tcp_session(client, server, 50002, 443,
                    client=[app.tls_client_hello("mtls.example"), client_flight],
                    server=[app.tls_server_flight([app.self_signed_cert("mtls.example")])])
    assert {r[:4] for r in rows(run(net, Tls))} == {
        ("10.0.0.5", "tls-sni", "mtls.example", "tls"),
        ("10.0.0.80", "hostname-claim", "mtls.example", "tls-certificate")}


def test_tls13_server_sends_no_clear_certificate(run, rows, manifest):
    net, client, server = pair()
    hello = app.tls_client_hello("modern.example", supported_versions=[app.TLS13, app.TLS12])
    server_hello = app.tls_server_hello(extensions=[(43, b"\x03\x04")])  # supported_versions
    net.tcp_session(client, server, 50003, 443, client=[hello],
                    server=[server_hello + app.tls_application_data(b"\x17" * 900)])
    result = run(net, Tls)
    assert {r[:4] for r in rows(result)} == {("10.0.0.5", "tls-sni", "modern.example", "tls")}
    assert manifest(result, "tls").status == "completed"


def test_other_streams_and_cut_heads_are_quiet(run, rows, manifest):
    net, client, server = pair()
    net.tcp_session(client, server, 50004, 443, client=[b"GET / HTTP/1.1\r\n\r\n"])
    net.tcp_session(client, server, 50005, 443, client=[app.tls_client_hello("cut.example")[:60]])
    result = run(net, Tls)
    assert rows(result) == set() and manifest(result, "tls").status == "completed"


def test_host_names_filter():
    assert host_names(["a.example.", "*.example", "a.example", "Fake Certificate", "", "B"]) == \
        ["a.example", "B"]


def test_discord(run, rows, captures):
    # frame 3: ClientHello for discord.com; frames 4-5: ServerHello then the Certificate
    # (leaf CN sni.cloudflaressl.com, SANs discord.com, sni.cloudflaressl.com,
    # *.discord.com), which begins in frame 4: the server's head starts there
    assert rows(run(captures / "discord.pcap", Tls)) == {
        ("10.0.2.15", "tls-sni", "discord.com", "tls", 3, 3, 1),
        ("162.159.128.233", "hostname-claim", "sni.cloudflaressl.com", "tls-certificate", 4, 4, 1),
        ("162.159.128.233", "hostname-claim", "discord.com", "tls-certificate", 4, 4, 1)}


def test_signal(run, rows, captures):
    # Checked in Wireshark: ClientHellos of 192.168.2.17 (frames 11/182 itunes.apple.com,
    # 22/25/29/31/196/199/201/203/321 textsecure-service..., 376 cdn.signal.org); TLS 1.2
    # servers' heads starting with the ServerHello (frames 59/63/68/71, 228/233/238/240/323,
    # 378); 23.57.24.16 (itunes) shows no certificate
    assert rows(run(captures / "signal.pcap", Tls)) == {
        ("192.168.2.17", "tls-sni", "itunes.apple.com", "tls", 11, 182, 2),
        ("192.168.2.17", "tls-sni", "textsecure-service.whispersystems.org", "tls", 22, 321, 9),
        ("192.168.2.17", "tls-sni", "cdn.signal.org", "tls", 376, 376, 1),
        ("34.225.240.173", "hostname-claim", "textsecure-service.whispersystems.org",
         "tls-certificate", 59, 71, 4),
        ("34.225.240.173", "hostname-claim", "service.signal.org", "tls-certificate", 59, 71, 4),
        ("35.169.3.40", "hostname-claim", "textsecure-service.whispersystems.org",
         "tls-certificate", 228, 323, 5),
        ("35.169.3.40", "hostname-claim", "service.signal.org", "tls-certificate", 228, 323, 5),
        ("13.35.253.42", "hostname-claim", "cdn.signal.org", "tls-certificate", 378, 378, 1)}
