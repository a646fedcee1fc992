"""A second module claiming the probe's question: start-up must refuse it."""

from tracepcap.adjudicate.contract import Adjudicator, Tier

ADJUDICATOR = Adjudicator(question="probe-parity", title="Parity again", tier=Tier.DETERMINISTIC,
                          labels=("even",), signals=())
