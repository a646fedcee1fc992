"""The bundled demo capture: a small office LAN, byte-identical on every build, whose truth
is known (`DEMO_TRUTH` for the LAN hosts, `DEMO_REMOTE_TRUTH` for internet servers, all
reached through the gateway, so their frames carry the router's MAC).

    python -m tracepcap.testing.demo OUT.pcap        # or OUT.pcapng

Addresses beyond the LAN come from the documentation ranges (RFC 5737) and names from
the reserved example domains (RFC 2606), so nothing here points at a real network.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from tracepcap.testing import app, tls
from tracepcap.testing.scenario import ANDROID_SYN, IOS_SYN, LINUX_SYN, MACOS_SYN, WINDOWS_SYN, Host, Scenario

START = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
DOMAIN = "corp.example"
BROADCAST, MDNS, LLMNR = "10.0.0.255", "224.0.0.251", "224.0.0.252"

#: The answer key: what each LAN host is, as a person who set up this office would say.
DEMO_TRUTH: dict[str, dict[str, str]] = {
    "10.0.0.1": {"device": "Router", "hostname": "gw.corp.example", "os": "Network OS",
                 "mac": "00:00:0c:9f:f0:01", "vendor": "Cisco"},
    "10.0.0.2": {"device": "DNS Server", "hostname": "ns1.corp.example", "os": "Linux",
                 "mac": "00:25:90:3a:11:02", "vendor": "Supermicro"},
    "10.0.0.3": {"device": "DHCP Server", "hostname": "dhcp1.corp.example", "os": "Linux",
                 "mac": "00:25:90:3a:11:03", "vendor": "Supermicro"},
    "10.0.0.10": {"device": "Web Server", "hostname": "intranet.corp.example", "os": "Linux",
                  "mac": "00:26:b9:5c:20:10", "vendor": "Dell"},
    "10.0.0.21": {"device": "Workstation", "hostname": "WS-ACCT-01", "os": "Windows",
                  "mac": "00:1b:21:4a:7e:21", "vendor": "Intel"},
    "10.0.0.22": {"device": "Workstation", "hostname": "WS-SALES-02", "os": "Windows",
                  "mac": "00:14:22:c3:5d:22", "vendor": "Dell"},
    "10.0.0.23": {"device": "Workstation", "hostname": "dev-linux-01", "os": "Linux",
                  "mac": "10:c5:95:e1:07:23", "vendor": "Lenovo"},
    "10.0.0.30": {"device": "Workstation", "hostname": "Alices-MacBook", "os": "macOS",
                  "mac": "a4:83:e7:2b:9c:30", "vendor": "Apple"},
    "10.0.0.31": {"device": "Mobile", "hostname": "Galaxy-S23", "os": "Android",
                  "mac": "00:12:47:8d:44:31", "vendor": "Samsung"},
    "10.0.0.32": {"device": "Mobile", "hostname": "Bobs-iPhone", "os": "iOS",
                  "mac": "f0:18:98:61:af:32", "vendor": "Apple"},
    "10.0.0.40": {"device": "Printer", "hostname": "HP-LaserJet-M404", "os": "Embedded",
                  "mac": "3c:d9:2b:70:15:40", "vendor": "HP"},
}

#: Internet servers the clients reach through the gateway: name (DNS answer, SNI and
#: certificate CN agree) and the TTL their packets show after the WAN hops.
DEMO_REMOTE_TRUTH: dict[str, dict[str, object]] = {
    "198.51.100.53": {"hostname": "resolver.example.net", "ttl": 57},
    "203.0.113.10": {"hostname": "www.example.com", "ttl": 52},
    "203.0.113.80": {"hostname": "cdn.example.org", "ttl": 50},
    "198.51.100.20": {"hostname": "updates.example.net", "ttl": 116},
    "198.51.100.7": {"hostname": "api.example.org", "ttl": 53},
    "198.51.100.90": {"hostname": "mirror.example.net", "ttl": 55},
}

UA = {  # what each client's browser (or tool) says in User-Agent
    "win": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/119.0.0.0 Safari/537.36 Edg/119.0.0.0",
    "linux": "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:119.0) Gecko/20100101 Firefox/119.0",
    "mac": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
           "(KHTML, like Gecko) Version/17.1 Safari/605.1.15",
    "android": "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 "
               "(KHTML, like Gecko) Chrome/119.0.6045.163 Mobile Safari/537.36",
    "ios": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
           "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "apt": "Debian APT-HTTP/1.3 (2.6.1)",
    "cups": "CUPS/2.3.4 (macOS 14.1.0; x86_64) IPP/2.0",
}

# DHCP client fingerprints: option 55 order and option 60 as these OSes send them
# (fingerbank.org entries; dhclient's default request list for Linux).
DHCP_PROFILE = {
    "10.0.0.21": ((1, 3, 6, 15, 31, 33, 43, 44, 46, 47, 119, 121, 249, 252), "MSFT 5.0"),
    "10.0.0.22": ((1, 3, 6, 15, 31, 33, 43, 44, 46, 47, 119, 121, 249, 252), "MSFT 5.0"),
    "10.0.0.23": ((1, 28, 2, 3, 15, 6, 119, 12, 44, 47, 26, 121, 42), None),
    "10.0.0.30": ((1, 121, 3, 6, 15, 108, 114, 119, 252, 95, 44, 46), None),
    "10.0.0.31": ((1, 3, 6, 15, 26, 28, 51, 58, 59, 43, 114), "android-dhcp-13"),
    "10.0.0.32": ((1, 121, 3, 6, 15, 108, 114, 119, 252), None),
    "10.0.0.40": ((1, 3, 6, 15, 44, 47, 12, 81, 69, 42, 7), "Hewlett-Packard JetDirect"),
}
SYN = {"Windows": WINDOWS_SYN, "Linux": LINUX_SYN, "macOS": MACOS_SYN, "iOS": IOS_SYN,
       "Android": ANDROID_SYN, "Embedded": LINUX_SYN, "Network OS": LINUX_SYN}
TTL = {"Windows": 128, "Network OS": 255}  # everything else starts at 64
NGINX = "nginx/1.24.0 (Ubuntu)"
HP_SERVER = "HP HTTP Server; HP LaserJet Pro M404dn - W1A53A; Serial Number: PHBQ123456"


def _ipp(code: int, attrs: list[tuple[int, str, str]], document: bytes = b"") -> bytes:
    """An IPP/2.0 message (RFC 8010 3.1): version, operation or status, request id 1,
    operation attributes (value-tag, name, value), end-of-attributes, then the document."""
    out = b"\x02\x00" + code.to_bytes(2, "big") + (1).to_bytes(4, "big") + b"\x01"
    for tag, name, value in attrs:
        out += bytes([tag]) + len(name).to_bytes(2, "big") + name.encode()
        out += len(value).to_bytes(2, "big") + value.encode()
    return out + b"\x03" + document


IPP_PRINT_JOB, IPP_CHARSET, IPP_LANGUAGE, IPP_URI, IPP_NAME = 0x0002, 0x47, 0x48, 0x45, 0x42
IPP_HEAD = [(IPP_CHARSET, "attributes-charset", "utf-8"),
            (IPP_LANGUAGE, "attributes-natural-language", "en")]


def _blob(label: str, size: int) -> bytes:
    """Deterministic bytes standing in for ciphertext."""
    return hashlib.shake_256(label.encode()).digest(size)


class _Office:
    """The demo's cast and the little stories they play, in capture order."""

    def __init__(self) -> None:
        self.net = Scenario(start=START)
        self.h = {ip: self.net.host(ip, t["mac"], ttl=TTL.get(t["os"], 64), syn=SYN[t["os"]])
                  for ip, t in DEMO_TRUTH.items()}
        gw = self.h["10.0.0.1"]
        self.remote = {ip: self.net.host(ip, via=gw, ttl=t["ttl"])
                       for ip, t in DEMO_REMOTE_TRUTH.items()}
        self.by_name = {t["hostname"]: ip for ip, t in DEMO_REMOTE_TRUTH.items()}
        self.qid, self.port = 0x2A00, 49700

    def ephemeral(self) -> int:
        self.port += 7
        return self.port

    def lookup(self, client: Host, name: str, qtype: str = "A", values: tuple = ()) -> None:
        """Client asks ns1; names outside corp.example are forwarded to the upstream
        resolver through the gateway first (ns1 is a forwarding resolver)."""
        ns, upstream = self.h["10.0.0.2"], self.remote["198.51.100.53"]
        if not values:
            values = (self.by_name[name],)
        answers = [(name, qtype, v, 300) for v in values]
        question, sport, local = (name, qtype), self.ephemeral(), name.endswith((DOMAIN, ".arpa"))
        self.qid += 2
        self.net.udp(client, ns, sport, 53, app.dns_query(self.qid, name, qtype))
        if not local:
            fwd = self.qid + 1
            self.net.udp(ns, upstream, 40053, 53, app.dns_query(fwd, name, qtype), delay=0.0001)
            self.net.udp(upstream, ns, 53, 40053, app.dns_response(fwd, question, answers),
                         delay=upstream.latency)
        reply = app.dns_response(self.qid, question, answers, aa=local)
        self.net.udp(ns, client, 53, sport, reply, delay=ns.latency)

    def https(self, client: Host, name: str, server: Host | None = None,
              chain: list[bytes] | None = None) -> None:
        server = server or self.remote[self.by_name[name]]
        chain = chain or [tls.certificate(name, [name], issuer_cn="Example Public CA R1",
                                          issuer_key_seed=tls.CA_KEY_SEED),
                          tls.ca_cert("Example Public CA R1")]
        self.net.tcp_session(client, server, self.ephemeral(), 443, client=[
            app.tls_client_hello(name, alpn=["h2", "http/1.1"]),
            tls.tls_application_data(_blob(f"req {name}", 420))],
            server=[tls.tls_server_flight(chain, alpn="h2"),
                    tls.tls_application_data(_blob(f"resp {name}", 5200))])
        self.net.advance(0.4)

    def http(self, client: Host, server: Host, host: str, path: str, ua: str, *,
             port: int = 80, server_header: str = NGINX, method: str = "GET",
             body: bytes = b"", content_type: str = "text/html",
             response_body: bytes | None = None) -> None:
        headers = [("Accept", "*/*")] + ([("Content-Type", content_type)] if body else [])
        request = app.http_request(method, path, host, ua, headers, body)
        response_body = _blob(path, 900) if response_body is None else response_body
        response = app.http_response(200, "OK", server_header, response_body, content_type)
        self.net.tcp_session(client, server, self.ephemeral(), port, client=[request],
                             server=[response])
        self.net.advance(0.3)

    def join(self, ip: str) -> Host:
        """A client's first minute: DHCP lease, ARP for the gateway, name announcements."""
        net, t, host = self.net, DEMO_TRUTH[ip], self.h[ip]
        params, vendor = DHCP_PROFILE[ip]
        fqdn = f"{t['hostname'].lower()}.{DOMAIN}" if t["os"] == "Windows" else None
        net.dhcp_exchange(host, self.h["10.0.0.3"], router="10.0.0.1", dns_servers=["10.0.0.2"],
                          domain=DOMAIN, hostname=t["hostname"], fqdn=fqdn,
                          param_list=params, vendor_class=vendor)
        net.advance(0.05)
        net.arp_exchange(host, self.h["10.0.0.1"])
        if t["os"] == "Windows":  # NetBIOS over TCP/IP registers the name and workgroup
            ident = 0x8000 + 2 * int(ip.rsplit(".", 1)[1])
            net.udp(host, BROADCAST, 137, 137, app.nbns_registration(ident, t["hostname"], ip))
            net.udp(host, BROADCAST, 137, 137, app.nbns_registration(ident + 1, "CORP", ip,
                                                                     group=True))
        if t["os"] in ("macOS", "iOS", "Linux", "Embedded"):  # mDNS: TTL 255, RFC 6762 11
            records = app.mdns_host_records(t["hostname"], ip)
            if ip == "10.0.0.40":
                records += app.mdns_service_records(
                    "HP LaserJet M404", "_ipp._tcp", t["hostname"], 631,
                    ["txtvers=1", "ty=HP LaserJet Pro M404dn", "rp=ipp/print",
                     "pdl=application/pdf,image/urf"])
            elif t["os"] in ("macOS", "iOS"):
                model = "MacBookPro18,1" if t["os"] == "macOS" else "iPhone15,2"
                records.append((f"{t['hostname']}._device-info._tcp.local", "TXT",
                                [f"model={model}"], 4500))
            net.udp(host, MDNS, 5353, 5353, app.mdns_announcement(records), ttl=255)
        net.advance(2.0)
        return host

    def play(self) -> Scenario:
        net, h, r = self.net, self.h, self.remote
        gw, ns, web, printer = h["10.0.0.1"], h["10.0.0.2"], h["10.0.0.10"], h["10.0.0.40"]
        win1, win2, lin, mac, droid, iphone = (h[ip] for ip in (
            "10.0.0.21", "10.0.0.22", "10.0.0.23", "10.0.0.30", "10.0.0.31", "10.0.0.32"))
        for server in (ns, h["10.0.0.3"], web):
            net.arp_exchange(server, gw)
        for ip in ("10.0.0.40", "10.0.0.21", "10.0.0.22", "10.0.0.23", "10.0.0.30",
                   "10.0.0.31", "10.0.0.32"):
            self.join(ip)
        net.ping(win1, gw, count=2)
        for client, addr in ((win1, "10.0.0.1"), (lin, "10.0.0.2"), (win2, "10.0.0.3"),
                             (lin, "10.0.0.10")):
            self.lookup(client, app.reverse_name(addr), "PTR", (DEMO_TRUTH[addr]["hostname"],))
        # Windows name resolution among peers: LLMNR (TTL 1 as Windows sends), then NBNS.
        net.udp(win1, LLMNR, 55102, 5355, app.llmnr_query(0x3C01, "WS-SALES-02"), ttl=1)
        net.udp(win2, win1, 5355, 55102, app.llmnr_response(0x3C01, "WS-SALES-02", win2.ip),
                delay=0.001)
        net.udp(win2, BROADCAST, 137, 137, app.nbns_query(0x9102, "WS-ACCT-01"))
        net.udp(win1, win2, 137, 137, app.nbns_query_response(0x9102, "WS-ACCT-01", win1.ip),
                delay=0.001)
        # The intranet: HTTP with every browser, HTTPS with a chain spanning segments.
        for client, ua in ((win1, "win"), (win2, "win"), (lin, "linux"), (mac, "mac"),
                           (droid, "android"), (iphone, "ios")):
            self.lookup(client, "intranet.corp.example", values=(web.ip,))
            self.http(client, web, "intranet.corp.example", "/", UA[ua])
        org = "Corp Example"
        intranet_chain = [
            tls.certificate("intranet.corp.example", [f"{n}.{DOMAIN}" for n in (
                "intranet", "www.intranet", "wiki", "git", "tickets")], organization=org,
                issuer_cn="Corp Issuing CA 1", issuer_key_seed=tls.CA_KEY_SEED,
                serial=0x1A2B3C4D5E6F, pki_url="http://pki.corp.example/issuing1"),
            tls.ca_cert("Corp Issuing CA 1", org, issuer_cn="Corp Root CA",
                        issuer_key_seed=tls.ROOT_KEY_SEED, pki_url="http://pki.corp.example"),
            tls.ca_cert("Corp Root CA", org, key_seed=tls.ROOT_KEY_SEED)]
        for client in (win1, mac):
            self.https(client, "intranet.corp.example", web, intranet_chain)
        # The internet, through the gateway.
        for client, name in ((win1, "www.example.com"), (win2, "updates.example.net"),
                             (lin, "api.example.org"), (mac, "www.example.com"),
                             (mac, "cdn.example.org"), (droid, "cdn.example.org"),
                             (iphone, "www.example.com"), (droid, "api.example.org")):
            self.lookup(client, name)
            self.https(client, name)
        for server in (ns, h["10.0.0.3"]):  # the servers update their packages over HTTP
            self.lookup(server, "mirror.example.net")
            self.http(server, r["198.51.100.90"], "mirror.example.net",
                      "/ubuntu/dists/noble/InRelease", UA["apt"], server_header="Apache")
        # An SSH session from the Mac to the Linux workstation: banners both ways.
        net.tcp_session(mac, lin, self.ephemeral(), 22, client=[
            app.ssh_banner("OpenSSH_9.4"), _blob("kexinit c", 1392), _blob("ssh c", 96)],
            server=[app.ssh_banner("OpenSSH_9.6p1", "Ubuntu-3ubuntu13"),
                    _blob("kexinit s", 1080), _blob("ssh s", 512)])
        # Printing: raw 9100 from Windows, IPP over HTTP from the Mac, LPD from Linux.
        pjl = b"\x1b%-12345X@PJL JOB NAME=\"Q3 report\"\r\n@PJL ENTER LANGUAGE=PDF\r\n"
        net.tcp_session(win2, printer, self.ephemeral(), 9100,
                        client=[pjl + _blob("pdf", 3000)],
                        server=[b"@PJL USTATUS JOB\r\nSTART\r\nNAME=\"Q3 report\"\r\n\x0c"])
        self.http(mac, printer, "HP-LaserJet-M404.local:631", "/ipp/print", UA["cups"],
                  port=631, server_header=HP_SERVER, method="POST", content_type="application/ipp",
                  body=_ipp(IPP_PRINT_JOB, IPP_HEAD + [
                      (IPP_URI, "printer-uri", "ipp://HP-LaserJet-M404.local:631/ipp/print"),
                      (IPP_NAME, "requesting-user-name", "alice")], _blob("urf", 600)),
                  response_body=_ipp(0x0000, IPP_HEAD))
        net.tcp_session(lin, printer, self.ephemeral(), 515, client=[b"\x02lp\n",
                                                                     _blob("lpd", 800)],
                        server=[b"\x00", b"\x00"])
        net.tcp_session(lin, printer, self.ephemeral(), 22, rst_instead_of_synack=True)
        net.ping(lin, gw)
        return net


def build_demo_office(path: Path, *, fmt: str = "pcap") -> Path:
    """Write the demo office capture to `path` as "pcap" or "pcapng"; returns the path."""
    net = _Office().play()
    if fmt == "pcapng":
        return net.write_pcapng(path)
    if fmt == "pcap":
        return net.write_pcap(path)
    raise ValueError(f"demo capture format must be 'pcap' or 'pcapng' (got {fmt!r})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write TracePcap's demo office capture.")
    parser.add_argument("out", type=Path, help="output file (.pcap or .pcapng)")
    parser.add_argument("--format", choices=("pcap", "pcapng"), default=None,
                        help="default: from the file suffix, else pcap")
    args = parser.parse_args(argv)
    fmt = args.format or ("pcapng" if args.out.suffix == ".pcapng" else "pcap")
    print(build_demo_office(args.out, fmt=fmt))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
