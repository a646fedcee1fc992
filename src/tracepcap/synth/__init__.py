"""Synthetic captures with known truth: writers, frame and payload builders, scenarios.

Test doubles for the whole pipeline (STYLE.md: "a synthetic capture builder"); it never
reads captures and nothing in the product depends on it.
"""

from tracepcap.synth.scenario import (ANDROID_SYN, IOS_SYN, LINUX_SYN, MACOS_SYN,
                                      WINDOWS_SYN, Host, Scenario, SynSignature)
from tracepcap.synth.writers import PcapngWriter, PcapWriter

__all__ = ["ANDROID_SYN", "IOS_SYN", "LINUX_SYN", "MACOS_SYN", "WINDOWS_SYN", "Host",
           "PcapWriter", "PcapngWriter", "Scenario", "SynSignature"]
