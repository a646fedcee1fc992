"""os-family on whole captures: the bundled demo (known truth), a synthetic proxy whose
User-Agent contradicts its SYNs, and real captures whose OS evidence was read by hand with
tshark (what each test asserts is what those packets support, no more)."""

from __future__ import annotations

import pytest

from tracepcap.testing import app
from tracepcap.testing import discovery as d
from tracepcap.testing.demo import DEMO_TRUTH, build_demo_office
from tracepcap.testing.scenario import LINUX_SYN, WINDOWS_SYN, Scenario

LINUX_SHARED = "is the Linux kernel's, which Linux, Android and ChromeOS share (p0f: Linux 2.2.x-3.x) (+40)"
APPLE_SHARED = "is the Apple (XNU) stack's, which macOS and iOS share (p0f: {}) (+40)"


@pytest.fixture(scope="module")
def demo(analyze_json, tmp_path_factory):
    return analyze_json(build_demo_office(tmp_path_factory.mktemp("demo") / "demo.pcap"))


def os_family(hosts, ip):
    return hosts[ip]["verdicts"]["os-family"]


def top(verdict, n):
    return [(c["label"], c["score"]) for c in verdict["candidates"][:n]]


def test_lldp_and_cdp_descriptions_reach_os_family(analyze_json, tmp_path):
    """What the LLDP and CDP extractors really emit (lldp-software, lldp-platform, source
    lldp or cdp) is what the system_description signal reads."""
    linux = "Linux db1 5.15.0-88-generic #98-Ubuntu SMP Mon Oct 2 15:18:56 UTC 2023 x86_64"
    ios = "Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version 15.0(2)SE11\nTechnical Support"
    net = Scenario(start=1_700_000_000.0)
    net.emit(d.lldp_frame("00:25:90:00:00:05", system_name="db1", description=linux,
                          management=["10.0.0.5"]))  # frame 1
    net.emit(d.cdp_frame("00:00:0c:aa:bb:01", device_id="sw-access-3", software=ios,
                         addresses=["10.0.0.2"]))  # 2: no platform TLV
    net.emit(d.cdp_frame("00:1b:21:0a:0b:0c", device_id="SEP001B210A0B0C", software="sip88xx.14-1-1",
                         platform="Cisco IP Phone 8841", addresses=["10.0.5.21"]))  # 3
    gateway = net.host("10.0.0.1", "00:00:0c:00:00:01")
    for ip, mac in (("10.0.0.5", "00:25:90:00:00:05"), ("10.0.0.2", "00:00:0c:aa:bb:01"),
                    ("10.0.5.21", "00:1b:21:0a:0b:0c")):
        net.ping(net.host(ip, mac), gateway)  # an address seen in IP traffic is a host
    hosts = analyze_json(net.write_pcap(tmp_path / "discovery.pcap"))
    reasons = {ip: [(c["label"], c["reasons"]) for c in os_family(hosts, ip)["candidates"][:1]]
               for ip in ("10.0.0.5", "10.0.0.2", "10.0.5.21")}
    assert reasons == {
        "10.0.0.5": [("Linux", [f"its LLDP system description is {linux}, first in frame 1 (+30)"])],
        "10.0.0.2": [("Network OS", ["its CDP software version is Cisco IOS Software, C2960 Software "
                                     "(C2960-LANBASEK9-M), Version 15.0(2)SE11, first in frame 2 (+30)"])],
        "10.0.5.21": [("Embedded", ["its CDP platform is Cisco IP Phone 8841, first in frame 3 (+30)",
                                    "it calls itself SEP001B210A0B0C over CDP, frame 3: a Cisco IP phone's "
                                    "default name (SEP and its MAC) (+20)"])]}


def test_demo_office_os_families_match_the_truth(demo):
    # Every LAN host carries evidence for its truth, none is left out: the router only its
    # initial TTL of 255; the servers a Linux-kernel SYN plus APT's User-Agent (ns1, dhcp1)
    # or an "(Ubuntu)" nginx (intranet); the clients SYNs, DHCP fingerprints and browsers;
    # the printer its JetDirect vendor class and HP's embedded web server.
    got = {ip: os_family(demo, ip)["primary_label"] for ip in DEMO_TRUTH}
    assert got == {ip: truth["os"] for ip, truth in DEMO_TRUTH.items()}
    assert not any(os_family(demo, ip)["contested"] for ip in DEMO_TRUTH)


def test_demo_phone_and_desktop_share_a_kernel_and_their_own_words_decide(demo):
    phone, desktop = os_family(demo, "10.0.0.31"), os_family(demo, "10.0.0.23")
    assert top(phone, 3) == [("Android", 120), ("ChromeOS", 40), ("Linux", 40)]
    assert phone["candidates"][0]["reasons"][0] == (
        f"its TCP SYN signature 64240:1460:7:mss,sok,ts,nop,ws, first in frame 123, {LINUX_SHARED}")
    assert top(desktop, 2) == [("Linux", 105), ("Android", 40)] and desktop["confidence"] == 100
    iphone, mac = os_family(demo, "10.0.0.32"), os_family(demo, "10.0.0.30")
    assert top(iphone, 2) == [("iOS", 130), ("macOS", 40)] and top(mac, 2) == [("macOS", 130), ("iOS", 40)]


def test_demo_windows_workstation_every_reason_names_its_frame(demo):
    verdict = os_family(demo, "10.0.0.21")
    assert (verdict["primary_label"], verdict["confidence"], verdict["basis"]) == ("Windows", 100, "MACHINE")
    assert verdict["candidates"][0]["reasons"] == [
        "its TCP SYN signature 64240:1460:8:mss,nop,ws,nop,nop,sok, first in frame 75, is the Windows stack's "
        "(p0f: Windows NT kernel) (+40)",
        "its DHCP parameter request list 1,3,6,15,31,33,43,44,46,47,119,121,249,252, first in frame 14, is "
        "Windows 8 to 11 (+20)",
        "its DHCP vendor class MSFT 5.0, first in frame 14, is Windows' DHCP client (+20)",
        "its User-Agent says Windows: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, "
        "like..., first in frame 78 (+20)",
        "sends with TTL 128, first in frame 57 (initial 128, the Windows default) (+10)"]


UA_WINDOWS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/119.0.0.0 Safari/537.36")
UA_UBUNTU = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:119.0) Gecko/20100101 Firefox/119.0"


@pytest.fixture(scope="module")
def posers(analyze_json, tmp_path_factory):
    """A Linux proxy relaying a Windows browser's User-Agent, then a Windows PC whose
    browser claims Ubuntu: each sends one SYN (its first frame) and one request."""
    net = Scenario(start=1_700_000_000.0)
    gw = net.host("10.9.0.1", "00:00:0c:09:00:01", ttl=255)
    proxy = net.host("10.9.0.50", "00:25:90:09:00:50", syn=LINUX_SYN)
    pc = net.host("10.9.0.60", "00:1b:21:09:00:60", ttl=128, syn=WINDOWS_SYN)
    web = net.host("203.0.113.10", via=gw, ttl=52)
    for client, sport, ua in ((proxy, 40001, UA_WINDOWS), (pc, 50001, UA_UBUNTU)):
        net.tcp_session(client, web, sport, 80,
                        client=[app.http_request("GET", "/", "www.example.com", ua)],
                        server=[app.http_response(200, "OK", "nginx", b"hello")])
    return analyze_json(net.write_pcap(tmp_path_factory.mktemp("posers") / "posers.pcap"))


def test_linux_syn_with_a_windows_user_agent_is_linux_based_and_says_why(posers):
    # The measured stack outweighs the claim: the kernel's families lead Windows by 20 (40 %
    # confidence), and nothing tells them apart, so the answer stops at their parent.
    verdict = os_family(posers, "10.9.0.50")
    assert (verdict["primary_label"], verdict["contested"], verdict["confidence"]) == ("Linux-based", False, 40)
    assert verdict["parent_of"] == ["Android", "ChromeOS", "Linux"]
    assert top(verdict, 4) == [("Android", 40), ("ChromeOS", 40), ("Linux", 40), ("Windows", 20)]
    windows = verdict["candidates"][3]
    assert windows["reasons"] == [
        "its User-Agent says Windows: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like..., "
        "first in frame 4 (+20)",
        "its User-Agent says Windows (first in frame 4) but its TCP SYN signature 64240:1460:7:mss,sok,ts,nop,ws "
        "(first in frame 1) is the Linux kernel's: a proxy or a spoofed User-Agent (+0)"]
    assert [(v["signal"], v["weight"], v["frames"]) for v in windows["votes"]] == [
        ("user_agent", 20, [4]), ("syn_vs_user_agent", 0, [4, 1])]


def test_windows_syn_outweighs_a_user_agent_claiming_ubuntu(posers):
    verdict = os_family(posers, "10.9.0.60")
    assert (verdict["primary_label"], verdict["contested"], verdict["confidence"]) == ("Windows", False, 60)
    linux = next(c for c in verdict["candidates"] if c["label"] == "Linux")
    assert linux["score"] == 20 and linux["reasons"][1].endswith(
        "is the Windows stack's: a proxy or a spoofed User-Agent (+0)")


def test_ftp_client_is_windows_xp_era(analyze_json, captures):
    # By hand: 192.168.0.114 sends its SYN in frame 1 with TTL 128, window 16384 and options
    # MSS, NOP, NOP, SACK-permitted (no window scale, no timestamps: p0f's Windows XP), and
    # introduces itself as FlashFXP 3.4 (CLNT, frame 13), a Windows-only FTP client. The
    # server 192.168.0.193 answers with TTL 128 too, and its SYN+ACK (frame 2: window 16384,
    # MSS 1452, MSS,NOP,NOP,SACK-permitted) is p0f's Windows XP response.
    hosts = analyze_json(captures / "ftp.pcap")
    client = os_family(hosts, "192.168.0.114")
    assert (client["primary_label"], client["contested"], client["confidence"]) == ("Windows", False, 100)
    assert client["candidates"][0]["reasons"] == [
        "its TCP SYN signature 16384:1460:*:mss,nop,nop,sok, first in frame 1, is the Windows stack's "
        "(p0f: Windows XP) (+40)",
        "sends with TTL 128, first in frame 1 (initial 128, the Windows default) (+10)"]
    server = os_family(hosts, "192.168.0.193")
    assert (server["primary_label"], server["confidence"]) == ("Windows", 100)
    assert server["candidates"][0]["reasons"][0] == (
        "its TCP SYN+ACK signature 16384:1452:*:mss,nop,nop,sok, first in frame 2, is the Windows stack's "
        "(p0f: Windows XP) (+40)")


@pytest.mark.parametrize("name, ip, first, signature, p0f", [
    # An Apple-OUI host (c4:61:8b:35:82:a9) running Signal: SYNs in frames 3.. with TTL 64,
    # window 65535, MSS,NOP,WS,NOP,NOP,TS,SACK-permitted,EOL. Nothing in the capture says
    # Mac or iPhone (the "Lucas-iMac" DHCP DISCOVERs come from another MAC, d8:30:62:56:00:1c).
    ("signal.pcap", "192.168.2.17", 3, "65535:1460:6:mss,nop,ws,nop,nop,ts,sok,eol", "Mac OS X"),
    # An Apple-OUI host (00:f4:b9:26:bb:f4) opening WhatsApp: one SYN, frame 4, window scale 4.
    ("whatsapp_login_chat.pcap", "192.168.2.4", 4, "65535:1460:4:mss,nop,ws,nop,nop,ts,sok,eol",
     "MacOS X 10.9 or newer (sometimes iPhone or iPad)"),
])
def test_apple_stack_without_a_word_from_the_host_is_apple(analyze_json, captures, name, ip, first, signature, p0f):
    # macOS or iOS, the capture cannot say: the answer stops at Apple, both stay candidates.
    verdict = os_family(analyze_json(captures / name), ip)
    assert (verdict["primary_label"], verdict["contested"], verdict["parent_of"]) == ("Apple", False, ["iOS", "macOS"])
    assert verdict["notes"][0] == ("stopped at Apple: iOS (40) and macOS (40) are both Apple, and nothing here "
                                   "tells them apart")
    assert top(verdict, 2) == [("iOS", 40), ("macOS", 40)]
    assert verdict["candidates"][0]["reasons"] == [
        f"its TCP SYN signature {signature}, first in frame {first}, {APPLE_SHARED.format(p0f)}"]


@pytest.mark.parametrize("name, ip, signature", [
    # Behind a Belkin router (its MAC, TTL 63): SYNs from frame 1, window 65535, MSS,SACK-
    # permitted,TS,NOP,WS: the Linux kernel, and nothing says which of its families.
    ("whatsapp.pcap", "192.168.2.100", "65535:1460:9:mss,sok,ts,nop,ws"),
    # A VirtualBox guest (08:00:27 OUI, NAT address 10.0.2.15): one SYN, frame 1, TTL 64.
    ("discord.pcap", "10.0.2.15", "64240:1460:7:mss,sok,ts,nop,ws"),
])
def test_linux_kernel_without_a_word_from_the_host_is_linux_based(analyze_json, captures, name, ip, signature):
    verdict = os_family(analyze_json(captures / name), ip)
    assert (verdict["primary_label"], verdict["contested"]) == ("Linux-based", False)
    assert verdict["parent_of"] == ["Android", "ChromeOS", "Linux"]
    assert top(verdict, 3) == [("Android", 40), ("ChromeOS", 40), ("Linux", 40)]
    assert verdict["candidates"][0]["reasons"] == [
        f"its TCP SYN signature {signature}, first in frame 1, {LINUX_SHARED}"]


def test_crafted_syns_are_no_fingerprint(analyze_json, captures):
    # By hand: every SYN in this generated office capture has window 8192 and no TCP
    # options at all (a 20-byte header, as scapy builds them by default) and TTL 64.
    hosts = analyze_json(captures / "monitor_large_week1_baseline.pcap")
    with_syn = [ip for ip, h in hosts.items() if any(f["kind"] == "tcp-syn-signature" for f in h["facts"])]
    assert len(with_syn) > 100
    for ip in with_syn:
        verdict = os_family(hosts, ip)
        assert verdict["primary_label"] == "Unknown", ip
        assert not any(v["signal"] == "syn_signature" for c in verdict["candidates"] for v in c["votes"]), ip


def test_http_software_that_names_no_os_does_not_vote(analyze_json, captures):
    # By hand: the clients send "demo-client/1.0", the servers answer "nginx/1.18.0",
    # "Apache/2.4.41" and "nginx": no OS in any of them, and every TTL starts at 64.
    hosts = analyze_json(captures / "http_demo.pcap")
    assert {os_family(hosts, ip)["primary_label"] for ip in hosts} == {"Unknown"}
