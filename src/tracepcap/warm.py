"""Derive the reference data an analysis derives on first use (tracepcap/derived.py): the OUI
table, and every rule a User-Agent that no rule matches reaches (the first level of each of
Device Detector's rule lists). Set-up runs it once after an install (`python -m
tracepcap.warm`, from scripts/_venv.sh), so the first analysis on a new machine is as quick
as the next."""

from __future__ import annotations

from .derived import cache_dir
from .extract.extractors.link_identity import vendor_of
from .scan.signals.host_identity.user_agent_device import device_class


def warm() -> None:
    vendor_of("00:00:00:00:00:00")
    device_class("tracepcap-warm-up/1")


if __name__ == "__main__":
    warm()
    print(f"reference data derived in {cache_dir()}")
