"""TracePcap: packet captures in, an inventory of hosts with explained verdicts out."""

import os as _os

__version__ = "0.1.0"

if _os.environ.get("TRACEPCAP_PURE") == "1":  # run the .py files even where compiled (_pure.py)
    from . import _pure

    _pure.install()
