"""Mobile-core signalling names a network function, which is a server whatever else it
looks like: PFCP (udp/8805) runs between an SMF and its UPFs, GTP-C (udp/2123) between MMEs,
SGWs and PGWs, Diameter (3868) between MMEs, HSSs and PCRFs, so both ends of each are core
functions. NGAP (sctp/38412) and S1AP (sctp/36412) are answered by an AMF or MME but opened
by base stations (gNB, eNodeB), so only answering them counts. Measured. A core function
talks to a handful of peers with little traffic: that made the SMF of free5gc.pcap look
like an IoT device before this signal."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import INITIATED, SERVED
from ...context import HostFacts
from ...vote import Vote

READS = (INITIATED, SERVED)  # it votes only from these: not run for a host with none

WEIGHT = 45  # above an announced service: a PFCP peer is a core function, nothing else
EITHER_END = {"udp/8805": "PFCP", "udp/2123": "GTP-C", "tcp/3868": "Diameter", "sctp/3868": "Diameter"}
ANSWERED_ONLY = {"sctp/38412": "NGAP", "sctp/36412": "S1AP"}


def vote(host: HostFacts) -> Iterator[Vote]:
    found = []  # (frame, protocol, port, how)
    for fact in host.facts(INITIATED):
        if fact.value in EITHER_END:
            found.append((fact.first_frame, EITHER_END[fact.value], fact.value, "opened"))
    for fact in host.served().values():
        if protocol := EITHER_END.get(fact.value) or ANSWERED_ONLY.get(fact.value):
            found.append((fact.first_frame, protocol, fact.value, "answered"))
    if not found:
        return
    found.sort()
    spoken = ", ".join(f"{how} {protocol} on {port} (frame {frame})" for frame, protocol, port, how in found)
    yield Vote("Server", WEIGHT, f"{spoken}: mobile-core signalling, spoken by core network functions "
               f"(+{WEIGHT})", Grade.MEASURED, tuple(frame for frame, *_ in found[:3]))
