"""Where what a host says and what its packets show part ways: its User-Agent (REPORTED)
names a family its TCP SYNs (MEASURED) rule out, as when a proxy relays its clients'
requests or a browser is set to pose as another OS. The vote weighs nothing, both sides
have already voted, but it puts the disagreement in the reported family's reasons."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE, TTL, USER_AGENT
from ...context import HostFacts
from ...vote import Vote
from .syn_signature import stacks as measured_stacks
from .user_agent import reported_family

READS = (USER_AGENT,)  # it votes only from these: not run for a host with none
CONSULTS = (TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE, TTL)  # read only beside a kind of READS


def vote(host: HostFacts) -> Iterator[Vote]:
    user_agents = host.facts(USER_AGENT)
    stacks = list(measured_stacks(host)) if user_agents else []  # most hosts send no User-Agent
    if not stacks:
        return
    measured = {label for _, _, families, _, _ in stacks for label in families}
    syn, what, _, stack, _ = stacks[0]
    noted: set[str] = set()
    for fact in sorted(user_agents, key=lambda f: (f.first_frame, f.value)):
        found = reported_family(fact.value)
        if found is None or found[0] in measured or found[0] in noted:
            continue
        noted.add(found[0])
        yield Vote(found[0], 0, f"its User-Agent says {found[1]} (first in frame {fact.first_frame}) but "
                   f"its {what} signature {syn.value} (first in frame {syn.first_frame}) is {stack}'s: "
                   f"a proxy or a spoofed User-Agent (+0)", syn.grade, (fact.first_frame, syn.first_frame))
