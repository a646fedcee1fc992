"""A probe question whose signal votes without a reason: the runner must refuse its verdicts."""

from tracepcap.adjudicate.contract import Adjudicator, Tier
from tracepcap.scan.vote import Vote


def mute(host):
    yield Vote("quiet", 10, "")


ADJUDICATOR = Adjudicator(question="probe-mute", title="Mute", tier=Tier.DETERMINISTIC,
                          labels=("quiet",), signals=(mute,))
