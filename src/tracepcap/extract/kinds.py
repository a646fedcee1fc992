"""The catalogue of fact kinds: every kind Extract emits, with its fixed grade.

The one owner of kind names. Extractors declare the kinds they emit by importing them from
here; signals, findings, the audit writer and Present import them too, so a kind is spelled
once and a renamed or misspelt one fails at import instead of matching nothing. The names
are wire names (stored in `observation.kind`, returned in the JSON document): never rename
one without a migration. `tests/extract/test_kinds.py` proves that every kind here is
emitted by some extractor and that signals and findings read only kinds from here.
"""

from __future__ import annotations

from .facts import FactKind, Grade

# link layer and addressing
MAC = FactKind("mac", Grade.MEASURED)  #: a source MAC the host's packets carried
VLAN = FactKind("vlan", Grade.MEASURED)  #: "20", QinQ "100.20" (outer.inner): the tags its packets carried
OUI_VENDOR = FactKind("oui-vendor", Grade.INFERRED)  #: that MAC's registry vendor
TTL = FactKind("ttl", Grade.MEASURED)  #: an IP TTL / hop limit its packets arrived with
IP_MAC_BINDING = FactKind("ip-mac-binding", Grade.REPORTED)  #: ARP / ND: "this IP is at this MAC"
GRATUITOUS_ANNOUNCEMENT = FactKind("gratuitous-announcement", Grade.MEASURED)  #: unsolicited ARP/NA
TUNNEL_ENDPOINT = FactKind("tunnel-endpoint", Grade.MEASURED)  #: the outer end of a tunnel
#: "gtp-u between 10.200.200.1 and 10.200.200.102": an address seen inside that tunnel (its own network)
TUNNELLED = FactKind("tunnelled", Grade.MEASURED)
# issue 24: who owns a MAC (extractors/link_paths.py)
MAC_TTL = FactKind("mac-ttl", Grade.MEASURED)  #: "aa:..:ff 128": a MAC its unicasts came from, at that TTL
DST_MAC = FactKind("dst-mac", Grade.MEASURED)  #: a MAC an on-subnet client's unicasts to it went to
GATEWAY_OPTION = FactKind("gateway-option", Grade.REPORTED)  #: named by a DHCP router option; value: the server

# traffic
SERVED = FactKind("served", Grade.MEASURED)  #: "tcp/443": a port it answered on
INITIATED = FactKind("initiated", Grade.MEASURED)  #: "tcp/22": a port it opened connections to
#: "BitTorrent DHT udp/6881": an application recognised by its payload, on the client, any port
APPLICATION_USED = FactKind("application-used", Grade.MEASURED)
TCP_SYN_SIGNATURE = FactKind("tcp-syn-signature", Grade.MEASURED)  #: window:mss:scale:options
TCP_SYNACK_SIGNATURE = FactKind("tcp-synack-signature", Grade.MEASURED)  #: the same, of its SYN+ACKs
TLS_CLIENT_FINGERPRINT = FactKind("tls-client-fingerprint", Grade.MEASURED)  #: JA3 / JA4
DNS_QUERY = FactKind("dns-query", Grade.MEASURED)  #: a name it asked for
#: "session establishment request": a PFCP message it sent (a mobile core's SMF and UPF speak it)
PFCP_MESSAGE = FactKind("pfcp-message", Grade.MEASURED)
DNS_ANSWER_MAC = FactKind("dns-answer-mac", Grade.MEASURED)  #: a MAC a DNS server's answers came from
DNS_ANSWER_CONFLICT = FactKind("dns-answer-conflict", Grade.MEASURED)  #: two differing answers to one query
#: "api.dch.dlink.com": on an address, a name asked for that a DNS answer resolved to it through CNAMEs
RESOLVED_FROM = FactKind("resolved-from", Grade.REPORTED)
DNS_ZONE = FactKind("dns-zone", Grade.REPORTED)  #: a zone named by NOTIFY / AXFR / IXFR (source says which)

# what a host says about itself (names, software, platform)
HOSTNAME_CLAIM = FactKind("hostname-claim", Grade.REPORTED)  #: source says by which protocol
USER_AGENT = FactKind("user-agent", Grade.REPORTED)
HTTP_SERVER = FactKind("http-server", Grade.REPORTED)
TLS_SNI = FactKind("tls-sni", Grade.REPORTED)
SSH_BANNER = FactKind("ssh-banner", Grade.REPORTED)
DHCP_PARAMETER_LIST = FactKind("dhcp-parameter-list", Grade.REPORTED)  #: option 55, in order
DHCP_VENDOR_CLASS = FactKind("dhcp-vendor-class", Grade.REPORTED)  #: option 60 / DHCPv6 16
DHCP_USER_CLASS = FactKind("dhcp-user-class", Grade.REPORTED)  #: option 77
DHCP_CLIENT_ID = FactKind("dhcp-client-id", Grade.REPORTED)  #: option 61, by its type
DHCP_VENDOR_ENTERPRISE = FactKind("dhcp-vendor-enterprise", Grade.REPORTED)  #: DHCPv6 vendor class enterprise number
DEVICE_MODEL = FactKind("device-model", Grade.REPORTED)  #: a model a device announces (mDNS TXT, UPnP)
DEVICE_NAME = FactKind("device-name", Grade.REPORTED)  #: a friendly name it announces (Cast fn=, UPnP)
BROWSER_SERVER_TYPE = FactKind("browser-server-type", Grade.REPORTED)  #: Windows Browser announcement flags
CREDENTIAL = FactKind("credential", Grade.REPORTED)  #: a cleartext login, secret masked
MDNS_SERVICE = FactKind("mdns-service", Grade.REPORTED)
MDNS_QUERY = FactKind("mdns-query", Grade.MEASURED)  #: "_homekit._tcp": a DNS-SD service type it browsed for
SSDP_NT = FactKind("ssdp-nt", Grade.REPORTED)
SSDP_USN = FactKind("ssdp-usn", Grade.REPORTED)
SSDP_SERVER = FactKind("ssdp-server", Grade.REPORTED)
OS_VERSION = FactKind("os-version", Grade.REPORTED)  #: NTLMSSP / SMB native OS
SMB_LANMAN = FactKind("smb-lanman", Grade.REPORTED)
KRB_PRINCIPAL = FactKind("krb-principal", Grade.REPORTED)
SNMP_SYSDESCR = FactKind("snmp-sysdescr", Grade.REPORTED)
SNMP_SYSOBJECTID = FactKind("snmp-sysobjectid", Grade.REPORTED)
# LLDP and CDP share these (source "lldp" or "cdp")
LLDP_SOFTWARE = FactKind("lldp-software", Grade.REPORTED)  #: system description / software version
LLDP_PLATFORM = FactKind("lldp-platform", Grade.REPORTED)  #: LLDP-MED make and model / CDP platform
LLDP_CAPABILITIES = FactKind("lldp-capabilities", Grade.REPORTED)  #: "bridge,router"

CATALOGUE: dict[str, FactKind] = {
    kind.name: kind for kind in sorted(
        (value for value in tuple(globals().values()) if isinstance(value, FactKind)),
        key=lambda kind: kind.name)}

