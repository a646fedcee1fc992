"""hostname: what is this host's name?

Names compare by their first label, case-folded (`ws-0042` and `WS-0042.corp.example` are one
candidate; the label shown is the most specific form). Signals: scan/signals/hostname/.
"""

from ...scan.names import name_key
from ..contract import Adjudicator, Tier

ADJUDICATOR = Adjudicator(
    question="hostname",
    title="Hostname",
    tier=Tier.DETERMINISTIC,
    labels=("Unknown",),  # names are free text: no vocabulary beyond "no name seen"
    contest_below=30,
    margin_for_full=40,  # one self-announced name (+30) over nothing is a confident answer
    label_key=name_key,
    position=20,
)
