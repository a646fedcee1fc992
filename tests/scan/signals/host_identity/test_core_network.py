"""host-identity of mobile-core network functions, on facts made by hand."""

from __future__ import annotations

from support.facts import EVERYTHING, fact, votes

from tracepcap.extract.kinds import INITIATED, SERVED
from tracepcap.scan.signals import discover
from tracepcap.scan.signals.host_identity import core_network


def test_core_network_is_discovered():
    assert core_network.vote in discover("host_identity")


def test_a_pfcp_initiator_is_a_core_function():
    """free5gc.pcap: the SMF opens PFCP to the UPF in frame 1."""
    assert votes(core_network, [fact(INITIATED, "udp/8805", 1), fact(INITIATED, "udp/2152", 249)], EVERYTHING) == [
        ("Server", 45, "opened PFCP on udp/8805 (frame 1): mobile-core signalling, spoken by core "
         "network functions (+45)", "MEASURED", (1,))]


def test_every_protocol_spoken_is_named_in_frame_order():
    facts = [fact(SERVED, "sctp/38412", 9), fact(INITIATED, "tcp/3868", 4), fact(SERVED, "udp/2123", 2)]
    assert votes(core_network, facts, EVERYTHING) == [
        ("Server", 45, "answered GTP-C on udp/2123 (frame 2), opened Diameter on tcp/3868 (frame 4), "
         "answered NGAP on sctp/38412 (frame 9): mobile-core signalling, spoken by core network "
         "functions (+45)", "MEASURED", (2, 4, 9))]


def test_a_base_station_opening_ngap_is_no_core_function():
    assert votes(core_network, [fact(INITIATED, "sctp/38412", 3), fact(INITIATED, "sctp/36412", 5)], EVERYTHING) == []
