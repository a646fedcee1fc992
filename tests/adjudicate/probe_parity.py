"""A probe question that exists only in the test suite: is the last number of the address
even or odd? Registered through the `tracepcap.questions` entry point, the path any plugin
question uses; nothing outside tests/ knows it."""

from tracepcap.adjudicate.contract import Adjudicator, Tier
from tracepcap.scan.vote import Vote


def parity(host):
    last = int(host.ip.replace(":", ".").split(".")[-1] or 0, 16 if ":" in host.ip else 10)
    label = "even" if last % 2 == 0 else "odd"
    yield Vote(label, 50, f"address ends in {last} (+50)")


ADJUDICATOR = Adjudicator(question="probe-parity", title="Parity", tier=Tier.DETERMINISTIC,
                          labels=("even", "odd"), signals=(parity,))
