"""Name-service facts: DNS queries and answers, mDNS and LLMNR claims."""

from __future__ import annotations

from tracepcap.extract.extractors.dns import Dns
from tracepcap.testing import app
from tracepcap.testing.names import dns_message
from tracepcap.testing.scenario import Scenario

# dns_demo.pcap, checked by hand frame by frame in Wireshark: queries from 192.168.1.20-22
# to 192.168.1.1 and 192.168.1.53, their answers (frame 4: a CNAME to example.com, whose A
# record names 93.184.216.34; frames 22 and 24: PTR answers; 32, 34, 46: no answer).
DNS_DEMO = {
    # who sent the answers (tshark: udp.srcport == 53 from 192.168.1.1 x17, 192.168.1.53 x6)
    ("192.168.1.1", "dns-answer-mac", "52:54:00:aa:00:01", "dns", 2, 34, 17),
    ("192.168.1.53", "dns-answer-mac", "52:54:00:aa:00:01", "dns", 36, 46, 6),
    ("104.16.132.229", "hostname-claim", "cloudflare.com", "dns-a", 12, 12, 1),
    ("104.16.133.229", "hostname-claim", "cloudflare.com", "dns-a", 12, 12, 1),
    ("140.82.121.3", "hostname-claim", "github.com", "dns-a", 10, 10, 1),
    ("142.250.190.78", "hostname-claim", "google.com", "dns-a", 6, 30, 4),
    ("192.168.1.10", "hostname-claim", "dc1.corp.local", "dns-a", 38, 38, 1),
    ("192.168.1.15", "hostname-claim", "fileserver.corp.local", "dns-a", 40, 40, 1),
    ("192.168.1.30", "hostname-claim", "printer.corp.local", "dns-a", 42, 42, 1),
    ("192.168.1.40", "hostname-claim", "intranet.corp.local", "dns-a", 44, 44, 1),
    ("198.35.26.96", "hostname-claim", "wikipedia.org", "dns-a", 16, 16, 1),
    ("2606:4700::6810:84e5", "hostname-claim", "cloudflare.com", "dns-a", 14, 14, 1),
    ("2607:f8b0:4005:80a::200e", "hostname-claim", "google.com", "dns-a", 8, 8, 1),
    ("8.8.8.8", "hostname-claim", "dns.google", "dns-ptr", 24, 24, 1),
    ("93.184.216.34", "hostname-claim", "example.com", "dns-a", 2, 4, 2),
    ("93.184.216.34", "hostname-claim", "example.com", "dns-ptr", 22, 22, 1),
    # frame 4: www.example.com reached 93.184.216.34 through its CNAME example.com
    ("93.184.216.34", "resolved-from", "www.example.com", "dns", 4, 4, 1),
    ("192.168.1.20", "dns-query", "_ldap._tcp.corp.local", "dns", 35, 35, 1),
    ("192.168.1.20", "dns-query", "cloudflare.com", "dns", 13, 13, 1),
    ("192.168.1.20", "dns-query", "example.com", "dns", 1, 19, 2),
    ("192.168.1.20", "dns-query", "google.com", "dns", 25, 29, 3),
    ("192.168.1.20", "dns-query", "printer.corp.local", "dns", 41, 41, 1),
    ("192.168.1.20", "dns-query", "www.example.com", "dns", 3, 3, 1),
    ("192.168.1.21", "dns-query", "34.216.184.93.in-addr.arpa", "dns", 21, 21, 1),
    ("192.168.1.21", "dns-query", "dc1.corp.local", "dns", 37, 37, 1),
    ("192.168.1.21", "dns-query", "github.com", "dns", 33, 33, 1),
    ("192.168.1.21", "dns-query", "google.com", "dns", 5, 7, 2),
    ("192.168.1.21", "dns-query", "intranet.corp.local", "dns", 43, 43, 1),
    ("192.168.1.21", "dns-query", "wikipedia.org", "dns", 15, 15, 1),
    ("192.168.1.22", "dns-query", "8.8.8.8.in-addr.arpa", "dns", 23, 23, 1),
    ("192.168.1.22", "dns-query", "cloudflare.com", "dns", 11, 11, 1),
    ("192.168.1.22", "dns-query", "example.com", "dns", 17, 17, 1),
    ("192.168.1.22", "dns-query", "exmaple.com", "dns", 31, 31, 1),
    ("192.168.1.22", "dns-query", "fileserver.corp.local", "dns", 39, 39, 1),
    ("192.168.1.22", "dns-query", "github.com", "dns", 9, 9, 1),
    ("192.168.1.22", "dns-query", "oldhost.corp.local", "dns", 45, 45, 1),
}


def test_dns_demo(run, rows, manifest, captures):
    result = run(captures / "dns_demo.pcap", Dns)
    assert rows(result) == DNS_DEMO
    assert manifest(result, "dns").status == "completed"


def test_demo_all_rules_mdns(run, rows, captures):
    # Checked in Wireshark: mDNS responses' A/AAAA records, counted per packet: an iPad
    # (40 responses from 192.168.1.75 and fe80::4ba:91a:7817:e318, first frame 29), an
    # iMac (10, first 11), a Sonos speaker (7, A record in the additional section).
    result = run(captures / "demo_all_rules.pcap", Dns)
    assert {r for r in rows(result, "hostname-claim") if r[3] == "mdns"} == {
        ("192.168.1.75", "hostname-claim", "Gabrieles-iPad.local", "mdns", 29, 1566, 40),
        ("fe80::4ba:91a:7817:e318", "hostname-claim", "Gabrieles-iPad.local", "mdns", 29, 1566, 40),
        ("192.168.1.77", "hostname-claim", "Lucas-iMac.local", "mdns", 11, 1512, 10),
        ("192.168.1.69", "hostname-claim", "sonos7828CA05FACC.local", "mdns", 4, 1564, 7),
    }
    # frame 1378: telemetry.dropbox.com CNAME telemetry.v.dropbox.com A 162.125.19.9;
    # frames 390, 708: a filtering resolver answers ad hosts with 192.168.1.157 (hosts lie)
    assert {r for r in rows(result, "hostname-claim") if r[3] == "dns-a"} >= {
        ("162.125.19.9", "hostname-claim", "telemetry.v.dropbox.com", "dns-a", 1378, 1378, 1),
        ("192.168.1.157", "hostname-claim", "pixel.wp.com", "dns-a", 708, 708, 1),
        ("1.2.3.4", "hostname-claim", "example.com", "dns-a", 1589, 1589, 1)}


def hosts():
    net = Scenario()
    return (net, net.host("10.0.0.5", "00:1b:21:00:00:05"),
            net.host("10.0.0.6", "00:1b:21:00:00:06"), net.host("10.0.0.1", "00:00:0c:00:00:01"))


def test_llmnr_answer_names_the_answered_address(run, rows):
    net, asker, owner, _ = hosts()
    net.udp(asker, "224.0.0.252", 50001, 5355, app.llmnr_query(7, "FILESRV"))  # frame 1
    net.udp(owner, asker, 5355, 50001, app.llmnr_response(7, "FILESRV", "10.0.0.6"))  # 2
    assert rows(run(net, Dns)) == {("10.0.0.6", "hostname-claim", "FILESRV", "llmnr", 2, 2, 1)}


def test_mdns_announcement_answers_and_additional(run, rows):
    net, _, owner, _ = hosts()
    records = app.mdns_host_records("Office-Printer", "10.0.0.6")
    extra = [("Office-Printer.local", "AAAA", "fe80::1:2", 120)]
    net.udp(owner, "224.0.0.251", 5353, 5353, app.mdns_announcement(records, extra))  # 1
    net.udp(owner, "224.0.0.251", 5353, 5353, app.mdns_query("_ipp._tcp.local"))  # 2
    # a query listing a known answer (RFC 6762 7.1) claims nothing: it is not a response
    known = dns_message(0, 0, [("x.local", "A")], [("Other.local", "A", "10.0.0.9", 120)])
    net.udp(owner, "224.0.0.251", 5353, 5353, known)
    assert rows(run(net, Dns)) == {
        ("10.0.0.6", "hostname-claim", "Office-Printer.local", "mdns", 1, 1, 1),
        ("fe80::1:2", "hostname-claim", "Office-Printer.local", "mdns", 1, 1, 1)}


def test_ipv6_ptr_and_sinkhole(run, rows):
    net, client, _, resolver = hosts()
    net.dns_lookup(client, resolver, app.reverse_name("2001:db8::53"), ["ns1.example."], "PTR")
    net.dns_lookup(client, resolver, "blocked.example", ["0.0.0.0"])  # frames 3, 4
    assert rows(run(net, Dns), "hostname-claim") == {
        ("2001:db8::53", "hostname-claim", "ns1.example", "dns-ptr", 2, 2, 1)}


def test_queries_are_lower_cased(run, rows):
    net, client, _, resolver = hosts()
    net.udp(client, resolver, 40000, 53, app.dns_query(1, "WWW.Example.COM"))
    assert rows(run(net, Dns)) == {("10.0.0.5", "dns-query", "www.example.com", "dns", 1, 1, 1)}


def test_answer_names_keep_their_case(run, rows):
    net, client, _, resolver = hosts()
    net.dns_lookup(client, resolver, "Intranet.Corp.Example", ["10.0.0.80"])
    claim = ("10.0.0.80", "hostname-claim", "Intranet.Corp.Example", "dns-a", 2, 2, 1)
    assert claim in rows(run(net, Dns))


def test_udp53_that_is_not_dns_is_ignored(run, rows, manifest):
    net, client, _, resolver = hosts()
    net.udp(client, resolver, 40000, 53, b"\x00\x01hi")  # shorter than a header
    net.udp(client, resolver, 40000, 53, b"\x12\x34\x78\x00" + b"\x00" * 20)  # opcode 15
    result = run(net, Dns)
    assert rows(result) == set() and manifest(result, "dns").status == "completed"


def test_broken_dns_is_recorded_not_hidden(run, manifest):
    net, client, _, resolver = hosts()
    header = b"\x00\x01\x81\x80\x00\x01\x00\x00\x00\x00\x00\x00"  # a response, one question
    net.udp(resolver, client, 53, 40000, header + b"\xc0\x0c")  # whose name points at itself
    result = run(net, Dns)
    row = manifest(result, "dns")
    assert (row.status, row.error) == ("completed", "1 notice (dns-malformed 1)")
    assert [(n.kind, n.frame) for n in result.notices] == [("dns-malformed", 1)]
    assert result.notices[0].text == "dns-name: malformed, pointer at 12 to 12 does not point back"



def test_device_info_model(run, rows, captures):
    # demo_all_rules.pcap: Luca's iMac (192.168.1.77) answers with a "Luca’s
    # iMac._device-info._tcp.local" TXT record holding model=iMac11,3 in 10 responses
    # (tshark: dns.txt contains "model="), first frame 11, last 1512
    found = {r for r in rows(run(captures / "demo_all_rules.pcap", Dns), "mdns-service")
             if r[2].startswith("model=")}
    assert found == {("192.168.1.77", "mdns-service", "model=iMac11,3", "dns", 11, 1512, 10)}


def test_dns_over_tcp(run, rows, manifest):
    from tracepcap.testing.dns_update import dns_tcp
    net, client, _, resolver = hosts()
    questions = dns_tcp(app.dns_query(1, "a.example"), app.dns_query(2, "b.example"))  # one segment
    answers = dns_tcp(app.dns_response(1, "a.example", [("a.example", "A", "192.0.2.1", 60)]),
                      app.dns_response(2, "b.example", [("b.example", "AAAA", "2001:db8::b", 60)]))
    net.tcp_session(client, resolver, 41000, 53, client=[questions], server=[answers], segment=20)
    result = run(net, Dns)
    # frames 1-3 handshake, 4-6 the questions (58 bytes cut at 20: the second begins at byte
    # 29, in frame 5), 7 ACK, 8-10 the answers (the second begins at byte 45, in frame 10);
    # a message's witness is the frame it began in
    assert rows(result) == {
        ("10.0.0.5", "dns-query", "a.example", "dns", 4, 4, 1),
        ("10.0.0.5", "dns-query", "b.example", "dns", 5, 5, 1),
        ("192.0.2.1", "hostname-claim", "a.example", "dns-a", 8, 8, 1),
        ("2001:db8::b", "hostname-claim", "b.example", "dns-a", 10, 10, 1)}
    assert manifest(result, "dns").status == "completed"


def test_dns_over_tcp_is_read_past_the_stream_head_and_out_of_order(run, rows, manifest):
    from tracepcap.limits import Limits
    from tracepcap.testing.dns_update import dns_tcp
    net, client, _, resolver = hosts()
    answer = app.dns_response(1, "a.example", [("a.example", "A", "192.0.2.1", 60)] * 30)
    net.tcp_session(client, resolver, 41001, 53, client=[dns_tcp(app.dns_query(1, "a.example"))],
                    server=[dns_tcp(answer)], segment=100, reorder=True)
    result = run(net, Dns, limits=Limits(stream_head_bytes=64))
    # frame 6 is the answer's second segment, arriving first; frame 7 its first
    assert ("192.0.2.1", "hostname-claim", "a.example", "dns-a", 7, 7) in {r[:6] for r in rows(result)}
    assert manifest(result, "dns").status == "completed"


def test_dns_over_tcp_that_is_not_dns_stops_being_read(run, rows):
    from tracepcap.testing.dns_update import dns_tcp
    net, client, _, resolver = hosts()
    junk = b"\x00\x0e" + b"\x12\x34\x78\x00" + bytes(10)  # opcode 15: not DNS
    net.tcp_session(client, resolver, 41002, 53, client=[junk + dns_tcp(app.dns_query(1, "a.example"))])
    assert rows(run(net, Dns)) == set()


def test_dynamic_updates(run, rows):
    from tracepcap.testing.dns_update import dns_update
    net, client, owner, server = hosts()
    zone = "corp.example"
    net.udp(client, server, 50001, 53, dns_update(1, zone, adds=[("ws05.corp.example", "A", "10.0.0.5", 1200)],
                                                  deletes=[("ws05.corp.example", "A")]))  # 1: for itself
    net.udp(server, client, 53, 50001, dns_update(1, zone, response=True))  # 2: the answer
    net.udp(owner, server, 50002, 53, dns_update(2, "0.0.10.in-addr.arpa",
                                                 adds=[("6.0.0.10.in-addr.arpa", "PTR", "ws06.corp.example", 1200)]))
    net.udp(owner, server, 50003, 53, dns_update(3, zone, adds=[("ws99.corp.example", "A", "10.0.0.99", 1200)]))
    assert rows(run(net, Dns)) == {  # frame 4: a name for another's address is not a self-claim
        ("10.0.0.5", "hostname-claim", "ws05.corp.example", "dns-update", 1, 1, 1),
        ("10.0.0.6", "hostname-claim", "ws06.corp.example", "dns-update", 3, 3, 1)}


def test_zone_maintenance(run, rows):
    from tracepcap.testing import zones as z
    from tracepcap.testing.dns_update import dns_tcp
    net = Scenario()
    primary = net.host("10.0.0.53", "02:00:00:00:00:53")
    secondary = net.host("10.0.0.54", "02:00:00:00:00:54")
    zone = "corp.example"
    net.udp(primary, secondary, 40000, 53, z.notify(1, zone, serial=2024))  # 1
    net.udp(secondary, primary, 53, 40000, z.notify(1, zone, response=True))  # 2
    records = [(f"ws{n:03}.corp.example", "A", f"10.0.{n // 250}.{n % 250 + 1}", 3600) for n in range(400)]
    axfr = z.axfr_response(2, zone, 2024, records, per_message=150)  # 3 messages, ~17 KiB
    net.tcp_session(secondary, primary, 41000, 53, client=[dns_tcp(z.transfer_request(2, zone))],
                    server=[dns_tcp(*axfr)])
    deleted, added = [("old.corp.example", "A", "10.9.9.9", 60)], [("new.corp.example", "A", "10.9.9.10", 60)]
    net.udp(secondary, primary, 40001, 53, z.transfer_request(3, zone, have_serial=2024))
    net.udp(primary, secondary, 53, 40001, z.ixfr_response(3, zone, 2024, 2025, deleted, added))
    found = rows(run(net, Dns))
    zones = {(r[0], r[3]) for r in found if r[1] == "dns-zone"}
    assert zones == {("10.0.0.53", "dns-notify"), ("10.0.0.54", "dns-notify-ack"),
                     ("10.0.0.54", "dns-transfer-request"), ("10.0.0.53", "dns-transfer")}
    claims = {(r[0], r[2]) for r in found if r[3] == "dns-zone-transfer"}
    assert len(claims) == 401 and ("10.0.1.150", "ws399.corp.example") in claims
    assert ("10.9.9.10", "new.corp.example") in claims and ("10.9.9.9", "old.corp.example") not in claims


def test_tshark_reads_the_zone_transfer_the_same(tmp_path):
    import subprocess
    from tracepcap.testing import zones as z
    from tracepcap.testing.dns_update import dns_tcp
    net = Scenario()
    primary = net.host("10.0.0.53", "02:00:00:00:00:53")
    secondary = net.host("10.0.0.54", "02:00:00:00:00:54")
    records = [(f"ws{n:03}.corp.example", "A", f"10.0.{n // 250}.{n % 250 + 1}", 3600) for n in range(400)]
    net.tcp_session(secondary, primary, 41000, 53, client=[dns_tcp(z.transfer_request(2, "corp.example"))],
                    server=[dns_tcp(*z.axfr_response(2, "corp.example", 2024, records, per_message=150))])
    net.udp(primary, secondary, 40000, 53, z.notify(1, "corp.example", serial=2024))
    path = net.write_pcap(tmp_path / "zone.pcap")
    out = subprocess.run(["tshark", "-n", "-r", str(path), "-Y", "dns", "-T", "fields", "-e", "dns.flags.opcode",
                          "-e", "dns.qry.type", "-e", "dns.a"], capture_output=True, text=True, check=True).stdout
    lines = [line.split("\t") for line in out.splitlines()]
    addresses = {a for line in lines for a in line[2].split(",") if a}
    assert len(addresses) == 400 and "10.0.1.150" in addresses
    assert ["4", "6", ""] in lines  # the NOTIFY: opcode 4, SOA


def _segment(net, src, dst, sport, dport, seq, data):
    from tracepcap.testing import frames as f
    net._send(src, dst, f.PROTO_TCP, f.tcp(src.ip, dst.ip, sport, dport, seq, 1, "PA", data))


def test_dns_over_tcp_picked_up_inside_a_message_is_read_from_the_next_one(run, rows):
    """A resolver's long-lived TCP/53 connection in a capture that begins mid-stream (no SYN):
    its first captured segment is the tail of a message, so its first two bytes are no
    length; the next segment that starts a message is read, as Zeek reads it."""
    from tracepcap.testing.dns_update import dns_tcp
    net, client, _, resolver = hosts()
    earlier = dns_tcp(app.dns_query(7, "earlier.example"))
    query = dns_tcp(app.dns_query(8, "later.example"))
    answer = dns_tcp(app.dns_response(8, "later.example", [("later.example", "A", "192.0.2.8", 60)]))
    _segment(net, client, resolver, 41003, 53, 1000, earlier[9:])  # frame 1: a tail
    _segment(net, client, resolver, 41003, 53, 1000 + len(earlier) - 9, query)  # frame 2
    _segment(net, resolver, client, 53, 41003, 5000, answer)  # frame 3
    assert rows(run(net, Dns)) == {("10.0.0.5", "dns-query", "later.example", "dns", 2, 2, 1),
                                   ("192.0.2.8", "hostname-claim", "later.example", "dns-a", 3, 3, 1)}


def test_dns_over_tcp_is_read_again_after_lost_bytes(run, rows):
    """Bytes lost from the capture (a hole the waiting room gives up on) take the message
    boundary with them; a later segment that starts a message is read again."""
    from tracepcap.limits import Limits
    from tracepcap.testing.dns_update import dns_tcp
    net, client, _, resolver = hosts()
    first = dns_tcp(app.dns_query(1, "first.example"))
    lost = dns_tcp(app.dns_query(2, "lost.example"))
    after = dns_tcp(app.dns_query(3, "after.example"))
    at = 1000
    _segment(net, client, resolver, 41004, 53, at, first)  # frame 1
    at += len(first)
    # frame 2: the second half of a message whose first half was never captured
    _segment(net, client, resolver, 41004, 53, at + 10, lost[10:])
    at += len(lost)
    _segment(net, client, resolver, 41004, 53, at, after)  # frame 3
    found = rows(run(net, Dns, limits=Limits(tcp_waiting_bytes=8)))
    assert found == {("10.0.0.5", "dns-query", "first.example", "dns", 1, 1, 1),
                     ("10.0.0.5", "dns-query", "after.example", "dns", 3, 3, 1)}


def test_a_name_resolved_through_cnames_lands_on_the_address(run, rows):
    net = Scenario()
    client = net.host("10.0.0.5", "00:1b:21:00:00:05")
    resolver = net.host("10.0.0.1", "00:1b:21:00:00:01")
    net.udp(client, resolver, 53000, 53, app.dns_query(7, "API.Cloud.example"))
    net.udp(resolver, client, 53, 53000, app.dns_response(7, "API.Cloud.example", [
        ("elb-1.cdn.example", "A", "192.0.2.7", 60),  # the chain's records in any order
        ("api.cloud.example", "CNAME", "edge.cloud.example", 60),
        ("edge.cloud.example", "CNAME", "elb-1.cdn.example", 60),
        ("other.example", "A", "192.0.2.9", 60)]))  # not on the chain
    net.dns_lookup(client, resolver, "plain.example", ["192.0.2.8"])  # no CNAME: its claim says it
    found = {r[:3] for r in rows(run(net, Dns)) if r[1] == "resolved-from"}
    assert found == {("192.0.2.7", "resolved-from", "api.cloud.example")}
