"""TracePcap: packet captures in, an inventory of hosts with explained verdicts out."""

from . import _pure

__version__ = "0.1.0"

_pure.install()  # compiled hot-path modules only while they match their .py files (_pure.py)
