"""The seam between human annotations and networks over time (adjudicate/networks): after a
human acts on a capture of a network, what is carried through it is recomputed; a carried copy
removed by a human stops being carried from its capture on. networks builds on the ground
floor (`ledger`), not on annotations: the import runs one way."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .. import networks
from ..actor import Actor
from ..contract import Key, Verdict
from ..registry import Registry
from ..runner import stored_verdict


def carry_on(session: Session, registry: Registry, key: Key, verdict: Verdict, *,
             evidence_of: int | None = None) -> Verdict:
    """Recompute the capture's network, if any (`evidence_of`: only what is carried of that
    piece of analyst evidence, the one the human acted on); the key's verdict as it then stands."""
    if networks.network_of(session, key.capture_id) is None:
        return verdict
    networks.after_human_action(session, registry, key.capture_id, key, evidence_of=evidence_of)
    return stored_verdict(session, key) or verdict


def stop_if_carried(session: Session, row, *, actor: Actor) -> None:
    """`row` (an override, evidence or dismissal) is being removed by a human: if it is a
    carried copy, record that it is no longer carried from its capture on."""
    if getattr(row, "carried_from", None):
        networks.stop_carrying(session, row, actor=actor)
