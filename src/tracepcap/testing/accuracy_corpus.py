"""The labelled accuracy corpus: one capture of N devices drawn from device profiles, each
sending what such a device really sends, with the truth the capture was built from, for
`benchmarks/accuracy_bench.py`.

    truth = build(path, hosts=300, seed=1)   # {ip: Truth(device_type, os_family, hostname)}

Every profile has an evidence level: "full" (what the device says on a busy day), "dhcp"
(only its DHCP lease) or "quiet" (one DNS lookup and the connection it was made for, an
HTTPS handshake or an NTP query: its TTL, MAC and TCP stack, and nothing that names it).
Each name resolves to a server of its own beyond the router, as on a real network.
A quiet device's truth still counts; Unknown is the honest answer there. Labels use the
vocabularies of the host-identity and os-family questions; `os_family=None` means the family
is a matter of taste (an access point's vendor firmware), so the benchmark does not score it.
Deterministic for a given (hosts, seed).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tracepcap.testing import app, identity
from tracepcap.testing.discovery import gratuitous_arp, lldp_frame
from tracepcap.testing.scenario import IOS_SYN, LINUX_SYN, MACOS_SYN, WINDOWS_SYN, Host, Scenario, SynSignature

MDNS, SSDP, BROADCAST = "224.0.0.251", "239.255.255.250", "10.20.3.255"
SUBNET_MASK = "255.255.252.0"  # 10.20.0.0/22: room for a thousand devices
ROUTER_IP = "10.20.0.1"
ADMIN_IP = "10.20.0.2"  # a Linux admin box that uses the services devices answer
EVIDENCE = ("full", "full", "full", "dhcp", "quiet")  # three in five say all they would

# Option 55 lists as each OS's DHCP client writes them (fingerbank / observed captures).
WINDOWS_PRL = (1, 3, 6, 15, 31, 33, 43, 44, 46, 47, 119, 121, 249, 252)
APPLE_PRL = (1, 121, 3, 6, 15, 108, 114, 119, 252, 95, 44, 46)
ANDROID_PRL = (1, 3, 6, 15, 26, 28, 51, 58, 59, 43, 114, 108)
LINUX_PRL = (1, 28, 2, 3, 15, 6, 119, 12, 44, 47, 26, 121, 42)
EMBEDDED_PRL = (1, 3, 6, 12, 15, 28, 42)
NTP_CLIENT = bytes([0x23]) + bytes(47)  # NTPv4, mode 3 (client)
NTP_SERVER = bytes([0x24, 2]) + bytes(46)  # NTPv4, mode 4 (server), stratum 2


@dataclass(frozen=True)
class Truth:
    """What the device is, in the questions' vocabularies; hostname None: it names itself
    nowhere in the capture, so Unknown is right."""

    device_type: str
    os_family: str | None
    hostname: str | None


@dataclass(frozen=True)
class Device:
    """One device about to be written: its host on the segment and the draw's random source."""

    host: Host
    rng: random.Random
    evidence: str
    index: int


class _Net:
    """The segment every profile writes into: a router that leases, resolves and forwards."""

    def __init__(self, seed: int) -> None:
        self.scenario = Scenario(start=1_760_000_000.0 + seed)
        self.router = self.scenario.host(ROUTER_IP, "00:00:0c:9f:f0:01", ttl=255)
        self.admin = self.scenario.host(ADMIN_IP, "f0:d5:bf:0a:d0:02", ttl=64, syn=LINUX_SYN)
        self._remote: dict[str, Host] = {}
        self.web = self.remote("www.example.com")
        self._port = 49152

    def remote(self, name: str) -> Host:
        """The server beyond the router that `name` resolves to, one per name."""
        if name not in self._remote:
            n = len(self._remote)
            self._remote[name] = self.scenario.host(f"203.0.{113 + n // 200}.{80 + n % 200}",
                                                    via=self.router, ttl=52)
        return self._remote[name]

    def port(self) -> int:
        self._port = 49152 + (self._port - 49151) % 16000
        return self._port

    def lease(self, d: Device, **options) -> None:
        self.scenario.dhcp_exchange(d.host, self.router, d.host.ip, router=ROUTER_IP,
                                    dns_servers=[ROUTER_IP], subnet_mask=SUBNET_MASK,
                                    **options)
        # Every stack announces the address it was leased (RFC 5227 2.3).
        self.scenario.emit(gratuitous_arp(d.host.mac, d.host.ip))

    def lookup(self, d: Device, name: str, then: str | None = "https") -> None:
        """A DNS lookup of `name`, then what it was for: an HTTPS handshake (its SYN and TLS
        ClientHello), an NTP query ("ntp") or nothing (None)."""
        server = self.remote(name)
        self.scenario.dns_lookup(d.host, self.router, name, [server.ip], sport=self.port())
        if then == "https":
            self.scenario.tcp_session(d.host, server, self.port(), 443,
                                      client=[app.tls_client_hello(name)],
                                      server=[app.tls_server_hello()])
        elif then == "ntp":
            self.scenario.udp(d.host, server, 123, 123, NTP_CLIENT)
            self.scenario.udp(server, d.host, 123, 123, NTP_SERVER)

    def browse(self, d: Device, user_agent: str) -> None:
        self.scenario.tcp_session(d.host, self.web, self.port(), 80, client=[
            app.http_request("GET", "/", "www.example.com", user_agent)],
            server=[app.http_response(server="nginx")])

    def mdns(self, d: Device, records) -> None:
        self.scenario.udp(d.host, MDNS, 5353, 5353, app.mdns_announcement(records))

    def served(self, d: Device, port: int, request: bytes, response: bytes) -> None:
        """The admin box uses a service the device answers on `port`."""
        self.scenario.tcp_session(self.admin, d.host, self.port(), port, client=[request],
                                  server=[response])


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789ABCDEF") for _ in range(n))


def _random_mac(rng: random.Random) -> str:
    """A private (randomised) MAC: locally administered bit set, multicast bit clear."""
    first = (rng.randrange(256) | 0x02) & 0xFE
    return ":".join(f"{b:02x}" for b in [first] + [rng.randrange(256) for _ in range(5)])


def _mac(oui: str, rng: random.Random) -> str:
    return oui + ":" + ":".join(f"{rng.randrange(256):02x}" for _ in range(3))


NAMES = ("Anna", "Ben", "Chloe", "David", "Emma", "Felix", "Grace", "Hugo", "Iris", "Jonas",
         "Kate", "Liam", "Mia", "Noah", "Olivia", "Paul")


# --- profiles: (net, device) -> Truth; each also says which MAC and stack it has -----------
def windows_desktop(net: _Net, d: Device) -> Truth:
    rng = d.rng
    name = rng.choice(("DESKTOP-", "LAPTOP-")) + _hex(rng, 7)
    if d.evidence == "quiet":
        net.lookup(d, "www.msftconnecttest.com")
        return Truth("Workstation", "Windows", None)
    net.lease(d, hostname=name, vendor_class="MSFT 5.0", param_list=WINDOWS_PRL)
    if d.evidence == "full":
        net.scenario.udp(d.host, BROADCAST, 138, 138,
                         identity.browser_announcement(name, d.host.ip))
        net.scenario.udp(d.host, BROADCAST, 137, 137, app.nbns_registration(d.index, name, d.host.ip))
        net.browse(d, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
                      "(KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0")
    return Truth("Workstation", "Windows", name)


def windows_server(net: _Net, d: Device) -> Truth:
    name = f"SRV-{d.rng.choice(('FS', 'APP', 'SQL', 'DC'))}{d.index:02d}"
    if d.evidence == "quiet":
        net.lookup(d, "ctldl.windowsupdate.com")
        return Truth("Server", "Windows", None)
    net.scenario.udp(d.host, BROADCAST, 137, 137, app.nbns_registration(d.index, name, d.host.ip))
    net.served(d, 445, b"\x00\x00\x00\x10" + bytes(16), b"\x00\x00\x00\x10" + bytes(16))
    if d.evidence == "full":
        net.scenario.udp(d.host, BROADCAST, 138, 138, identity.browser_announcement(
            name, d.host.ip, server_type=identity.SV_SERVER | identity.SV_NT | 0x8000))
    return Truth("Server", "Windows", name)


def macos(net: _Net, d: Device) -> Truth:
    rng = d.rng
    name = f"{rng.choice(NAMES)}s-{rng.choice(('MacBook-Pro', 'MacBook-Air', 'iMac', 'Mac-mini'))}"
    if d.evidence == "quiet":
        net.lookup(d, "gateway.icloud.com")
        return Truth("Workstation", "macOS", None)
    net.lease(d, hostname=name, param_list=APPLE_PRL)
    if d.evidence == "full":
        model = rng.choice(("MacBookPro18,1", "MacBookAir10,1", "iMac21,1", "Macmini9,1"))
        net.mdns(d, app.mdns_host_records(name, d.host.ip) + app.mdns_service_records(
            name, "_device-info._tcp", name, 0, [f"model={model}",
                                                 f"osxvers={rng.choice((22, 23, 24))}"]))
        net.browse(d, "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
                      "(KHTML, like Gecko) Version/17.4 Safari/605.1.15")
    return Truth("Workstation", "macOS", name)


def ios(net: _Net, d: Device) -> Truth:
    rng = d.rng
    kind = rng.choice(("iPhone", "iPhone", "iPad"))
    name = f"{rng.choice(NAMES)}s-{kind}"
    if d.evidence == "quiet":
        net.lookup(d, "mesu.apple.com")
        return Truth("Mobile", "iOS", None)
    net.lease(d, hostname=name, param_list=APPLE_PRL[:9])
    if d.evidence == "full":
        net.mdns(d, app.mdns_host_records(name, d.host.ip) + app.mdns_service_records(
            name, "_companion-link._tcp", name, 49152, ["rpBA=00:11:22:33:44:55"]))
        os_version = rng.choice(("16_7", "17_4", "18_1"))
        net.browse(d, f"Mozilla/5.0 ({kind}; CPU {kind} OS {os_version} like Mac OS X) "
                      "AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148")
    return Truth("Mobile", "iOS", name)


def android(net: _Net, d: Device) -> Truth:
    rng = d.rng
    version = rng.choice((12, 13, 14, 15))
    name = rng.choice((f"android-{_hex(rng, 16).lower()}", f"Galaxy-S{rng.choice((22, 23, 24))}",
                       "Pixel-8"))
    if d.evidence == "quiet":
        net.lookup(d, "connectivitycheck.gstatic.com")
        return Truth("Mobile", "Android", None)
    net.lease(d, hostname=name, vendor_class=f"android-dhcp-{version}", param_list=ANDROID_PRL)
    if d.evidence == "full":
        net.browse(d, f"Mozilla/5.0 (Linux; Android {version}; SM-S911B) AppleWebKit/537.36 "
                      "(KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36")
    return Truth("Mobile", "Android", name)


def chromeos(net: _Net, d: Device) -> Truth:
    # ChromeOS's DHCP client sends no host name by default.
    if d.evidence != "quiet":
        net.lease(d, param_list=LINUX_PRL[:8])
    if d.evidence == "full":
        net.browse(d, "Mozilla/5.0 (X11; CrOS x86_64 15633.69.0) AppleWebKit/537.36 "
                      "(KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36")
    else:
        net.lookup(d, "clients3.google.com")
    return Truth("Workstation", "ChromeOS", None)


def linux_desktop(net: _Net, d: Device) -> Truth:
    name = d.rng.choice(("ubuntu-", "fedora-", "debian-")) + d.rng.choice(NAMES).lower()
    if d.evidence == "quiet":
        net.lookup(d, "connectivity-check.ubuntu.com")
        return Truth("Workstation", "Linux", None)
    net.lease(d, hostname=name, param_list=LINUX_PRL)
    if d.evidence == "full":
        net.browse(d, "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 "
                      "Firefox/125.0")
    return Truth("Workstation", "Linux", name)


def linux_server(net: _Net, d: Device) -> Truth:
    # Static address: no DHCP; it names itself nowhere, it answers SSH (and maybe HTTP).
    net.served(d, 22, app.ssh_banner("OpenSSH_9.6p1"), app.ssh_banner(
        "OpenSSH_8.9p1", "Ubuntu-3ubuntu0.6"))
    if d.evidence == "full":
        net.served(d, 80, app.http_request("GET", "/", d.host.ip, "curl/8.5.0"),
                   app.http_response(server="nginx/1.24.0 (Ubuntu)"))
        return Truth("Web Server", "Linux", None)
    return Truth("Server", "Linux", None)


def vm(net: _Net, d: Device) -> Truth:
    """A desktop VM (VMware, VirtualBox or Hyper-V NIC): Windows or Linux inside."""
    if d.host.ttl == 128:
        return windows_desktop(net, d)
    return linux_desktop(net, d)


def printer(net: _Net, d: Device) -> Truth:
    rng = d.rng
    model = rng.choice(("HP LaserJet Pro M404dn", "Brother HL-L2350DW", "HP OfficeJet Pro 9015"))
    name = ("NPI" if model.startswith("HP") else "BRW") + _hex(rng, 6)
    if d.evidence == "quiet":
        net.lookup(d, "pool.ntp.org", "ntp")
        return Truth("Printer", "Embedded", None)
    net.lease(d, hostname=name, param_list=EMBEDDED_PRL)
    if d.evidence == "full":
        net.mdns(d, app.mdns_host_records(name, d.host.ip) + app.mdns_service_records(
            model, "_ipp._tcp", name, 631, ["txtvers=1", f"ty={model}", f"product=({model})"]))
        net.served(d, 9100, b"\x1b%-12345X@PJL\r\n", b"@PJL INFO STATUS\r\n")
    return Truth("Printer", "Embedded", name)


def camera(net: _Net, d: Device) -> Truth:
    axis = d.host.mac.startswith("ac:cc:8e")
    name = f"axis-{d.host.mac.replace(':', '')}" if axis else None
    if d.evidence == "quiet":
        net.lookup(d, "time.windows.com", "ntp")
        return Truth("IP Camera", "Embedded", None)
    net.lease(d, hostname=name, param_list=EMBEDDED_PRL)
    if d.evidence == "full":
        server = "AXIS Media Server" if axis else "Hikvision-Webs"
        net.served(d, 554, b"OPTIONS rtsp://%s/ RTSP/1.0\r\nCSeq: 1\r\n\r\n" % d.host.ip.encode(),
                   f"RTSP/1.0 200 OK\r\nCSeq: 1\r\nServer: {server}\r\n\r\n".encode())
    return Truth("IP Camera", "Embedded", name)


def voip_phone(net: _Net, d: Device) -> Truth:
    yealink = d.host.mac.startswith("80:5e:c0")
    name = f"SIP-T46S-{_hex(d.rng, 4)}" if yealink else f"SEP{d.host.mac.replace(':', '').upper()}"
    if d.evidence == "quiet":
        net.lookup(d, "pbx.example.com", None)
        return Truth("VoIP Phone", "Embedded", None)
    net.lease(d, hostname=name, vendor_class="yealink" if yealink else "Polycom-VVX450",
              param_list=EMBEDDED_PRL + (66, 150))
    if d.evidence == "full":
        agent = "Yealink SIP-T46S 66.86.0.15" if yealink else "PolycomVVX-VVX_450-UA/6.4.3"
        register = (f"REGISTER sip:pbx.example.com SIP/2.0\r\nVia: SIP/2.0/UDP {d.host.ip}:5060\r\n"
                    f"From: <sip:{100 + d.index}@pbx.example.com>\r\nTo: <sip:{100 + d.index}"
                    f"@pbx.example.com>\r\nCall-ID: {d.index}@{d.host.ip}\r\nCSeq: 1 REGISTER\r\n"
                    f"User-Agent: {agent}\r\nContent-Length: 0\r\n\r\n")
        net.scenario.udp(d.host, net.router, 5060, 5060, register.encode())
    return Truth("VoIP Phone", "Embedded", name)


def smart_tv(net: _Net, d: Device) -> Truth:
    google = d.host.mac.startswith("f4:f5:d8")
    if d.evidence == "quiet":
        net.lookup(d, "time.google.com" if google else "time.samsungcloudsolution.com", "ntp")
        return Truth("IoT Device", "Android" if google else "Linux", None)
    net.lease(d, vendor_class="android-dhcp-12" if google else None, param_list=LINUX_PRL[:7])
    if d.evidence == "full":
        if google:
            net.mdns(d, app.mdns_service_records(f"Google-TV-{d.index}", "_googlecast._tcp",
                                                 f"gtv{d.index}", 8009,
                                                 ["md=Chromecast with Google TV", "fn=Lounge"]))
        else:
            net.scenario.udp(d.host, SSDP, 50000 + d.index, 1900, identity.ssdp_search(
                "urn:dial-multiscreen-org:service:dial:1",
                "SEC_HHP_[TV] Samsung Q60 Series/1.0 UPnP/1.0"))
    return Truth("IoT Device", "Android" if google else "Linux", None)


def speaker(net: _Net, d: Device) -> Truth:
    name = f"sonos{d.host.mac.replace(':', '').upper()}"
    if d.evidence == "quiet":
        net.lookup(d, "update.sonos.com")
        return Truth("IoT Device", "Linux", None)
    net.lease(d, param_list=EMBEDDED_PRL)
    if d.evidence == "full":
        net.mdns(d, app.mdns_host_records(name, d.host.ip) + app.mdns_service_records(
            f"Kitchen-{d.index}", "_sonos._tcp", name, 1443, ["info=/api/v1/players"]))
        net.served(d, 1400, app.http_request("GET", "/xml/device_description.xml",
                                             f"{d.host.ip}:1400"),
                   app.http_response(body=identity.upnp_description(
                       "Kitchen", "Sonos, Inc.", "Sonos One", "S18"), content_type="text/xml"))
        return Truth("IoT Device", "Linux", name)
    return Truth("IoT Device", "Linux", None)


def console(net: _Net, d: Device) -> Truth:
    # A PlayStation 5 (FreeBSD-derived) names itself in DHCP.
    name = f"PS5-{d.index:03d}"
    if d.evidence == "quiet":
        net.lookup(d, "np.playstation.net")
        return Truth("IoT Device", "BSD", None)
    net.lease(d, hostname=name, param_list=(1, 3, 6, 15, 28, 33))
    if d.evidence == "full":
        net.scenario.tcp_session(d.host, net.web, net.port(), 443, client=[
            app.tls_client_hello("np.playstation.net")], server=[app.tls_server_hello()])
    return Truth("IoT Device", "BSD", name)


def nas(net: _Net, d: Device) -> Truth:
    name = f"DS920-{_hex(d.rng, 4)}"
    if d.evidence == "quiet":
        net.lookup(d, "update.synology.com")
        return Truth("File Server", "Linux", None)
    net.lease(d, hostname=name, param_list=LINUX_PRL)
    if d.evidence == "full":
        net.mdns(d, app.mdns_host_records(name, d.host.ip) + app.mdns_service_records(
            name, "_smb._tcp", name, 445, []))
        net.served(d, 445, b"\x00\x00\x00\x10" + bytes(16), b"\x00\x00\x00\x10" + bytes(16))
        net.served(d, 5000, app.http_request("GET", "/", f"{d.host.ip}:5000"),
                   app.http_response(server="nginx"))
    return Truth("File Server", "Linux", name)


def switch(net: _Net, d: Device) -> Truth:
    name = f"sw-access-{d.index:02d}"
    net.scenario.arp_exchange(net.router, d.host)
    net.scenario.ping(net.router, d.host)
    if d.evidence == "full":
        net.scenario.emit(lldp_frame(d.host.mac, system_name=name,
                                     description="Cisco IOS Software, C2960X Software",
                                     capabilities=("bridge",), management=(d.host.ip,)))
        return Truth("Switch", "Network OS", name)
    return Truth("Switch", "Network OS", None)


def access_point(net: _Net, d: Device) -> Truth:
    name = f"UAP-{d.index:02d}"
    if d.evidence == "quiet":
        net.lookup(d, "fw-update.ubnt.com")
        return Truth("Access Point", None, None)
    net.lease(d, hostname=name, vendor_class="ubnt", param_list=EMBEDDED_PRL)
    if d.evidence == "full":
        net.scenario.emit(lldp_frame(d.host.mac, system_name=name, description="U6-Pro, 6.6.55",
                                     capabilities=("wlan-ap", "bridge"), management=(d.host.ip,)))
    return Truth("Access Point", None, name)


@dataclass(frozen=True)
class Profile:
    """How to draw one kind of device: its weight in the mix, MAC prefixes (None: a
    randomised MAC), IP TTL and SYN layout, and the function that writes its traffic."""

    weight: int
    ouis: tuple[str | None, ...]
    ttl: int
    syn: SynSignature
    write: Callable[[_Net, Device], Truth]


PROFILES = {
    "windows-desktop": Profile(18, ("f0:d5:bf", "50:eb:f6", "b4:b6:86", "00:1b:21"), 128,
                               WINDOWS_SYN, windows_desktop),
    "windows-server": Profile(3, ("b4:b6:86", "00:15:5d"), 128, WINDOWS_SYN, windows_server),
    "macos": Profile(8, ("a4:83:e7", "3c:22:fb"), 64, MACOS_SYN, macos),
    "ios": Profile(12, ("8c:fe:57", "3c:22:fb", None, None), 64, IOS_SYN, ios),
    "android": Profile(10, ("8c:79:f5", None, None), 64, LINUX_SYN, android),
    "chromeos": Profile(3, ("fc:4d:d4", "50:eb:f6"), 64, LINUX_SYN, chromeos),
    "linux-desktop": Profile(4, ("f0:d5:bf", "00:1b:21"), 64, LINUX_SYN, linux_desktop),
    "linux-server": Profile(4, ("b4:b6:86", "00:50:56"), 64, LINUX_SYN, linux_server),
    "vm-windows": Profile(3, ("00:50:56", "08:00:27", "00:15:5d"), 128, WINDOWS_SYN, vm),
    "vm-linux": Profile(2, ("00:50:56", "08:00:27"), 64, LINUX_SYN, vm),
    "printer": Profile(5, ("b4:b6:86", "3c:2a:f4"), 64, LINUX_SYN, printer),
    "ip-camera": Profile(5, ("ac:cc:8e", "c0:56:e3"), 64, LINUX_SYN, camera),
    "voip-phone": Profile(4, ("80:5e:c0", "00:04:f2"), 64, LINUX_SYN, voip_phone),
    "smart-tv": Profile(3, ("f4:f5:d8", "8c:79:f5"), 64, LINUX_SYN, smart_tv),
    "speaker": Profile(3, ("00:0e:58",), 64, LINUX_SYN, speaker),
    "console": Profile(2, ("00:d9:d1",), 64, SynSignature(65535, 1460, 6, ("MSS", "NOP", "WS",
                                                                           "SACK", "TS")),
                       console),
    "nas": Profile(2, ("00:11:32",), 64, LINUX_SYN, nas),
    "switch": Profile(2, ("00:00:0c", "d8:0d:17"), 255, LINUX_SYN, switch),
    "access-point": Profile(2, ("24:a4:3c", "e0:63:da"), 64, LINUX_SYN, access_point),
}


def device_ip(index: int) -> str:
    """Addresses 10.20.0.10 upwards in the /22, skipping .0 and .255 of each /24."""
    n = index + 10
    return f"10.20.{n // 250}.{n % 250 + 2}"


def build(path: Path | str, hosts: int = 300, seed: int = 1) -> dict[str, Truth]:
    """Writes the capture to `path`; returns the truth of every on-segment device, the
    router and the admin box included."""
    rng = random.Random(seed)
    net = _Net(seed)
    names = list(PROFILES)
    weights = [PROFILES[n].weight for n in names]
    truth = {ROUTER_IP: Truth("Router", "Network OS", None),
             ADMIN_IP: Truth("Workstation", "Linux", None)}
    for index in range(hosts):
        profile = PROFILES[rng.choices(names, weights)[0]]
        oui = rng.choice(profile.ouis)
        mac = _random_mac(rng) if oui is None else _mac(oui, rng)
        host = net.scenario.host(device_ip(index), mac, ttl=profile.ttl, syn=profile.syn)
        device = Device(host, random.Random(rng.random()), rng.choice(EVIDENCE), index)
        truth[host.ip] = profile.write(net, device)
        net.scenario.advance(0.05)
    net.scenario.write_pcap(path)
    return truth


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2):
        print("usage: python -m tracepcap.testing.accuracy_corpus OUT.pcap [HOSTS]",
              file=sys.stderr)
        return 2
    truth = build(Path(args[0]), int(args[1]) if len(args) == 2 else 300)
    for ip, t in truth.items():
        print(ip, t.device_type, t.os_family, t.hostname, sep="\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
