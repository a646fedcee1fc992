"""The measured and inferred basics on a synthetic LAN with known truth: mac, oui-vendor, ttl,
served, initiated, tcp-syn-signature, and conversations with a measured initiator."""

from __future__ import annotations

from tracepcap.extract.extractors.link_identity import LOCALLY_ADMINISTERED, LinkIdentity
from tracepcap.extract.extractors.services import Services
from tracepcap.extract.extractors.tcp_signature import TcpSignature
from tracepcap.extract.extractors.ttl import Ttl
from tracepcap.extract.pipeline import extract
from tracepcap.testing import app
from tracepcap.testing.scenario import LINUX_SYN, WINDOWS_SYN, Scenario


def lan():
    net = Scenario()
    router = net.host("10.0.0.1", "00:00:0c:9f:f0:01", ttl=255)
    pc = net.host("10.0.0.21", "00:1b:21:4a:7e:21", ttl=128, syn=WINDOWS_SYN)
    web = net.host("10.0.0.10", "00:26:b9:5c:20:10", syn=LINUX_SYN)
    vm = net.host("10.0.0.50", "02:42:ac:11:00:02")
    remote = net.host("203.0.113.10", via=router, ttl=52)
    return net, router, pc, web, vm, remote


def test_basics(run, rows):
    net, router, pc, web, vm, remote = lan()
    net.tcp_session(pc, web, 49152, 80, client=[app.http_request("GET", "/", "intranet")],
                    server=[app.http_response(server="nginx")])  # frames 1-3 handshake
    net.udp(pc, web, 53001, 53, b"\x00\x01" + bytes(10))
    net.udp(web, pc, 53, 53001, b"\x00\x01\x80" + bytes(9))
    net.udp(vm, "10.0.0.255", 138, 138, b"broadcast")  # broadcast: no TTL fact, no host
    net.tcp_session(pc, remote, 49153, 443, client=[b"x"], server=[b"y"])
    net.tcp_session(pc, web, 49154, 8443, rst_instead_of_synack=True)  # closed port
    result = run(net, LinkIdentity, Ttl, Services, TcpSignature)
    facts = rows(result)
    by_kind = lambda kind: {(e, v) for e, k, v, *_ in facts if k == kind}  # noqa: E731
    assert by_kind("mac") == {("10.0.0.21", "00:1b:21:4a:7e:21"), ("10.0.0.10", "00:26:b9:5c:20:10"),
                              ("10.0.0.50", "02:42:ac:11:00:02"), ("203.0.113.10", "00:00:0c:9f:f0:01")}
    assert by_kind("oui-vendor") == {("10.0.0.21", "Intel Corporate"), ("10.0.0.10", "Dell Inc."),
                                     ("10.0.0.50", LOCALLY_ADMINISTERED),
                                     ("203.0.113.10", "Cisco Systems, Inc")}
    assert by_kind("ttl") == {("10.0.0.21", "128"), ("10.0.0.10", "64"), ("203.0.113.10", "52")}
    assert by_kind("served") == {("10.0.0.10", "tcp/80"), ("10.0.0.10", "udp/53"),
                                 ("203.0.113.10", "tcp/443")}  # a RST is not serving 8443
    assert by_kind("initiated") == {("10.0.0.21", "tcp/80"), ("10.0.0.21", "udp/53"),
                                    ("10.0.0.21", "tcp/443"), ("10.0.0.21", "tcp/8443")}
    assert by_kind("tcp-syn-signature") == {("10.0.0.21", "64240:1460:8:mss,nop,ws,nop,nop,sok")}
    # the servers' answers: their SYN+ACKs (the RST on 8443 is none)
    assert by_kind("tcp-synack-signature") == {("10.0.0.10", "64240:1460:7:mss,sok,nop,ws,eol"),
                                               ("203.0.113.10", "64240:1460:7:mss,sok,nop,ws,eol")}
    served = next(f for f in facts if f[1] == "served" and f[2] == "tcp/80")
    assert served[4] == 2  # the SYN-ACK is frame 2
    assert result.hosts == ["10.0.0.10", "10.0.0.21", "10.0.0.50", "203.0.113.10"]


def test_conversations_name_the_initiator_only_when_measured(tmp_path):
    net, router, pc, web, vm, remote = lan()
    net.tcp_session(pc, web, 49152, 80, client=[b"GET"], server=[b"OK"])
    net.tcp_session(web, pc, 22, 50000, client=[b"mid-stream"], server=[b"ack"], handshake=False)
    conversations = []
    extract(net.write_pcap(tmp_path / "c.pcap"), "cap", on_conversation=conversations.append)
    tcp = {(c["src"], c["sport"], c["dst"], c["dport"]): c for c in conversations}
    handshake = tcp[("10.0.0.21", 49152, "10.0.0.10", 80)]
    assert handshake["initiator"] == "10.0.0.21" and handshake["packets_fwd"] > 0 and handshake["packets_rev"] > 0
    midstream = tcp[("10.0.0.10", 22, "10.0.0.21", 50000)]  # first sender, not a guessed client
    assert midstream["initiator"] is None
