"""The public test kit: synthetic captures with known truth (writers, frame and payload
builders, scenarios, seeded mutants).

It is public for the project's tests and benchmarks and for anyone testing a question plugin
against captures whose answers are known; it never reads captures. One product feature
depends on it: `tracepcap analyze` without a file analyzes the demo office LAN that
`tracepcap.testing.demo` builds, byte-identical on every build.
"""

from tracepcap.testing.scenario import (
                                        ANDROID_SYN,
                                        IOS_SYN,
                                        LINUX_SYN,
                                        MACOS_SYN,
                                        WINDOWS_SYN,
                                        Host,
                                        Scenario,
                                        SynSignature,
)
from tracepcap.testing.writers import PcapngWriter, PcapWriter

__all__ = ["ANDROID_SYN", "IOS_SYN", "LINUX_SYN", "MACOS_SYN", "WINDOWS_SYN", "Host",
           "PcapWriter", "PcapngWriter", "Scenario", "SynSignature"]
