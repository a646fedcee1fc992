"""A frame described for the packet view, by the decoders the extractors use (Present never
dissects a packet: it asks here and renders what comes back).

`describe(...)` decodes one frame and returns a `DescribedFrame`: the packet (None when it
does not decode, with the decoder's words), a one-line summary as a packet list shows it, and
its layers outermost first, each a `Layer` of (field, value) pairs in wire order - the frame
itself, the link, each tunnel's carrier, the network and transport headers, then the
application layer.

The application layer (`application(pkt)`) is read by the decoders the extractors use, never
by parsers of their own: DNS, mDNS and LLMNR, NBNS, DHCP, SSDP over UDP by their ports (the
ports the extractors ask for); DNS over TCP by port 53; HTTP/1.x, a TLS handshake or record
and an SSH identification over TCP by their first bytes, as the extractors recognise them.
One frame is all there is: a message spread over several segments shows what this one holds.
A payload of no protocol above is a "Data" layer with its length only; one that does not
decode whole shows the fields that did and an `error` field with the decoder's words.
Nothing here raises on wire bytes.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass

from ..visible import visible
from .decoders import DecodeError, Truncated, arp, dhcp, dns, ethernet, http, nbns, need, ssdp, ssh, tcp, tls
from .extractors.dhcp import CLIENT_PORT as DHCP_CLIENT
from .extractors.dhcp import SERVER_PORT as DHCP_SERVER
from .extractors.dns import DNS_PORT, LLMNR_PORT, MDNS_PORT
from .extractors.nbns import NBNS_PORT
from .extractors.ssdp import SSDP_PORT
from .extractors.tls_fingerprint import EXT_ALPN, EXT_SUPPORTED_VERSIONS
from .flows import PROTO_NAMES
from .packet import PROTO_TCP, PROTO_UDP, Packet, decode_frame

SHOWN = 20  #: questions, records or headers listed per section; the rest are counted
TEXT = 200  #: characters of one value shown
Fields = list[list[str]]  #: a layer's (field, value) pairs while it is read; frozen into a Layer

LINKTYPE_NAMES = {0: "BSD loopback", 1: "Ethernet", 9: "PPP", 50: "PPP in HDLC", 101: "raw IP",
                  104: "Cisco HDLC", 105: "IEEE 802.11", 108: "OpenBSD loopback", 113: "Linux cooked (SLL)",
                  127: "IEEE 802.11 + Radiotap", 192: "PPI", 228: "raw IPv4", 229: "raw IPv6",
                  239: "NFLOG", 276: "Linux cooked v2 (SLL2)"}
ETHERTYPE_NAMES = {0x0800: "IPv4", 0x86DD: "IPv6", 0x0806: "ARP", 0x8100: "802.1Q", 0x88CC: "LLDP",
                   0x8847: "MPLS", 0x8864: "PPPoE session", 0x6558: "Ethernet bridging"}
TCP_FLAGS = ((tcp.SYN, "SYN"), (tcp.ACK, "ACK"), (tcp.FIN, "FIN"), (tcp.RST, "RST"), (tcp.PSH, "PSH"))
DNS_FLAGS = ((0x0400, "authoritative"), (0x0200, "truncated"), (0x0100, "recursion desired"),
             (0x0080, "recursion available"), (0x0020, "authenticated data"), (0x0010, "checking disabled"))
DNS_RCODES = {0: "no error", 1: "format error", 2: "server failure", 3: "no such name", 4: "not implemented",
              5: "refused"}
DNS_CLASSES = {1: "IN", 3: "CH", 4: "HS", 255: "ANY"}
TLS_VERSIONS = {0x0300: "SSL 3.0", 0x0301: "TLS 1.0", 0x0302: "TLS 1.1", 0x0303: "TLS 1.2", 0x0304: "TLS 1.3"}
TLS_CONTENT = {20: "change cipher spec", 21: "alert", 22: "handshake", 23: "application data"}
TLS_HANDSHAKES = {1: "client hello", 2: "server hello", 4: "new session ticket", 8: "encrypted extensions",
                  11: "certificate", 12: "server key exchange", 13: "certificate request", 14: "server hello done",
                  15: "certificate verify", 16: "client key exchange", 20: "finished"}
HTTP_HEADERS = ("host", "user-agent", "server", "content-type", "content-length", "location")
SSDP_HEADERS = ("host", "nt", "nts", "st", "usn", "server", "location", "man")


@dataclass(frozen=True, slots=True)
class Layer:
    """One layer of a frame: its name and its (field, value) pairs in wire order."""

    name: str
    fields: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, name: str, fields: Fields) -> Layer:
        return cls(name, tuple((field, value) for field, value in fields))

    def values(self, field: str) -> tuple[str, ...]:
        """Every value of `field`, in order (a DNS answer, say, repeats)."""
        return tuple(value for name, value in self.fields if name == field)


@dataclass(frozen=True, slots=True)
class DescribedFrame:
    """One frame as the decoders read it: the packet (None when it did not decode, `error`
    says why), its one-line summary and its layers outermost first."""

    packet: Packet | None
    error: str | None
    summary: str
    layers: tuple[Layer, ...]
    linktype_name: str


def linktype_name(linktype: int) -> str:
    return LINKTYPE_NAMES.get(linktype, f"link type {linktype}")


def decode(linktype: int, data: bytes, number: int, ts: float, wire_len: int) -> tuple[Packet | None, str | None]:
    """The frame's packet as the decoders read it, or None and why not."""
    try:
        return decode_frame(linktype, memoryview(data), number, ts, wire_len), None
    except DecodeError as err:
        return None, visible(str(err))


def describe(linktype: int, data: bytes, number: int, ts: float, wire_len: int, interface: int = 0,
             decoded: tuple[Packet | None, str | None] | None = None) -> DescribedFrame:
    """The frame numbered `number` (its bytes `data`, `wire_len` long on the wire) described;
    `decoded`: what `decode` already made of it, so it is not decoded twice."""
    pkt, error = decoded if decoded is not None else decode(linktype, data, number, ts, wire_len)
    return DescribedFrame(pkt, error, summary(pkt, error),
                          tuple(layers(linktype, data, number, interface, wire_len, pkt, error)),
                          linktype_name(linktype))


def summary(pkt: Packet | None, error: str | None) -> str:
    """One line, as a packet list shows it."""
    if pkt is None:
        return f"not decoded: {error}"
    if pkt.src is None:
        message = _arp(pkt)
        if message is not None:
            if message.op == arp.REQUEST:
                return f"ARP who has {message.target_ip}? tell {message.sender_ip}"
            return f"ARP {message.sender_ip} is at {message.sender_mac.hex(':')}"
        return f"{pkt.src_mac_text or '?'} → {pkt.dst_mac.hex(':') if pkt.dst_mac else '?'} " \
               f"{ETHERTYPE_NAMES.get(pkt.ethertype, f'ethertype {pkt.ethertype:#06x}')}"
    proto = PROTO_NAMES.get(pkt.proto, f"ip proto {pkt.proto}").upper()
    text = f"{pkt.src} → {pkt.dst} {proto}"
    if pkt.sport or pkt.dport:
        text += f" {pkt.sport} → {pkt.dport}"
    if pkt.proto == 6:
        text += f" [{_flags(pkt.flags)}] seq={pkt.seq} ack={pkt.ack} win={pkt.window}"
    payload = len(pkt.payload) if pkt.payload is not None else 0
    text += f" len={payload}"
    if pkt.tunnel:
        text += " (in " + ", ".join(layer.text() for layer in pkt.tunnel) + ")"
    return text


def _flags(flags: int) -> str:
    return ",".join(name for bit, name in TCP_FLAGS if flags & bit) or "none"


def _arp(pkt: Packet):
    if pkt.ethertype != arp.ETHERTYPE_ARP or pkt.link is None:
        return None
    try:
        return arp.decode(pkt.link)
    except DecodeError:
        return None


def layers(linktype: int, data: bytes, number: int, interface: int, wire_len: int, pkt: Packet | None,
           error: str | None) -> list[Layer]:
    """The layers as our decoders read them, outermost first."""
    out = [Layer.of("Frame", [
        ["number", str(number)], ["interface", str(interface)],
        ["link type", f"{linktype} ({LINKTYPE_NAMES.get(linktype, 'unknown')})"],
        ["wire length", str(wire_len)], ["captured length", str(len(data))]])]
    if linktype == 1:
        try:
            dst, src, ethertype, _at, vlans = ethernet.decode(memoryview(data), 0)
            fields = [["destination", dst.hex(":")], ["source", src.hex(":")]]
            fields += [["vlan", str(v)] for v in vlans]
            fields.append(["ethertype", f"{ethertype:#06x} ({ETHERTYPE_NAMES.get(ethertype, 'other')})"])
            out.append(Layer.of("Ethernet", fields))
        except DecodeError:
            pass
    if pkt is None:
        out.append(Layer.of("Not decoded", [["error", error or ""]]))
        return out
    if linktype != 1 and pkt.src_mac is not None:
        out.append(Layer.of("Link", [["source MAC", pkt.src_mac_text or ""]]))
    chain = []
    carrier = pkt.outer
    while carrier is not None:
        chain.append(carrier)
        carrier = carrier.outer
    for outer, layer in zip(reversed(chain), pkt.tunnel or (), strict=False):
        out.append(_ip_layer(outer))
        out.append(Layer.of(f"Tunnel: {layer.kind}", [
            [k, v] for k, v in (("kind", layer.kind), ("identity", "" if layer.ident is None else str(layer.ident)),
                                ("note", layer.note)) if v]))
    if pkt.src is None:
        message = _arp(pkt)
        if message is not None:
            out.append(Layer.of("ARP", [
                ["operation", {arp.REQUEST: "request", arp.REPLY: "reply"}.get(message.op, str(message.op))],
                ["sender MAC", message.sender_mac.hex(":")], ["sender IP", message.sender_ip],
                ["target MAC", message.target_mac.hex(":")], ["target IP", message.target_ip]]))
        elif pkt.link is not None:
            out.append(Layer.of(ETHERTYPE_NAMES.get(pkt.ethertype, f"ethertype {pkt.ethertype:#06x}"),
                                [["payload length", str(len(pkt.link))]]))
        return out
    out.append(_ip_layer(pkt))
    if pkt.fragment:
        return out
    if pkt.proto == 6:
        out.append(Layer.of("TCP", [
            ["source port", str(pkt.sport)], ["destination port", str(pkt.dport)],
            ["flags", _flags(pkt.flags)], ["sequence", str(pkt.seq)], ["acknowledgement", str(pkt.ack)],
            ["window", str(pkt.window)], ["payload length", str(len(pkt.payload or b""))]]))
    elif pkt.proto == 17:
        out.append(Layer.of("UDP", [
            ["source port", str(pkt.sport)], ["destination port", str(pkt.dport)],
            ["payload length", str(len(pkt.payload or b""))]]))
    elif pkt.payload is not None:
        out.append(Layer.of(PROTO_NAMES.get(pkt.proto, f"IP protocol {pkt.proto}").upper(),
                            [["payload length", str(len(pkt.payload))]]))
    if pkt.proto in (6, 17):
        above = application(pkt)
        if above is not None:
            out.append(above)
    if pkt.inner_error is not None:
        out.append(Layer.of("Inner packet not decoded", [["error", visible(str(pkt.inner_error))]]))
    return out


def _ip_layer(pkt: Packet) -> Layer:
    v6 = ":" in (pkt.src or "")
    return Layer.of("IPv6" if v6 else "IPv4", [
        ["source", pkt.src or ""], ["destination", pkt.dst or ""], ["hop limit" if v6 else "TTL", str(pkt.ttl)],
        ["protocol", f"{pkt.proto} ({PROTO_NAMES.get(pkt.proto, 'other')})"],
        ["payload length", str(pkt.ip_len)], ["fragment", "yes" if pkt.fragment else "no"]])


# --- the application layer ------------------------------------------------------------------

def _text(value: object) -> str:
    return visible(str(value))[:TEXT]


def application(pkt: Packet) -> Layer | None:
    """The frame's application layer, or None for a frame without a transport payload."""
    payload = pkt.payload
    if pkt.src is None or pkt.fragment or not payload:
        return None
    data = bytes(payload)
    reader = _reader(pkt, data)
    if reader is None:
        return Layer.of("Data", [["length", str(len(data))]])
    name, read = reader
    fields: Fields = []
    try:
        read(data, fields)
    except DecodeError as err:
        fields.append(["error", _text(err)])
    except (ValueError, OSError, IndexError, struct.error) as err:  # a decoder's bug must not cost the page
        fields.append(["error", _text(f"{name}: {type(err).__name__}: {err}")])
    return Layer.of(name, fields)


def _reader(pkt: Packet, data: bytes) -> tuple[str, Callable[[bytes, Fields], None]] | None:
    ports = (pkt.sport, pkt.dport)
    if pkt.proto == PROTO_UDP:
        if DHCP_SERVER in ports or DHCP_CLIENT in ports:
            return "DHCP", _dhcp
        if MDNS_PORT in ports:
            return "mDNS", _dns
        if LLMNR_PORT in ports:
            return "LLMNR", _dns
        if DNS_PORT in ports:
            return "DNS", _dns
        if NBNS_PORT in ports:
            return "NBNS", _nbns
        if SSDP_PORT in ports:
            return "SSDP", _ssdp
        return None
    if pkt.proto != PROTO_TCP:
        return None
    if DNS_PORT in ports:
        return "DNS", _dns_tcp
    if http.starts_http(data):
        return "HTTP", _http
    if tls.is_handshake(data) or (len(data) >= 3 and data[0] in TLS_CONTENT and data[1] == 3):
        return "TLS", _tls
    if data.startswith(ssh.PREFIX):
        return "SSH", _ssh
    return None


# --- DNS and its kin ------------------------------------------------------------------------

def _dns(data: bytes, fields: Fields) -> None:
    msg, error = dns.read(data)
    _dns_fields(msg, fields)
    if error is not None:
        raise error


def _dns_tcp(data: bytes, fields: Fields) -> None:
    """A DNS message after its 2-byte length (RFC 1035 4.2.2); the first one in the segment."""
    if len(data) < dns.TCP_LENGTH.size:
        raise Truncated("dns-tcp", need=dns.TCP_LENGTH.size, have=len(data))
    length = dns.TCP_LENGTH.unpack_from(data, 0)[0]
    fields.append(["message length", str(length)])
    _dns(data[2:2 + length], fields)
    if len(data) - 2 < length:
        raise Truncated("dns-tcp", need=length, have=len(data) - 2)


def _dns_fields(msg: dns.Message, fields: Fields) -> None:
    flags = [name for bit, name in DNS_FLAGS if msg.flags & bit]
    fields += [["id", f"{msg.ident:#06x}"],
               ["flags", f"{msg.flags:#06x} ({', '.join(['response' if msg.response else 'query', *flags])})"],
               ["opcode", str(msg.opcode)]]
    if msg.response:
        fields.append(["rcode", f"{msg.rcode} ({DNS_RCODES.get(msg.rcode, 'other')})"])
    fields += [["questions", str(len(msg.questions))], ["answers", str(len(msg.answers))],
               ["authority", str(len(msg.authority))], ["additional", str(len(msg.additional))]]
    for q in msg.questions[:SHOWN]:
        fields.append(["question", _text(f"{q.name or '<root>'} {_rtype(q.qtype)} "
                                         f"{DNS_CLASSES.get(q.qclass & 0x7FFF, q.qclass & 0x7FFF)}")])
    for title, records in (("answer", msg.answers), ("authority record", msg.authority),
                           ("additional record", msg.additional)):
        for record in records[:SHOWN]:
            fields.append([title, _text(_record(record))])
        if len(records) > SHOWN:
            fields.append([title, f"… {len(records) - SHOWN} more"])


def _rtype(rtype: int) -> str:
    return dns.TYPE_NAMES.get(rtype, f"TYPE{rtype}")


def _record(record: dns.Record) -> str:
    if record.value is not None:
        value = record.value
    elif record.rtype == dns.TXT:
        value = " ".join(f'"{s}"' for s in dns.txt_strings(record.rdata))
    else:
        value = f"{len(record.rdata)} bytes"
    return f"{record.name or '<root>'} {_rtype(record.rtype)} {value} ttl {record.ttl}"


def _nbns(data: bytes, fields: Fields) -> None:
    msg = nbns.decode(data)
    fields += [["kind", "response" if msg.response else "query"], ["opcode", str(msg.opcode)]]
    if msg.response:
        fields.append(["rcode", str(msg.rcode)])
    if msg.question is not None:
        fields.append(["question", _text(f"{msg.question[0]}<{msg.question[1]:02x}>")])
    for title, entries in (("answer", msg.answers), ("additional record", msg.additional)):
        for entry in entries[:SHOWN]:
            fields.append([title, _text(f"{entry.name}<{entry.suffix:02x}> {'group' if entry.group else 'unique'} "
                                        f"{entry.address}")])


# --- DHCP -----------------------------------------------------------------------------------

def _dhcp(data: bytes, fields: Fields) -> None:
    msg, error = dhcp.read(data)
    kind = msg.msg_type
    fields += [["op", "request" if msg.op == dhcp.BOOTREQUEST else "reply"],
               ["message type", "none (BOOTP)" if kind is None else f"{kind} ({dhcp.MESSAGE_TYPES.get(kind, 'other')})"],
               ["transaction id", f"{msg.xid:#010x}"], ["client MAC", msg.chaddr.hex(":")],
               ["client address", msg.ciaddr], ["your address", msg.yiaddr], ["relay address", msg.giaddr]]
    options = msg.options
    readers = ((dhcp.OPT_CLIENT_ID, "client id", dhcp.client_id), (dhcp.OPT_HOSTNAME, "hostname", dhcp.text),
               (dhcp.OPT_CLIENT_FQDN, "client FQDN", dhcp.client_fqdn),
               (dhcp.OPT_REQUESTED_IP, "requested address", socket.inet_ntoa),
               (dhcp.OPT_PARAM_LIST, "parameter list", lambda b: ",".join(map(str, b))),
               (dhcp.OPT_VENDOR_CLASS, "vendor class", dhcp.text), (dhcp.OPT_USER_CLASS, "user class", dhcp.user_class))
    for code, title, read in readers:
        if code in options:
            try:
                fields.append([title, _text(read(options[code]))])
            except (DecodeError, ValueError, OSError) as err:  # one bad option costs only itself
                fields.append([title, _text(f"unreadable: {err}")])
    fields.append(["options", ",".join(map(str, options)) or "none"])
    if error is not None:
        raise error


# --- HTTP, TLS, SSH, SSDP -------------------------------------------------------------------

def _http(data: bytes, fields: Fields) -> None:
    try:
        msg, _ = http.decode_head(data)
        error = None
    except Truncated as err:  # the head goes on in a later segment: read the lines this one holds
        msg, _ = http.decode_head(data + b"\r\n\r\n")
        error = err
    if msg.request:
        fields += [["method", msg.method], ["target", _text(msg.target)]]
    else:
        fields.append(["status", str(msg.status)])
    for name in HTTP_HEADERS:
        value = msg.header(name)
        if value is not None:
            fields.append([name, _text(value)])
    fields.append(["headers", str(len(msg.headers))])
    if error is not None:
        fields.append(["error", _text(f"{error} (the head continues past this frame)")])


def _tls(data: bytes, fields: Fields) -> None:
    need("tls-record", data, 0, tls.RECORD.size)
    ctype, version, length = tls.RECORD.unpack_from(data, 0)
    fields += [["record", TLS_CONTENT.get(ctype, str(ctype))],
               ["record version", TLS_VERSIONS.get(version, f"{version:#06x}")], ["record length", str(length)]]
    if ctype != tls.HANDSHAKE:
        return
    messages = tls.handshake_messages(data)
    if not messages:
        raise Truncated("tls-handshake", need=4, have=len(data) - tls.RECORD.size)
    first = messages[0]
    fields.append(["handshake", TLS_HANDSHAKES.get(first.msg_type, str(first.msg_type))])
    if first.msg_type != tls.CLIENT_HELLO:
        return
    if not first.complete:
        raise Truncated("tls-client-hello", need=length, have=len(first.body))
    hello = tls.client_hello(first.body)
    fields.append(["version", f"{TLS_VERSIONS.get(hello.version, 'unknown')} ({hello.version:#06x})"])
    for name in tls.server_names(first.body):
        fields.append(["server name (SNI)", _text(name)])
    alpn = hello.extension(EXT_ALPN)
    if alpn is not None:
        fields.append(["ALPN", _text(",".join(p.decode("ascii", "replace") for p in tls.alpn_protocols(alpn)))])
    versions = hello.extension(EXT_SUPPORTED_VERSIONS)
    if versions is not None:
        listed = tls.u16_list(versions, 1)  # RFC 8446 4.2.1: a one-byte length, then 16-bit values
        fields.append(["supported versions", ",".join(TLS_VERSIONS.get(v, f"{v:#06x}") for v in listed)])
    fields += [["cipher suites", str(len(hello.ciphers))], ["extensions", str(len(hello.extensions))]]


def _ssh(data: bytes, fields: Fields) -> None:
    ident = ssh.decode(data)
    fields += [["protocol", _text(ident.proto)], ["software", _text(ident.software)]]
    if ident.comment:
        fields.append(["comment", _text(ident.comment)])


def _ssdp(data: bytes, fields: Fields) -> None:
    msg = ssdp.decode(data)
    fields += [["kind", msg.kind], ["start line", _text(msg.start_line)]]
    for name in SSDP_HEADERS:
        if name in msg.headers:
            fields.append([name, _text(msg.headers[name])])
