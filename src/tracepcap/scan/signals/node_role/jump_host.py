"""A jump host opens remote-administration sessions (SSH, RDP, WinRM) to many machines."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import INITIATED
from ...context import HostFacts
from ...vote import Vote

WEIGHT = 40
ADMIN_PORTS = {"tcp/22": "SSH", "tcp/3389": "RDP", "tcp/5985": "WinRM", "tcp/5986": "WinRM"}
MIN_TARGETS = 3


def vote(host: HostFacts) -> Iterator[Vote]:
    targets = host.traffic.admin_targets
    if len(targets) >= MIN_TARGETS:
        frames = tuple(f.first_frame for f in host.facts(INITIATED) if f.value in ADMIN_PORTS)
        services = sorted({ADMIN_PORTS[f.value] for f in host.facts(INITIATED) if f.value in ADMIN_PORTS})
        yield Vote("Jump Host", WEIGHT, f"opened {'/'.join(services)} sessions to {len(targets)} "
                   f"hosts (+{WEIGHT})", Grade.MEASURED, frames)
