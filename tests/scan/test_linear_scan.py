"""Scan stays linear in the number of hosts: no signal or finding walks every host (or every
host's facts) once per host. Counted, not timed: the capture-wide walks must not grow with
the host count."""

from __future__ import annotations

from support.facts import fact

from tracepcap.adjudicate.registry import get_registry
from tracepcap.extract.kinds import HOSTNAME_CLAIM, MAC, TTL
from tracepcap.scan.context import CaptureContext, Fact, Traffic
from tracepcap.scan.findings import discover as discover_findings

ROUTER_MAC = "00:00:0c:00:00:01"


class CountingList(list):
    """The capture's host list, counting how often something walks all of it."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


class CountingFacts(dict):
    """The capture's facts by entity, counting walks over every entity."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()

    def items(self):
        type(self).walks += 1
        return super().items()

    def values(self):
        type(self).walks += 1
        return super().values()


def crowd(hosts: int) -> CaptureContext:
    """`hosts` addresses: on-link ones naming themselves by DHCP (every 50th claims a name a
    certificate server holds), remote ones behind one router MAC, and the router itself."""
    facts: dict[str, list[Fact]] = {"10.0.0.1": [fact(MAC, ROUTER_MAC, 1, 5), fact(TTL, "255", 1, 5)]}
    for i in range(hosts):
        if i % 3:
            ip = f"10.1.{i // 256}.{i % 256}"
            facts[ip] = [fact(MAC, f"02:00:00:00:{i // 256:02x}:{i % 256:02x}", i + 2),
                         fact(TTL, "64" if i % 2 else "128", i + 2),
                         fact(HOSTNAME_CLAIM, f"ws-{i if i % 50 else 0}", i + 2, source="dhcp")]
        else:
            ip = f"198.18.{i // 256}.{i % 256}"
            facts[ip] = [fact(MAC, ROUTER_MAC, i + 2), fact(TTL, "52", i + 2)]
    facts["10.0.0.9"] = [fact(MAC, "02:00:00:00:ff:09", 1),
                         fact(HOSTNAME_CLAIM, "ws-0.corp.example", 1, source="tls-certificate")]
    traffic = {ip: Traffic(conversations=1) for ip in facts}
    return CaptureContext("cap", CountingFacts(facts), traffic, CountingList(sorted(facts)))


def test_signals_and_findings_walk_all_hosts_a_constant_number_of_times():
    for hosts in (200, 2000):
        context = crowd(hosts)
        CountingList.walks = CountingFacts.walks = 0
        votes = 0
        for signals in get_registry().signals().values():
            for signal in signals:
                for ip in list.__iter__(context.hosts):  # the scan's own walk, not counted
                    votes += len(list(signal(context.host(ip))))
        findings = [f for finder in discover_findings() for f in finder(context)]
        assert votes > hosts  # the signals did run, and voted
        assert any(f.kind == "name-conflict" for f in findings)  # the shared name was seen
        # a handful of capture-wide walks (building the MAC and name indexes, each finding
        # once): a per-host rebuild would count one walk per host
        assert CountingList.walks + CountingFacts.walks <= 10, (hosts, CountingList.walks, CountingFacts.walks)


def test_name_holder_still_disputes_a_name_another_host_holds_by_certificate():
    from tracepcap.scan.signals.hostname import name_holder
    context = crowd(200)
    disputed = [v for v in name_holder.vote(context.host("10.1.0.50"))]
    assert [(v.label, v.weight) for v in disputed] == [("ws-0", name_holder.DISPUTE_WEIGHT)]
    assert "10.0.0.9 serves a certificate naming ws-0" in disputed[0].reason
    assert list(name_holder.vote(context.host("10.1.0.49"))) == []  # its name is its own
