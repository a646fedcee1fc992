"""os-family signals on facts made by hand: each one's exact votes and reasons, and how the
runner weighs what they say together."""

from __future__ import annotations

import pytest
from support.facts import context, fact, votes

from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.questions.os_family import ADJUDICATOR
from tracepcap.adjudicate.runner import Annotations, decide
from tracepcap.extract.facts import Grade
from tracepcap.extract.kinds import (DHCP_PARAMETER_LIST, DHCP_VENDOR_CLASS, HTTP_SERVER, OS_VERSION, SNMP_SYSDESCR,
                                     SSH_BANNER, TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE, TTL,
                                     USER_AGENT)
from tracepcap.scan.signals.os_family import (dhcp_parameters, dhcp_vendor_class, http_server,
                                              os_version, ssh_banner, syn_signature, syn_vs_user_agent,
                                              system_description, ttl, user_agent)

WIN_SYN = "64240:1460:8:mss,nop,ws,nop,nop,sok"
LINUX_SYN = "64240:1460:7:mss,sok,ts,nop,ws"
APPLE_SYN = "65535:1460:6:mss,nop,ws,nop,nop,ts,sok,eol"
WIN_UA = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
          "Chrome/119.0.0.0 Safari/537.36 Edg/119.0.0.0")
LINUX_SHARED = "is the Linux kernel's, which Linux, Android and ChromeOS share (p0f: Linux 2.2.x-3.x) (+40)"
APPLE_SHARED = "is the Apple (XNU) stack's, which macOS and iOS share (p0f: {}) (+40)"


def said(kind, value, frame=1, source=None):
    assert kind.grade == Grade.REPORTED, kind
    return fact(kind, value, frame, source=source)


def test_ttl_128_is_windows_and_255_a_network_os():
    assert votes(ttl, [fact(TTL, "127", 5, 10), fact(TTL, "64", 2, 1)]) == [
        ("Windows", 10, "sends with TTL 127, first in frame 5 (initial 128, the Windows default) (+10)", (5,))]
    assert votes(ttl, [fact(TTL, "254", 3, 40)]) == [
        ("Network OS", 10, "sends with TTL 254, first in frame 3 (initial 255, the default of network "
         "operating systems such as Cisco IOS) (+10)", (3,))]


def test_ttl_64_names_no_family_and_says_so():
    assert votes(ttl, [fact(TTL, "61", 9, 30)]) == [
        ("Unknown", 0, "sends with TTL 61, first in frame 9 (initial 64, shared by Linux, Android, ChromeOS, "
         "macOS, iOS, the BSDs and most embedded stacks: it names none of them) (+0)", (9,))]
    assert votes(ttl, [fact(TTL, "30", 9, 30)]) == []  # initial 32: too rare to read
    assert votes(ttl, []) == []


def test_syn_signature_of_a_single_family_stack():
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, WIN_SYN, 75, 3)]) == [
        ("Windows", 40, f"its TCP SYN signature {WIN_SYN}, first in frame 75, is the Windows stack's "
         "(p0f: Windows NT kernel) (+40)", (75,))]
    xp = "16384:1460:*:mss,nop,nop,sok"
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, xp, 1)]) == [
        ("Windows", 40, f"its TCP SYN signature {xp}, first in frame 1, is the Windows stack's "
         "(p0f: Windows XP) (+40)", (1,))]
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, "65535:1460:6:mss,nop,ws,sok,ts", 8)]) == [
        ("BSD", 40, "its TCP SYN signature 65535:1460:6:mss,nop,ws,sok,ts, first in frame 8, is FreeBSD's "
         "(p0f: FreeBSD 9.x or newer) (+40)",
         (8,))]


def test_syn_signature_of_a_shared_stack_votes_for_each_family_once():
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, LINUX_SYN, 99, 4),
                                 fact(TCP_SYN_SIGNATURE, "29200:1460:7:mss,sok,ts,nop,ws", 120)]) == [
        (label, 40, f"its TCP SYN signature {LINUX_SYN}, first in frame 99, {LINUX_SHARED}", (99,))
        for label in ("Linux", "Android", "ChromeOS")]
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, APPLE_SYN, 111)]) == [
        (label, 40, f"its TCP SYN signature {APPLE_SYN}, first in frame 111, {APPLE_SHARED.format('Mac OS X')}", (111,))
        for label in ("macOS", "iOS")]


def test_syn_signature_ignores_crafted_and_unknown_syns():
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, "8192:*:*:", 9)]) == []  # scapy's bare SYN
    # Solaris 10 writes Windows' layout with a window of 34 MSS: not one of Windows' windows
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, "49640:1460:0:mss,nop,ws,nop,nop,sok", 9)]) == []
    assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, "32768:1460:*:mss,nop,nop,sok", 9)]) == []


def test_dhcp_parameter_lists():
    windows = "1,3,6,15,31,33,43,44,46,47,119,121,249,252"
    assert votes(dhcp_parameters, [said(DHCP_PARAMETER_LIST, windows, 14)]) == [
        ("Windows", 20, f"its DHCP parameter request list {windows}, first in frame 14, is Windows 8 to 11 (+20)",
         (14,))]
    ios = "1,121,3,6,15,108,114,119,252"
    assert votes(dhcp_parameters, [said(DHCP_PARAMETER_LIST, ios, 50)]) == [
        ("iOS", 20, f"its DHCP parameter request list {ios}, first in frame 50, is iOS 16 and later (+20)", (50,))]
    apple = "1,121,3,6,15,119,252,95,44,46,101"
    assert votes(dhcp_parameters, [said(DHCP_PARAMETER_LIST, apple, 3)]) == [
        (label, 20, f"its DHCP parameter request list {apple}, first in frame 3, is Apple's, which macOS and "
         "iOS share (+20)", (3,)) for label in ("macOS", "iOS")]
    assert votes(dhcp_parameters, [said(DHCP_PARAMETER_LIST, "1,3", 1)]) == []


def test_dhcp_vendor_classes():
    assert votes(dhcp_vendor_class, [said(DHCP_VENDOR_CLASS, "MSFT 5.0", 14)]) == [
        ("Windows", 20, "its DHCP vendor class MSFT 5.0, first in frame 14, is Windows' DHCP client (+20)", (14,))]
    assert votes(dhcp_vendor_class, [said(DHCP_VENDOR_CLASS, "android-dhcp-13", 44)]) == [
        ("Android", 20, "its DHCP vendor class android-dhcp-13, first in frame 44, is Android's DHCP client (+20)",
         (44,))]
    dhcpcd = "dhcpcd-9.4.1:Linux-6.1.0-13-amd64:x86_64:GenuineIntel"
    assert votes(dhcp_vendor_class, [said(DHCP_VENDOR_CLASS, dhcpcd, 7)]) == [
        ("Linux", 20, f"its DHCP vendor class {dhcpcd}, first in frame 7, is dhcpcd running on Linux (+20)", (7,))]
    assert votes(dhcp_vendor_class, [said(DHCP_VENDOR_CLASS, "dhcpcd-9.4.1:NetBSD-10.0:amd64", 7)])[0][:2] == (
        "BSD", 20)
    assert votes(dhcp_vendor_class, [said(DHCP_VENDOR_CLASS, "udhcp 1.36.1", 2)])[0][:2] == ("Embedded", 20)
    assert votes(dhcp_vendor_class, [said(DHCP_VENDOR_CLASS, "TL-SG116E", 1)]) == []  # a model, not an OS


def test_user_agent_through_ua_parser():
    ubuntu = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:119.0) Gecko/20100101 Firefox/119.0"
    assert votes(user_agent, [said(USER_AGENT, ubuntu, 102)]) == [
        ("Linux", 20, f"its User-Agent says Ubuntu: {ubuntu}, first in frame 102 (+20)", (102,))]
    # one vote per family, from the earliest frame; a long User-Agent is cut with "..."
    assert votes(user_agent, [said(USER_AGENT, "Windows-Update-Agent/10.0.10011.16384", 90),
                              said(USER_AGENT, WIN_UA, 78), said(USER_AGENT, "curl/8.4.0", 5)]) == [
        ("Windows", 20, "its User-Agent says Windows: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, "
         "like..., first in frame 78 (+20)", (78,))]
    mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15"
    assert votes(user_agent, [said(USER_AGENT, mac, 4)])[0][:3] == (
        "macOS", 20, f"its User-Agent says Mac OS X: {mac}, first in frame 4 (+20)")


def test_ssh_banners():
    assert votes(ssh_banner, [said(SSH_BANNER, "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13", 382)]) == [
        ("Linux", 25, "its SSH banner SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13, first in frame 382, names Ubuntu "
         "(+25)", (382,))]
    assert votes(ssh_banner, [said(SSH_BANNER, "SSH-2.0-OpenSSH_for_Windows_8.1", 6)]) == [
        ("Windows", 25, "its SSH banner SSH-2.0-OpenSSH_for_Windows_8.1, first in frame 6, names OpenSSH for "
         "Windows (+25)", (6,))]
    assert votes(ssh_banner, [said(SSH_BANNER, "SSH-2.0-Cisco-1.25", 6)])[0][:2] == ("Network OS", 25)
    assert votes(ssh_banner, [said(SSH_BANNER, "SSH-2.0-dropbear_2022.83", 6)])[0][:2] == ("Embedded", 25)
    assert votes(ssh_banner, [said(SSH_BANNER, "SSH-2.0-OpenSSH_9.4", 380)]) == []  # every Unix-like


def test_http_server_headers():
    assert votes(http_server, [said(HTTP_SERVER, "nginx/1.24.0 (Ubuntu)", 80)]) == [
        ("Linux", 20, "its HTTP Server header nginx/1.24.0 (Ubuntu), first in frame 80, names Ubuntu (+20)", (80,))]
    assert votes(http_server, [said(HTTP_SERVER, "Microsoft-IIS/10.0", 12)]) == [
        ("Windows", 20, "its HTTP Server header Microsoft-IIS/10.0, first in frame 12, names Microsoft IIS (+20)",
         (12,))]
    assert votes(http_server, [said(HTTP_SERVER, "Apache/2.4.58 (Win64) OpenSSL/3.1.3", 12)])[0][:2] == (
        "Windows", 20)
    assert votes(http_server, [said(HTTP_SERVER, "Apache/2.4.41", 20)]) == []  # names no OS


def test_user_agent_that_its_syns_contradict_is_said_at_weight_zero():
    assert votes(syn_vs_user_agent, [fact(TCP_SYN_SIGNATURE, LINUX_SYN, 75), said(USER_AGENT, WIN_UA, 78)]) == [
        ("Windows", 0, f"its User-Agent says Windows (first in frame 78) but its TCP SYN signature {LINUX_SYN} "
         "(first in frame 75) is the Linux kernel's: a proxy or a spoofed User-Agent (+0)", (78, 75))]


def test_user_agent_within_the_measured_stack_is_no_contradiction():
    android = "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36"
    iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15"
    assert votes(syn_vs_user_agent, [fact(TCP_SYN_SIGNATURE, LINUX_SYN, 3), said(USER_AGENT, android, 5)]) == []
    assert votes(syn_vs_user_agent, [fact(TCP_SYN_SIGNATURE, APPLE_SYN, 3), said(USER_AGENT, iphone, 5)]) == []
    assert votes(syn_vs_user_agent, [said(USER_AGENT, WIN_UA, 5)]) == []  # no SYN, nothing to contradict
    assert votes(syn_vs_user_agent, [fact(TCP_SYN_SIGNATURE, "8192:*:*:", 3), said(USER_AGENT, WIN_UA, 5)]) == []


def test_os_version_over_smb_and_ntlm():
    assert votes(os_version, [said(OS_VERSION, "Windows 7 Professional 7601 Service Pack 1", 40, "smb")]) == [
        ("Windows", 30, "it names its OS over smb: Windows 7 Professional 7601 Service Pack 1, first in frame 40 "
         "(+30)", (40,))]
    assert votes(os_version, [said(OS_VERSION, "Unix", 40, "smb")]) == []  # Samba: which Unix?


def test_system_descriptions_from_snmp():
    ios = "Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version 15.0(2)SE11"
    assert votes(system_description, [said(SNMP_SYSDESCR, ios, 17, source="snmp")]) == [
        ("Network OS", 30, f"its SNMP sysDescr is {ios}, first in frame 17 (+30)", (17,))]
    linux = "Linux db1 5.15.0-88-generic #98-Ubuntu SMP Mon Oct 2 15:18:56 UTC 2023 x86_64"
    assert votes(system_description, [said(SNMP_SYSDESCR, linux, 9, source="snmp")])[0][:2] == ("Linux", 30)
    # an Arista switch says Linux further along: the network OS is named first and wins
    assert votes(system_description, [said(SNMP_SYSDESCR, "Arista Networks EOS version 4.28 running on an "
                                          "Arista DCS-7050, Linux 4.19", 9, source="snmp")])[0][0] == "Network OS"
    # LLDP and CDP descriptions: tests/scan/test_os_family_captures.py, on the frames themselves


def verdict(*facts):
    host = context({"h": list(facts)}).host("h")
    cast = [v.signed(s.__name__.rsplit(".", 1)[-1]) for s in (
        dhcp_parameters, dhcp_vendor_class, http_server, os_version, ssh_banner, syn_signature,
        syn_vs_user_agent, system_description, ttl, user_agent) for v in s.vote(host)]
    return decide(ADJUDICATOR, Key("os-family", "cap", "h"), cast, Annotations(None, [], []))


def test_measured_and_reported_disagreeing_is_linux_based_and_says_why():
    v = verdict(fact(TTL, "64", 2, 20), fact(TCP_SYN_SIGNATURE, LINUX_SYN, 75), said(USER_AGENT, WIN_UA, 78))
    # Linux, Android, ChromeOS tie at 40, 20 ahead of the claimed Windows: the kernel's family
    assert (v.primary_label, v.contested, v.confidence) == ("Linux-based", False, 40)
    assert [(c.label, c.score) for c in v.candidates] == [
        ("Android", 40), ("ChromeOS", 40), ("Linux", 40), ("Windows", 20), ("Unknown", 0)]
    windows = v.candidates[3]
    assert [(x.signal, x.weight) for x in windows.votes] == [("user_agent", 20), ("syn_vs_user_agent", 0)]
    assert windows.reasons[1].startswith("its User-Agent says Windows (first in frame 78) but its TCP SYN")


def test_one_reported_claim_picks_within_a_shared_stack():
    iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15"
    v = verdict(fact(TCP_SYN_SIGNATURE, APPLE_SYN, 3), said(USER_AGENT, iphone, 5))
    assert (v.primary_label, v.contested, v.confidence) == ("iOS", False, 40)  # margin 20 of 50
    v = verdict(fact(TCP_SYN_SIGNATURE, APPLE_SYN, 3))  # no claim: the answer stops at Apple
    assert (v.primary_label, v.contested, v.parent_of) == ("Apple", False, ("iOS", "macOS"))
    assert {c.label for c in v.candidates} == {"macOS", "iOS"}


def test_a_single_family_stack_outweighs_a_reported_claim_and_keeps_the_claim_visible():
    ubuntu = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:119.0) Gecko/20100101 Firefox/119.0"
    v = verdict(fact(TTL, "128", 2, 20), fact(TCP_SYN_SIGNATURE, WIN_SYN, 75), said(USER_AGENT, ubuntu, 78))
    assert (v.primary_label, v.contested, v.confidence) == ("Windows", False, 60)  # 50 against 20
    linux = next(c for c in v.candidates if c.label == "Linux")
    assert linux.reasons == (f"its User-Agent says Ubuntu: {ubuntu}, first in frame 78 (+20)",
                             f"its User-Agent says Ubuntu (first in frame 78) but its TCP SYN signature {WIN_SYN} "
                             "(first in frame 75) is the Windows stack's: a proxy or a spoofed User-Agent (+0)")


def test_only_a_ttl_of_64_is_unknown_with_its_reason():
    v = verdict(fact(TTL, "52", 9, 27))
    assert (v.primary_label, v.confidence, v.contested) == ("Unknown", 0, False)
    assert v.candidates[0].reasons[0].startswith("sends with TTL 52, first in frame 9 (initial 64, shared by")


def test_syn_ack_signatures_match_p0f_responses():
    synack = "14600:1460:7:mss,sok,ts,nop,ws"  # Linux answering: window 10 MSS, in p0f's response table
    windows = fact(TCP_SYNACK_SIGNATURE, "8192:1460:8:mss,nop,ws,nop,nop,sok", 4)
    assert [(label, reason) for label, _, reason, _ in votes(syn_signature, [windows])] == [
        ("Windows", "its TCP SYN+ACK signature 8192:1460:8:mss,nop,ws,nop,nop,sok, first in frame 4, is the "
         "Windows stack's (p0f: Windows 7 or 8) (+40)")]
    assert [label for label, *_ in votes(syn_signature, [fact(TCP_SYNACK_SIGNATURE, synack, 4)])] == [
        "Linux", "Android", "ChromeOS"]


def test_syn_signature_needs_the_initial_ttl_p0f_gives(monkeypatch):
    # Windows' layout at initial TTL 64 is no Windows signature of p0f's
    assert votes(syn_signature, [fact(TTL, "64", 2, 5), fact(TCP_SYN_SIGNATURE, WIN_SYN, 3)]) == []


def test_without_the_p0f_file_syn_signatures_do_not_vote(monkeypatch, tmp_path, caplog):
    from tracepcap.scan import p0f
    monkeypatch.setenv(p0f.ENV_PATH, str(tmp_path / "absent.fp"))
    p0f._load.cache_clear()
    try:
        assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, WIN_SYN, 75)]) == []
        assert votes(syn_signature, [fact(TCP_SYN_SIGNATURE, LINUX_SYN, 75)]) == []
        assert sum("p0f signatures not available" in r.message for r in caplog.records) == 1
    finally:
        p0f._load.cache_clear()


def test_the_p0f_parser_reads_the_documented_format():
    from tracepcap.scan.p0f import parse
    db = parse("classes = win,unix\n[mtu]\nlabel = Ethernet\nsig = 1500\n[tcp:request]\n"
               "label = s:unix:Linux:3.11 and newer\nsig = *:64:0:*:mss*20,10:mss,sok,ts,nop,ws:df,id+:0\n"
               "label = s:!:NMap:SYN scan\nsys = @unix\nsig = *:64-:0:1460:1024,0:mss::0\n"
               "label = g:unix:Mac OS X:\nsig = *:64:0:*:65535,*:mss,nop,ws,nop,nop,ts,sok,eol+1:df,id+:0\n"
               "[http:request]\nlabel = s:!:curl:\n")
    assert [(str(s.label), s.window, s.scale, s.layout[-1]) for s in db.signatures["syn"]] == [
        ("Linux 3.11 and newer", "mss*20", 10, "ws"), ("Mac OS X", "65535", None, "eol")]
    assert db.match("syn", 29200, 1460, 10, ("mss", "sok", "ts", "nop", "ws"), 64).label.name == "Linux"
    assert db.match("syn", 29200, 1460, 10, ("mss", "sok", "ts", "nop", "ws"), 128) is None
    assert db.match("syn", 1024, 1460, 0, ("mss",), 64) is None  # a tool: skipped
    with pytest.raises(ValueError, match="line 3: bad signature"):
        parse("[tcp:request]\nlabel = s:unix:X:\nsig = 1:2\n")


def test_connectivity_probes_name_the_os_that_asked():
    from tracepcap.extract.kinds import DNS_QUERY
    from tracepcap.scan.signals.os_family import connectivity_check
    host = context({"h": [fact(DNS_QUERY, "connectivitycheck.gstatic.com", 7),
                          fact(DNS_QUERY, "www.example.com", 3)]}).host("h")
    assert [(v.label, v.weight, v.reason, v.grade) for v in connectivity_check.vote(host)] == [
        ("Android", 20, "it looked up connectivitycheck.gstatic.com, frame 7: Android's captive-portal check "
         "(+20)", "INFERRED")]
    apple = context({"h": [fact(DNS_QUERY, "captive.apple.com", 2)]}).host("h")
    assert [v.label for v in connectivity_check.vote(apple)] == ["Apple"]


def test_apple_only_mdns_services_vote_for_the_family():
    from tracepcap.extract.kinds import MDNS_SERVICE
    from tracepcap.scan.signals.os_family import apple_services
    host = context({"h": [fact(MDNS_SERVICE, "Annas iPhone._companion-link._tcp.local", 5),
                          fact(MDNS_SERVICE, "Annas iPhone._airplay._tcp.local", 4)]}).host("h")
    assert [(v.label, v.weight, v.reason) for v in apple_services.vote(host)] == [
        ("Apple", 20, "announces _companion-link._tcp over mDNS, frame 5: Apple's Continuity companion link, "
         "which only Apple's systems announce (+20)")]
    airplay = context({"h": [fact(MDNS_SERVICE, "Kitchen._airplay._tcp.local", 4)]}).host("h")
    assert list(apple_services.vote(airplay)) == []  # other makers' TVs and speakers announce AirPlay
