"""A capture of 1,000 hosts straight in the store (no packets), for the topology tests, the
browser tests of a busy capture and scripts/screenshots.py: 200 on-link hosts in two /24s
(10.1.0.0/24: 150, 10.1.1.0/24: 50), 100 local-routed in 10.20.0.0/24, and 700 remote in 70
/24s that coarsen to 18 /16s; every local host talks to the gateway 10.1.0.1 and each on-link
host to two remote ones; host-identity votes over twelve labels, a MAC for each on-link host.
As Scan would (scan/entities.py), each on-link host is a device keyed by its MAC
(`mac-02-00-…`) and the others are keyed by their address: the votes are the entities'."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert

from tracepcap.keys import mac_key
from tracepcap.store.models import (
    Capture,
    CaptureStatus,
    Conversation,
    Entity,
    EntityMember,
    Host,
    ObservationRow,
    VoteRow,
)

CID = "d000000000000001"
GATEWAY = "10.1.0.1"
LABELS = ("Router", "Printer", "Workstation", "Web Server", "DNS Server", "Mobile", "Camera", "Switch",
          "NAS", "Phone", "Television", "Thermostat")


def remote(j: int, k: int) -> str:
    """The k-th host (0..9) of the j-th remote /24 (0..69)."""
    return f"{52 + j // 20}.{j // 4 % 5}.{j}.{k + 1}"


def hosts() -> list[tuple[str, str]]:
    out = [(f"10.1.0.{i + 1}", "on-link") for i in range(150)] + [(f"10.1.1.{i + 1}", "on-link") for i in range(50)]
    out += [(f"10.20.0.{i + 1}", "local-routed") for i in range(100)]
    out += [(remote(j, k), "remote") for j in range(70) for k in range(10)]
    return out


def mac(i: int) -> str:
    """The MAC of the i-th host (on-link ones only have one)."""
    return f"02:00:00:00:{i // 256:02x}:{i % 256:02x}"


def key(i: int, ip: str, place: str) -> str:
    """The entity key of the i-th host: its MAC's key on-link, else its address."""
    return mac_key(mac(i)) if place == "on-link" else ip


def store(db) -> None:
    """Store the capture (id CID) in `db`: its hosts, devices, facts, votes and conversations,
    not yet adjudicated (the kit runs no stage: tests/support/campus.py adjudicates it)."""
    everyone = hosts()
    with db.session() as s:
        s.add(Capture(id=CID, sha256="d" * 64, name="campus.pcap", size=1, format="pcap", status=CaptureStatus.DONE,
                      progress_bytes=1, uploaded_at=datetime.now(UTC), uploaded_by="alice"))
        s.flush()
        s.execute(insert(Host), [{"capture_id": CID, "ip": ip, "position": i, "locality": place,
                                  "locality_reason": f"test: {place}"} for i, (ip, place) in enumerate(everyone)])
        s.execute(insert(Entity), [{"capture_id": CID, "key": key(i, ip, place), "position": i, "ip": ip,
                                    "addresses": [ip], "macs": [mac(i)] if place == "on-link" else [],
                                    "locality": place, "locality_reason": f"test: {place}", "randomised": False}
                                   for i, (ip, place) in enumerate(everyone)])
        s.execute(insert(EntityMember), [{"capture_id": CID, "member": member, "entity_key": key(i, ip, place)}
                                         for i, (ip, place) in enumerate(everyone)
                                         for member in dict.fromkeys((key(i, ip, place), ip))])
        facts, votes, talks = [], [], []
        for i, (ip, place) in enumerate(everyone):
            if place == "on-link":
                facts.append({"capture_id": CID, "entity": ip, "kind": "mac", "value": mac(i),
                              "source": "link-identity", "grade": "MEASURED", "first_frame": i + 1, "last_frame": i + 1,
                              "count": 1, "first_time": 0.0, "last_time": 0.0, "extractor": "link-identity",
                              "extractor_version": "1"})
            label = LABELS[i % len(LABELS)]
            votes.append({"capture_id": CID, "question": "host-identity", "entity_key": key(i, ip, place), "signal": "s",
                          "label": label, "weight": 50, "reason": f"says {label} (+50)", "grade": "MEASURED",
                          "frames": [i + 1]})
            peers = []
            if place != "remote" and ip != GATEWAY:
                peers.append((GATEWAY, 1000 + i))
            if place == "on-link":
                peers += [(remote(i % 70, i % 10), 50_000 * (i % 7 + 1)), (remote((i * 3) % 70, (i + 1) % 10), 700)]
            for n, (peer, size) in enumerate(peers):
                talks.append({"capture_id": CID, "proto": "tcp", "src": ip, "sport": 40000 + n, "dst": peer,
                              "dport": 443, "first_time": 0.0, "last_time": 1.0, "first_frame": i + 1,
                              "packets_fwd": 3, "bytes_fwd": size, "packets_rev": 3, "bytes_rev": size,
                              "initiator": ip})
        s.execute(insert(ObservationRow), facts)
        s.execute(insert(VoteRow), votes)
        s.execute(insert(Conversation), talks)
