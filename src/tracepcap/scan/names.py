"""Hostname comparison and the weight classes of hostname claim sources."""

from __future__ import annotations

from functools import lru_cache

#: a name in a certificate the host itself served: cryptographically backed
CERTIFICATE_SOURCES = frozenset({"tls-certificate"})
#: a name the host announced about itself
SELF_SOURCES = frozenset({"dhcp", "dhcpv6", "nbns", "browser", "llmnr", "mdns", "dns-update", "lldp", "cdp",
                          "ntlm", "snmp"})
#: what third parties said about it
THIRD_PARTY_SOURCES = frozenset({"dns-ptr", "dns-a", "dns-zone-transfer", "http-host"})


@lru_cache(maxsize=1 << 14)  # asked of every claim by signals, findings and adjudicate, many times each
def name_key(name: str) -> str:
    """`WS-0042.corp.example.` and `ws-0042` share the key `ws-0042`."""
    return name.strip().rstrip(".").split(".", 1)[0].casefold()


def _bare(name: str) -> str | None:
    """The name without `.local`; None when it names a domain beyond its first label."""
    labels = name.strip().rstrip(".").casefold().split(".")
    if labels[-1] == "local":
        labels = labels[:-1]
    return labels[0] if len(labels) == 1 else None


def same_name(a: str, b: str) -> bool:
    """Across hosts: `ws-0042` is `WS-0042.corp.example`, but `www.example.com` is not
    `www.intranet.corp.example`: first labels must agree, and full names too unless one is bare."""
    if name_key(a) != name_key(b):
        return False
    return _bare(a) is not None or _bare(b) is not None or \
        a.strip().rstrip(".").casefold() == b.strip().rstrip(".").casefold()


def specificity(name: str) -> int:
    """Labels in the name, a trailing `.local` (mDNS) not counted: it names no domain."""
    labels = name.rstrip(".").split(".")
    return len(labels) - (1 if len(labels) > 1 and labels[-1].lower() == "local" else 0)
