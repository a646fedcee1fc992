"""A Domain Controller answers both Kerberos (88) and LDAP (389): either alone is weaker."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import SERVED
from ...context import HostFacts
from ...vote import Vote

READS = (SERVED,)  # it votes only from these: not run for a host with none

WEIGHT = 70
KERBEROS, LDAP = ("tcp/88", "udp/88"), ("tcp/389", "udp/389", "tcp/636", "tcp/3268")


def vote(host: HostFacts) -> Iterator[Vote]:
    served = host.served()
    kerberos = next((served[p] for p in KERBEROS if p in served), None)
    ldap = next((served[p] for p in LDAP if p in served), None)
    if kerberos and ldap:
        yield Vote("Domain Controller", WEIGHT, f"answers Kerberos on {kerberos.value} (frame "
                   f"{kerberos.first_frame}) and LDAP on {ldap.value} (frame {ldap.first_frame}) "
                   f"(+{WEIGHT})", Grade.MEASURED, (kerberos.first_frame, ldap.first_frame))
