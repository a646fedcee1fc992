"""The software inventory over HTTP and in the JSON document: product, version and platform
per device from the facts Extract stored, paged, filtered by device, 4xx on bad input."""

from __future__ import annotations

from api_helpers import assert_error

from tracepcap.present.read.software import identify
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

UA = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/120.0.6099.71 Safari/537.36")


def test_products_and_versions_from_each_kind_of_evidence():
    assert identify("user-agent", UA) == ("Chrome", "120.0.6099", "Windows 10")
    assert identify("user-agent", "Wget/1.13 (linux-uclibc)") == ("Wget", "1.13", "Linux")
    assert identify("http-server", "Apache/2.4.41 (Ubuntu)") == ("Apache", "2.4.41", "Ubuntu")
    assert identify("ssh-banner", "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3") == ("OpenSSH", "9.6p1", "Ubuntu-3")
    assert identify("os-version", "10.0.19041", "ntlm") == ("Windows", "10.0.19041", None)
    assert identify("smb-lanman", "Samba 4.15.13") == ("Samba", "4.15.13", None)
    assert identify("dhcp-vendor-class", "dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835") == (
        "dhcpcd", "6.10.1", "Linux-4.9.57-v7+ armv7l BCM2835")
    assert identify("snmp-sysdescr", "Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), "
                    "Version 15.0(2)SE11, RELEASE SOFTWARE") == ("Cisco IOS Software", "15.0(2)SE11", None)
    assert identify("http-server", "nginx") == ("nginx", None, None)


def test_software_route_and_document(api, client, tmp_path):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    web = net.host("10.0.0.9", "00:1b:21:00:00:09")
    net.tcp_session(pc, web, 50001, 80, client=[app.http_request("GET", "/", "web", user_agent=UA)],
                    server=[app.http_response(server="nginx/1.24.0")])
    net.tcp_session(pc, web, 50002, 22, client=[app.ssh_banner("OpenSSH_for_Windows_8.1")],
                    server=[app.ssh_banner("OpenSSH_9.6p1", "Ubuntu-3")])
    cid = api.analyzed(client, net.write_pcap(tmp_path / "software.pcap"))

    response = client.get(f"/captures/{cid}/software")
    assert response.status_code == 200, response.text
    rows = {(r["product"], r["version"], r["seen_as"]): r for r in response.json()}
    assert response.headers["x-total-count"] == str(len(rows)) == "4"
    assert rows["Chrome", "120.0.6099", "HTTP client"]["platform"] == "Windows 10"
    assert rows["nginx", "1.24.0", "HTTP server"]["device"] == rows["OpenSSH", "9.6p1", "SSH"]["device"]
    assert rows["OpenSSH_for_Windows", "8.1", "SSH"]["device"] != rows["nginx", "1.24.0", "HTTP server"]["device"]
    first = rows["nginx", "1.24.0", "HTTP server"]
    assert first["text"] == "nginx/1.24.0" and first["first_frame"] >= 1

    one = client.get(f"/captures/{cid}/software", params={"device": "10.0.0.9", "limit": 1})
    assert one.headers["x-total-count"] == "2" and len(one.json()) == 1
    assert_error(client.get(f"/captures/{cid}/software", params={"device": "10.9.9.9"}), 404)
    assert_error(client.get(f"/captures/{cid}/software", params={"limit": "-1"}), 422)

    document = client.get(f"/captures/{cid}/export.json")
    assert document.status_code == 200
    hosts = {h["ip"]: h for h in document.json()["hosts"]}
    assert {s["product"] for s in hosts["10.0.0.9"]["software"]} == {"nginx", "OpenSSH"}
