"""vendor-model: who made this device, and which model is it, where the evidence names them?

The answer is "<vendor> <model>" ("D-Link DSP-W215", "TP-Link HS110") when the evidence names
a model, the vendor alone ("Edimax") when it names only the maker, Unknown otherwise. Signals:
scan/signals/vendor_model/ (the device knowledge base's vendor and model entries: default
host names, vendor clouds, mDNS/SSDP types, DHCP vendor classes, device makers' OUIs; and
the model identifiers Apple's devices announce). A chip or module maker (Espressif, Texas
Instruments) names no vendor of the device and does not vote. Names are free text: the
vocabulary is only "Unknown", and an analyst may write any vendor and model.
"""

from ..contract import Adjudicator, Tier

ADJUDICATOR = Adjudicator(
    question="vendor-model",
    title="Vendor and model",
    tier=Tier.DETERMINISTIC,
    labels=("Unknown",),
    contest_below=35,
    margin_for_full=60,  # the knowledge base's weights (host-identity's scale): two agreeing entries
    position=50,  # after the four questions every host is asked
)
