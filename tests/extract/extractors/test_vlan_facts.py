"""`vlan` facts: the 802.1Q tag (QinQ: outer.inner) each address's frames carried, with
first/last frame and count, as tshark reads the same tags; none for an untagged capture."""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict

from tracepcap.extract.extractors.link_identity import LinkIdentity
from tracepcap.extract.kinds import VLAN
from tracepcap.testing import vlans

TSHARK = shutil.which("tshark") or "/usr/bin/tshark"


def tshark_vlans(path) -> dict[tuple[str, str], list[int]]:
    """(source address, "outer.inner" or "vid") -> the frame numbers, as tshark reads them."""
    out = subprocess.run([TSHARK, "-n", "-r", str(path), "-T", "fields", "-e", "frame.number", "-e", "ip.src",
                          "-e", "ieee8021ad.id", "-e", "vlan.id"], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    seen: dict[tuple[str, str], list[int]] = defaultdict(list)
    for line in out.splitlines():
        number, src, outer, inner = line.split("\t")
        tags = [t for t in (outer, inner) if t]
        if src and tags:
            seen[(src, ".".join(tags))].append(int(number))
    return seen


def test_each_address_has_the_vlans_tshark_reads(run, rows, tmp_path):
    path = vlans.build(tmp_path / "trunk.pcap")
    facts = rows(run(path, LinkIdentity), VLAN.name)
    expected = {(src, VLAN.name, tags, "link-identity", min(frames), max(frames), len(frames))
                for (src, tags), frames in tshark_vlans(path).items()}
    assert facts == expected
    by_address = {entity: value for entity, _, value, *_ in facts}
    assert {by_address[ip] for ip in vlans.VLAN10} == {"10"}
    assert {by_address[ip] for ip in vlans.VLAN20} == {"20"}
    assert by_address["10.0.10.1"] == "10" and by_address["10.0.20.1"] == "20"  # one router MAC, two VLANs
    assert by_address[vlans.QINQ_HOST[0]] == "100.30"  # 802.1ad outer, 802.1Q inner
    assert by_address[vlans.REMOTE] == "10"  # reached through the router on VLAN 10


def test_an_untagged_capture_has_no_vlan_facts(run, rows, captures):
    result = run(captures / "dns_demo.pcap", LinkIdentity)
    assert rows(result, VLAN.name) == set() and rows(result, "mac")
