"""What tshark sees per address that TracePcap's facts lack: a parity check, not a timer.

For each capture, tshark's dissectors (`-T fields`) list identifying values per address,
and TracePcap's extract stage (all extractors, in process) lists its facts. Per fact kind
the script prints what tshark saw, what matched and what TracePcap missed, naming each
miss (address, value, frame). Values tshark saw but cannot tie to an address (a DHCP
request from 0.0.0.0 that no ACK or requested address resolves) are counted apart as
"unaddressed": tshark names no address either. HTTP Host names land on a server only
when it answered and the Host is not an address literal (the http extractor's rule);
requests without that are "by design".

    .venv/bin/python benchmarks/tshark_crosscheck.py                      # shared captures + corpus
    .venv/bin/python benchmarks/tshark_crosscheck.py some.pcap --show 20  # named captures

Exit status 1 when any kind has a miss.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tracepcap.extract.extractors.http import host_name
from tracepcap.extract.pipeline import extract
from tracepcap.testing import identity_corpus

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "captures"
SEP = "\x1f"  # tshark's aggregator for repeated fields: never inside a name or User-Agent
UNADDRESSED = "unaddressed"
Sighting = tuple[str, str, int]  # (address, value, frame)
ADDRESS_RECORD = re.compile(r"^(.*): type (?:A|AAAA), class IN(?:, cache flush)?, addr (\S+)$")


def tshark(path: Path, display_filter: str, fields: list[str]) -> Iterator[list[list[str]]]:
    """One row per matching frame: each field's occurrences as a list."""
    args = ["tshark", "-n", "-r", str(path), "-Y", display_filter, "-T", "fields",
            "-E", "occurrence=a", "-E", f"aggregator={SEP}", "-E", "separator=\t",
            *(arg for name in fields for arg in ("-e", name))]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        yield [cell.split(SEP) if cell else [] for cell in line.split("\t")]


def _first(cells: list[str]) -> str:
    return cells[0] if cells else ""


def _src(row: list[list[str]]) -> str:
    return _first(row[1]) or _first(row[2])  # ip.src, else ipv6.src


def _name(value: str) -> str:
    return value.strip().rstrip(".").casefold()


# --- what tshark sees, per kind ------------------------------------------------------------
def dhcp_client(path: Path, option: str) -> Iterator[Sighting]:
    """A DHCPv4 client's option, on its own address, or the one it was given or asked for."""
    leases = {}
    for row in tshark(path, "dhcp.option.dhcp == 5", ["dhcp.id", "dhcp.ip.your"]):
        leases.setdefault(_first(row[0]), _first(row[1]))
    query = f"dhcp.type == 1 && {option}"
    for row in tshark(path, query, ["frame.number", "ip.src", "dhcp.id", option,
                                    "dhcp.option.requested_ip_address", "dhcp.ip.client"]):
        frame, src, xid, values, requested, ciaddr = row
        address = _first(src)
        if address == "0.0.0.0":
            address = leases.get(_first(xid)) or _first(requested) or _first(ciaddr)
            if not address or address == "0.0.0.0":
                address = UNADDRESSED
        for value in values:
            yield address, value.rstrip("\x00"), int(_first(frame))


def dns_queries(path: Path) -> Iterator[Sighting]:
    query = "dns.flags.response == 0 && dns.flags.opcode == 0 && (udp.dstport == 53 || tcp.dstport == 53)"
    for row in tshark(path, query, ["frame.number", "ip.src", "ipv6.src", "dns.qry.name"]):
        for name in row[3]:
            yield _src(row), _name(name), int(_first(row[0]))


def tls_sni(path: Path) -> Iterator[Sighting]:
    query = "tls.handshake.type == 1 && tls.handshake.extensions_server_name"
    for row in tshark(path, query, ["frame.number", "ip.src", "ipv6.src",
                                    "tls.handshake.extensions_server_name"]):
        for name in row[3]:
            yield _src(row), _name(name), int(_first(row[0]))


def http_hosts(path: Path) -> Iterator[Sighting]:
    for row in tshark(path, "http.request && http.host && tcp",
                      ["frame.number", "ip.dst", "ipv6.dst", "http.host"]):
        for header in row[3]:
            yield _src(row), header, int(_first(row[0]))


def user_agents(path: Path) -> Iterator[Sighting]:
    for row in tshark(path, "http.request && http.user_agent",
                      ["frame.number", "ip.src", "ipv6.src", "http.user_agent"]):
        for agent in row[3]:
            yield _src(row), agent.strip(), int(_first(row[0]))


def mdns_names(path: Path) -> Iterator[Sighting]:
    """Each A/AAAA record of an mDNS response: its owner name on its address. Read from
    tshark's record summaries ("host.local: type A, class IN, cache flush, addr 10.0.0.5")
    because its per-field lists do not line up (NSEC type bitmaps add to dns.resp.type)."""
    args = ["tshark", "-n", "-r", str(path), "-Y", "mdns && dns.flags.response == 1",
            "-T", "json"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    for packet in json.loads(out or "[]"):
        layers = packet["_source"]["layers"]
        frame = int(layers["frame"]["frame.number"])
        for section in ("Answers", "Authoritative nameservers", "Additional records"):
            for summary in layers.get("mdns", {}).get(section, {}):
                if match := ADDRESS_RECORD.match(summary):
                    yield match.group(2), _name(match.group(1)), frame


def netbios_names(path: Path) -> Iterator[Sighting]:
    """NBNS registrations and positive answers of unique <00>/<20> names, and Browser
    host announcements."""
    query = ("nbns && ((nbns.flags.response == 0 && (nbns.flags.opcode == 5 || nbns.flags.opcode == 8 || "
             "nbns.flags.opcode == 9 || nbns.flags.opcode == 15)) || "
             "(nbns.flags.response == 1 && nbns.flags.opcode == 0 && nbns.flags.rcode == 0))")
    for row in tshark(path, query, ["frame.number", "nbns.name", "nbns.addr", "nbns.nb_flags.group"]):
        frame, names, addresses, groups = row
        for name, address, group in zip(names[-len(addresses):] if addresses else [], addresses, groups):
            match = re.match(r"(.*?)<(00|20)>", name)  # "PC<00> (Workstation/Redirector)"
            if match and group in ("0", "False"):
                yield address, _name(match.group(1)), int(_first(frame))
    for row in tshark(path, "(browser.command == 1 || browser.command == 15) && browser.server",
                      ["frame.number", "ip.src", "ipv6.src", "browser.server"]):
        for name in row[3]:
            yield _src(row), _name(name), int(_first(row[0]))


def credentials(path: Path) -> Iterator[Sighting]:
    """tshark's credentials tap (Wireshark's Tools > Credentials): packet and user name."""
    args = ["tshark", "-n", "-r", str(path), "-q", "-z", "credentials"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        match = re.match(r"(\d+)\s+(.+?)\s{2,}(\S+)", line)
        if match:
            yield "*", match.group(3), int(match.group(1))


def dhcpv6_vendor_class(path: Path) -> Iterator[Sighting]:
    """Option 16 of a client's own message (relayed ones land on the relay's peer-address)."""
    for row in tshark(path, "dhcpv6.vendorclass.data && dhcpv6.msgtype != 12",
                      ["frame.number", "ip.src", "ipv6.src", "dhcpv6.vendorclass.data"]):
        for data in row[3]:
            yield _src(row), data, int(_first(row[0]))


TUNNEL_PROTOCOLS = {"WireGuard": "wireguard", "OpenVPN": "openvpn", "ISAKMP": "ike",
                    "ESP": "esp", "L2TP": "l2tp"}


def vpn_endpoints(path: Path) -> Iterator[Sighting]:
    """Both ends of WireGuard handshakes, OpenVPN, IKE, ESP and L2TP packets."""
    query = "wg.type == 1 || wg.type == 2 || openvpn || isakmp || esp || l2tp"
    for row in tshark(path, query, ["frame.number", "ip.src", "ipv6.src", "ip.dst", "ipv6.dst",
                                    "_ws.col.Protocol"]):
        protocol = TUNNEL_PROTOCOLS.get(_first(row[5]))
        if protocol:
            frame = int(_first(row[0]))
            yield _src(row), protocol, frame
            yield _first(row[3]) or _first(row[4]), protocol, frame


def snmp_communities(path: Path) -> Iterator[Sighting]:
    for row in tshark(path, "snmp.community && (udp.dstport == 161 || udp.dstport == 162)",
                      ["frame.number", "ip.src", "ipv6.src"]):
        yield _src(row), "snmp community", int(_first(row[0]))


# --- what TracePcap has, per kind -----------------------------------------------------------
Facts = dict[tuple[str, str], set[str]]  # (entity, kind) -> values (sources: "kind/source")


@dataclass
class Check:
    kind: str
    seen: Callable[[Path], Iterator[Sighting]]
    has: Callable[[Facts, str, str], bool | None]  # None: by design not a fact


def _fact(kind: str, normalise: Callable[[str], str] = _name) -> Callable[[Facts, str, str], bool]:
    def has(facts: Facts, entity: str, value: str) -> bool:
        values = facts.get((entity, kind), set())
        return normalise(value) in {normalise(v) for v in values}
    return has


def _any_entity(kind: str) -> Callable[[Facts, str, str], bool]:
    def has(facts: Facts, entity: str, value: str) -> bool:
        return any(_name(value) == _name(v) for (e, k), vs in facts.items() if k == kind for v in vs)
    return has


def _http_host(facts: Facts, entity: str, value: str) -> bool | None:
    name = host_name(value)
    if name is None:
        return None  # an address literal names no host
    if name.casefold() in {v.casefold() for v in facts.get((entity, "hostname-claim/http-host"), set())}:
        return True
    return None if (entity, "answered") not in facts else False


def _tunnel(facts: Facts, entity: str, value: str) -> bool:
    return any(v.split(" ", 1)[0] == value for v in facts.get((entity, "tunnel-endpoint"), set()))


def _community(facts: Facts, entity: str, value: str) -> bool:
    return any(v.startswith("snmp community ") for v in facts.get((entity, "credential"), set()))


def _credential(facts: Facts, entity: str, value: str) -> bool:
    wanted = (f"user {value},", f"\\{value},")
    return any(any(w in v for w in wanted) for (e, k), vs in facts.items() if k == "credential"
               for v in vs)


CHECKS = (
    Check("dhcp host name", lambda p: dhcp_client(p, "dhcp.option.hostname"), _fact("hostname-claim/dhcp")),
    Check("dhcp vendor class", lambda p: dhcp_client(p, "dhcp.option.vendor_class_id"),
          _fact("dhcp-vendor-class", str)),
    Check("dns query", dns_queries, _fact("dns-query")),
    Check("tls sni", tls_sni, _fact("tls-sni")),
    Check("http host", http_hosts, _http_host),
    Check("user-agent", user_agents, _fact("user-agent", str)),
    Check("mdns name", mdns_names, _fact("hostname-claim/mdns")),
    Check("nbns/browser name", netbios_names,
          lambda f, e, v: _fact("hostname-claim/nbns")(f, e, v) or _fact("hostname-claim/browser")(f, e, v)),
    Check("credential user", credentials, _credential),
    Check("snmp community", snmp_communities, _community),
    Check("dhcpv6 vendor class", dhcpv6_vendor_class, _fact("dhcp-vendor-class", str)),
    Check("vpn endpoint", vpn_endpoints, _tunnel),
)


def tracepcap_facts(path: Path) -> Facts:
    result = extract(path, "crosscheck")
    facts: Facts = defaultdict(set)
    for o in result.observations:
        facts[(o.entity, o.kind)].add(o.value)
        if o.kind == "hostname-claim":
            facts[(o.entity, f"hostname-claim/{o.source}")].add(o.value)
        if o.kind == "served":
            facts[(o.entity, "answered")].add(o.value)
    return facts


@dataclass
class Row:
    kind: str
    seen: int = 0
    matched: int = 0
    unaddressed: int = 0
    by_design: int = 0
    misses: list[Sighting] = field(default_factory=list)


def crosscheck(path: Path) -> list[Row]:
    """Per kind: distinct (address, value) pairs tshark saw, and how TracePcap fared."""
    facts = tracepcap_facts(path)
    rows = []
    for check in CHECKS:
        row, first_frame = Row(check.kind), {}
        for address, value, frame in check.seen(path):
            if value:
                first_frame.setdefault((address, value), frame)
        for (address, value), frame in sorted(first_frame.items(), key=lambda p: p[1]):
            row.seen += 1
            if address == UNADDRESSED:
                row.unaddressed += 1
                continue
            found = check.has(facts, address, value)
            if found is None:
                row.by_design += 1
            elif found:
                row.matched += 1
            else:
                row.misses.append((address, value, frame))
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("captures", nargs="*", type=Path,
                        help="captures to check (default: every shared capture and the identity corpus)")
    parser.add_argument("--show", type=int, default=5, help="misses to list per kind")
    args = parser.parse_args(argv)
    captures = args.captures
    with tempfile.TemporaryDirectory() as tmp:
        if not captures:
            captures = sorted(p for p in SHARED.iterdir() if p.suffix in (".pcap", ".pcapng"))
            captures.append(identity_corpus.build(Path(tmp) / "identity_corpus.pcap"))
        total_misses = 0
        print(f"{'capture':<52} {'kind':<18} {'tshark':>6} {'match':>6} {'miss':>5} "
              f"{'unaddr':>6} {'design':>6}")
        for path in captures:
            for row in crosscheck(path):
                if not row.seen:
                    continue
                total_misses += len(row.misses)
                print(f"{path.name:<52} {row.kind:<18} {row.seen:>6} {row.matched:>6} "
                      f"{len(row.misses):>5} {row.unaddressed:>6} {row.by_design:>6}")
                for address, value, frame in row.misses[:args.show]:
                    print(f"    missed: {address} {value!r} (frame {frame})")
        print(f"total misses: {total_misses}")
    return 1 if total_misses else 0


if __name__ == "__main__":
    sys.exit(main())
