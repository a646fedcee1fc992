"""TracePcap: packet captures in, an inventory of hosts with explained verdicts out."""

__version__ = "0.1.0"
