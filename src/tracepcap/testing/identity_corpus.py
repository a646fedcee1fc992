"""The identity corpus: one capture with every identifying fact issue 12 asks for, each
in the shape a real device sends, for `benchmarks/tshark_crosscheck.py` and its tests:
Browser announcements, NBNS registrations, mDNS host and TXT records, SSDP searches and a
UPnP description, DHCPv4 (host name, vendor and user class, client id) and DHCPv6 (FQDN,
vendor class, IA_NA), DNS lookups, TLS SNI, HTTP Host and User-Agent, VPN handshakes and
cleartext logins of every protocol the credentials extractor reads.

    python -m tracepcap.testing.identity_corpus out.pcap
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

from tracepcap.testing import app, identity, snmp
from tracepcap.testing import windows as w
from tracepcap.testing.scenario import MACOS_SYN, WINDOWS_SYN, Scenario

MDNS, SSDP, BROADCAST = "224.0.0.251", "239.255.255.250", "10.0.0.255"


def build(path: Path) -> Path:
    net = Scenario(start=1_750_000_000.0)
    router = net.host("10.0.0.1", "00:00:0c:00:00:01", ttl=255)
    win = net.host("10.0.0.21", "00:15:5d:00:00:21", ttl=128, syn=WINDOWS_SYN)
    mac = net.host("10.0.0.22", "a4:83:e7:00:00:22", syn=MACOS_SYN)
    printer = net.host("10.0.0.30", "00:1b:a9:00:00:30")
    cast = net.host("10.0.0.31", "f4:f5:d8:00:00:31")
    speaker = net.host("10.0.0.40", "00:0e:58:00:00:40")
    pi = net.host("10.0.0.50", "b8:27:eb:3d:08:db")
    web = net.host("203.0.113.10", via=router, ttl=52)
    vpn = net.host("198.51.100.50", via=router, ttl=50)

    # names a host gives itself
    net.udp(win, BROADCAST, 138, 138, identity.browser_announcement("DESKTOP-21", win.ip))
    net.udp(win, BROADCAST, 137, 137, app.nbns_registration(0x21, "DESKTOP-21", win.ip))
    net.udp(mac, MDNS, 5353, 5353, app.mdns_announcement(
        app.mdns_host_records("Annas-iMac", mac.ip)
        + app.mdns_service_records("Anna's iMac", "_device-info._tcp", "Annas-iMac", 0,
                                   ["model=iMac20,1", "osxvers=21"])))
    net.udp(printer, MDNS, 5353, 5353, app.mdns_announcement(
        app.mdns_host_records("npi30", printer.ip)
        + app.mdns_service_records("Office", "_ipp._tcp", "npi30", 631,
                                   ["txtvers=1", "ty=HP LaserJet 400 M401dne",
                                    "product=(HP LaserJet 400 M401dne)"])))
    net.udp(cast, MDNS, 5353, 5353, app.mdns_announcement(
        app.mdns_service_records("Chromecast-31", "_googlecast._tcp", "cast31", 8009,
                                 ["md=Chromecast Ultra", "fn=Living Room TV"])))
    # UPnP
    net.udp(mac, SSDP, 50000, 1900, identity.ssdp_search(
        "urn:dial-multiscreen-org:service:dial:1", "Google Chrome/120.0.6099.71 Mac OS X"))
    net.tcp_session(mac, speaker, 50001, 1400, client=[
        app.http_request("GET", "/xml/device_description.xml", "10.0.0.40:1400")],
        server=[app.http_response(body=identity.upnp_description(
            "Kitchen", "Sonos, Inc.", "Sonos One", "S18"), content_type="text/xml")])
    # DHCP
    net.dhcp_exchange("b8:27:eb:3d:08:db", router, pi.ip, hostname="pi3",
                      vendor_class="dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835",
                      client_id=False, extra_options=[
                          (61, bytes.fromhex("ff8f9aaebd000100011fcb3eceb827eb3d08db"))])
    net.dhcp_exchange("00:15:5d:00:00:21", router, win.ip, hostname="DESKTOP-21",
                      vendor_class="MSFT 5.0", extra_options=[(77, b"corp-laptops")])
    win6 = net.host("fe80::215:5dff:fe00:21", win.mac, ttl=128)
    router6 = net.host("fe80::1", router.mac, ttl=255)
    for kind in (app.DHCP6_SOLICIT, app.DHCP6_REQUEST):
        net.udp(win6, "ff02::1:2", 546, 547, app.dhcpv6(
            kind, 0x2121, win.mac, fqdn="DESKTOP-21.corp.example", vendor_class="MSFT 5.0", iaid=21))
    net.udp(router6, win6, 547, 546, app.dhcpv6(app.DHCP6_REPLY, 0x2121, win.mac, iaid=21,
                                                address="2001:db8::21",
                                                server_duid=app.duid_ll(router.mac)))
    # what clients ask for
    net.dns_lookup(win, router, "login.microsoftonline.com", ["20.190.160.1"])
    net.dns_lookup(mac, router, "gateway.icloud.com", ["17.248.1.1"])
    net.tcp_session(win, web, 50010, 443, client=[app.tls_client_hello("www.example.com")],
                    server=[app.tls_server_hello()])
    net.tcp_session(win, web, 50011, 80, client=[app.http_request(
        "GET", "/", "www.example.com", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Edge/120")],
        server=[app.http_response(server="nginx/1.24.0")])
    # VPNs
    net.udp(mac, vpn, 40000, 51820, identity.wireguard_initiation(0x2222))
    net.udp(vpn, mac, 51820, 40000, identity.wireguard_response(0x5050, 0x2222))
    net.udp(pi, vpn, 40001, 1194, identity.openvpn_hard_reset_client(0x5050505050505050))
    net.udp(win, vpn, 500, 500, identity.ike_sa_init(0x2121212121212121))
    net.ip(win, vpn, 50, identity.esp(0x00002121, 1))
    net.udp(pi, vpn, 1701, 1701, identity.l2tp_sccrq("pi3"))
    # cleartext logins
    plain = base64.b64encode(b"\x00anna\x00Secret-1").decode()
    net.tcp_session(pi, router, 50020, 21, client=[b"USER pi\r\n", b"PASS Secret-1\r\n"],
                    server=[b"220 ftp\r\n", b"331 password\r\n", b"230 ok\r\n"])
    net.tcp_session(mac, router, 50021, 110, client=[b"USER anna\r\n", b"PASS Secret-1\r\n"],
                    server=[b"+OK\r\n", b"+OK\r\n", b"+OK\r\n"])
    net.tcp_session(mac, router, 50022, 143, client=[b"a1 LOGIN anna Secret-1\r\n"],
                    server=[b"* OK\r\n", b"a1 OK\r\n"])
    net.tcp_session(mac, router, 50023, 587, client=[b"EHLO imac\r\n", f"AUTH PLAIN {plain}\r\n".encode()],
                    server=[b"220 mx\r\n", b"250 ok\r\n", b"235 ok\r\n"])
    net.tcp_session(win, router, 50024, 80, client=[app.http_request(
        "GET", "/admin", "10.0.0.1", "curl/8.4.0",
        headers=[("Authorization", "Basic " + base64.b64encode(b"admin:Secret-1").decode())])],
        server=[app.http_response(server="lighttpd/1.4")])
    net.tcp_session(pi, router, 50025, 23, client=[b"\xff\xfb\x18root\r\n", b"Secret-1\r\n"],
                    server=[b"login: ", b"Password: "])
    net.udp(pi, router, 50026, 161, snmp.get_request(1, ["1.3.6.1.2.1.1.5.0"], community="Secret-1"))
    net.tcp_session(win, router, 50027, 445, client=[
        w.smb2_session_setup(w.spnego(w.ntlm_authenticate("anna", "CORP", "DESKTOP-21")))])
    return net.write_pcap(path)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tracepcap.testing.identity_corpus OUT.pcap", file=sys.stderr)
        return 2
    print(build(Path(args[0])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
