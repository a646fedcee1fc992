"""The identity builders and corpus, judged by tshark's dissectors, and the cross-check
script at 0 misses on the corpus."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tracepcap.testing import identity_corpus

FIELDS = ["frame.number", "_ws.malformed", "browser.server", "browser.os_major", "dns.txt",
          "http.user_agent", "dhcp.option.vendor_class_id", "dhcp.option.user_class.text",
          "dhcp.client_id.iaid", "dhcpv6.vendorclass.enterprise", "dhcpv6.iaaddr.ip",
          "wg.type", "openvpn.opcode", "isakmp.exchangetype", "esp.spi", "l2tp.avp.host_name",
          "snmp.community", "ntlmssp.auth.username", "pop.request.parameter",
          "imap.request", "ftp.request.arg", "http.authbasic", "ip.checksum.status",
          "udp.checksum.status"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return identity_corpus.build(tmp_path_factory.mktemp("identity") / "corpus.pcap")


@pytest.fixture(scope="module")
def dissected(corpus):
    args = ["tshark", "-n", "-r", str(corpus), "-o", "ip.check_checksum:TRUE",
            "-o", "udp.check_checksum:TRUE", "-T", "fields", "-E", "aggregator=|",
            *(arg for name in FIELDS for arg in ("-e", name))]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, line.split("\t"))) for line in out.splitlines()]


def values(dissected, field: str) -> set[str]:
    return {row[field] for row in dissected if row[field]}


@pytest.mark.parametrize("field, expected", [
    ("browser.server", {"DESKTOP-21"}), ("browser.os_major", {"10"}),
    ("http.user_agent", {"Google Chrome/120.0.6099.71 Mac OS X",
                         "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Edge/120", "curl/8.4.0"}),
    ("dhcp.option.vendor_class_id", {"dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835", "MSFT 5.0"}),
    ("dhcp.client_id.iaid", {"8f9aaebd"}), ("dhcp.option.user_class.text", {"corp-laptops"}),
    ("dhcpv6.vendorclass.enterprise", {"311"}), ("dhcpv6.iaaddr.ip", {"2001:db8::21"}),
    ("wg.type", {"1", "2"}), ("openvpn.opcode", {"0x07"}), ("isakmp.exchangetype", {"34"}),
    ("esp.spi", {"0x00002121"}), ("l2tp.avp.host_name", {"pi3"}), ("snmp.community", {"Secret-1"}),
    ("ntlmssp.auth.username", {"anna"}), ("ftp.request.arg", {"pi", "Secret-1"}),
    ("http.authbasic", {"admin:Secret-1"}),
])
def test_tshark_reads_what_was_built(dissected, field, expected):
    assert values(dissected, field) == expected


def test_mdns_txt_as_sent(dissected):
    txt = "|".join(values(dissected, "dns.txt"))
    assert "model=iMac20,1" in txt and "ty=HP LaserJet 400 M401dne" in txt and "md=Chromecast Ultra" in txt


def test_nothing_is_malformed_and_checksums_hold(dissected):
    for row in dissected:
        assert row["_ws.malformed"] == "", row["frame.number"]
        assert set(filter(None, row["ip.checksum.status"].split("|"))) <= {"1"}, row["frame.number"]
        assert set(filter(None, row["udp.checksum.status"].split("|"))) <= {"1"}, row["frame.number"]


def test_crosscheck_finds_no_miss_on_the_corpus(corpus):
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "tshark_crosscheck.py"
    spec = importlib.util.spec_from_file_location("tshark_crosscheck", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    rows = {row.kind: row for row in module.crosscheck(corpus)}
    assert {kind: row.misses for kind, row in rows.items() if row.misses} == {}
    assert rows["vpn endpoint"].matched == 10 and rows["credential user"].matched == 3
    assert rows["http host"].by_design == 2  # "10.0.0.40:1400" and "10.0.0.1": address literals
