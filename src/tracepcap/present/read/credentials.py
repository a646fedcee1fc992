"""The credentials of a capture: each login a client sent where the capture could read it
(the `credential` facts Extract stored), one entry per client device and login, with its
server and frames, as NetworkMiner's Credentials tab lists them. The secret was never stored:
an entry says only which kind of secret went ("password ******") or that none was seen.

`reveal` gives one entry's secret back without storing it: it re-reads the entry's first
frame from the stored capture and, for a TCP login, both directions of that connection's
first bytes from there on, and runs the extractor's own reading of them
(`credentials.stream_logins` / `datagram_logins` with reveal=True). It returns the secret, or
for a challenge-response the line a cracker reads (NetNTLMv1/v2 paired with the server's
CHALLENGE, Kerberos AS-REQ pre-auth). It needs no session: what it reads of the store
(`stored_login`) is read first, so no unit of work (on SQLite: no write lock) is held while
it scans up to REVEAL_SCAN frames. It reads only: the caller checks the role and writes the
audit event (`credential.revealed`, `present.reveals`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...errors import NotFound
from ...extract.decoders.tcp import FIN, RST
from ...extract.extractors.credentials import CLEARTEXT, datagram_logins, login_parts, stream_logins
from ...extract.frame_index import FrameCursor, FrameIndex
from ...extract.kinds import CREDENTIAL
from ...extract.packet import PROTO_TCP, PROTO_UDP, Packet
from ...limits import Limits
from ...store.models import Capture, Entity, EntityMember, ObservationRow
from .frames import capture_index, check_frame, decode

REVEAL_SCAN = 65_536  #: frames read past a TCP login's first frame for its connection's first bytes


@dataclass(frozen=True, slots=True)
class Credential:
    id: int  # the fact's id (of its earliest row): what a reveal names
    protocol: str  # "ftp", "http-form", "ntlm", ...
    user: str | None  # None: a community or a token names no user
    client: str  # the client device's inventory key
    client_address: str  # the address it sent the login from
    server: str  # the server's address
    server_device: str | None  # its inventory key, when it is in the inventory
    port: int
    secret: str  # masked: "password ******", "no password seen"
    cleartext: bool  # the secret went readable (not a hash or a challenge-response)
    text: str  # the fact's value
    first_frame: int
    last_frame: int
    count: int


def credentials(session: Session, capture_id: str, *, device: str | None = None,
                protocol: str | None = None) -> list[Credential]:
    """The capture's logins in frame order (of one client device, of one protocol)."""
    stmt = (select(Entity.key, ObservationRow.id, ObservationRow.entity, ObservationRow.value, ObservationRow.first_frame,
                   ObservationRow.last_frame, ObservationRow.count)
            .join(EntityMember, (EntityMember.capture_id == ObservationRow.capture_id)
                  & (EntityMember.member == ObservationRow.entity))
            .join(Entity, (Entity.capture_id == EntityMember.capture_id) & (Entity.key == EntityMember.entity_key))
            .where(ObservationRow.capture_id == capture_id, ObservationRow.kind == CREDENTIAL.name))
    if device is not None:
        stmt = stmt.where(Entity.key == device)
    merged: dict[tuple[str, str], list] = {}
    for key, row_id, member, value, first, last, count in session.execute(stmt):
        have = merged.get((key, value))
        if have is None:
            merged[key, value] = [member, first, last, count, row_id]
        else:  # the same login seen from two of the device's addresses
            if (first, row_id) < (have[1], have[4]):
                have[0], have[1], have[4] = member, first, row_id
            have[2], have[3] = max(have[2], last), have[3] + count
    servers = _holders(session, capture_id, {login_parts(value)[3] for _, value in merged})
    out = []
    for (key, value), (member, first, last, count, row_id) in merged.items():
        proto, user, secret, server, port = login_parts(value)
        if protocol and proto != protocol:
            continue
        out.append(Credential(row_id, proto, user, key, member, server, servers.get(server), port, secret,
                              proto in CLEARTEXT, value, first, last, count))
    return sorted(out, key=lambda c: (c.first_frame, c.protocol, c.user or "", c.client, c.text))


def _holders(session: Session, capture_id: str, addresses: set[str]) -> Mapping[str, str]:
    """Address -> the inventory entity holding it, for the addresses that one holds."""
    if not addresses:
        return {}
    return dict(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
        EntityMember.capture_id == capture_id, EntityMember.member.in_(sorted(addresses)))).all())


@dataclass(frozen=True, slots=True)
class Revealed:
    """One credential's secret, read again from the stored capture (never from the store)."""
    id: int
    protocol: str
    user: str | None
    server: str
    port: int
    text: str  # the fact's value, masked
    frame: int  # the frame the reading started at
    secret: str | None  # the password, token or community, or the cracker's line; None: not readable
    format: str | None  # "cleartext", "hashcat -m 5600 (NetNTLMv2)", ...
    note: str  # where it was read, or why there is nothing to show


def credential_row(session: Session, capture_id: str, credential_id: int) -> ObservationRow:
    row = session.get(ObservationRow, credential_id)
    if row is None or row.capture_id != capture_id or row.kind != CREDENTIAL.name:
        raise NotFound(f"capture {capture_id} has no credential {credential_id}")
    return row


@dataclass(frozen=True, slots=True)
class StoredLogin:
    """What a reveal reads of the store: the credential fact's id, value, sender and first frame."""
    id: int
    value: str
    entity: str  # the address that sent the login
    first_frame: int


def stored_login(session: Session, capture_id: str, credential_id: int) -> StoredLogin:
    row = credential_row(session, capture_id, credential_id)
    return StoredLogin(row.id, row.value, row.entity, row.first_frame)


def reveal(capture_dir: Path, capture: Capture, row: StoredLogin, limits: Limits = Limits()) -> Revealed:
    """The secret of one credential fact (`stored_login`), re-read from its frames in the
    stored capture. Reads the capture file only, never the store."""
    protocol, user, said, server, port = login_parts(row.value)
    path, index = capture_index(capture_dir, capture, limits)
    check_frame(index, capture, row.first_frame)
    frame = row.first_frame
    if said.startswith("no "):
        secret, form, note = None, None, f"{said}: there is nothing to reveal"
    else:
        secret, form, note = _read_again(path, index, row, server, port, limits)
    return Revealed(row.id, protocol, user, server, port, row.value, frame, secret, form, note)


def _read_again(path: Path, index: FrameIndex, row: StoredLogin, server: str, port: int,
                limits: Limits) -> tuple[str | None, str | None, str]:
    with FrameCursor(path, index) as cursor:
        frames = cursor.frames_from(row.first_frame)
        first = next(frames, None)
        pkt = decode(first, index)[0] if first is not None and first.number == row.first_frame else None
        if pkt is None or pkt.src != row.entity or pkt.dst != server or pkt.dport != port:
            return None, None, f"frame {row.first_frame} is not the login's packet from {row.entity}"
        if pkt.proto == PROTO_UDP:
            found = datagram_logins(server, port, bytes(pkt.payload or b""), reveal=True)
        elif pkt.proto == PROTO_TCP:
            sent, reply = _connection(pkt, frames, index, limits.stream_head_bytes)
            found = stream_logins(row.entity, server, port, sent, reply=reply, reveal=True)
        else:
            found = []
    match = next((f for f in found if f.value == row.value), None)
    if match is None:
        return None, None, f"the login was not found again from frame {row.first_frame}"
    if match.secret is None:
        why = "the server's challenge is not in the capture" if row.value.startswith("ntlm ") else \
            "the secret could not be read again"
        return None, None, f"{why} (read from frame {row.first_frame})"
    return match.secret, match.format, f"read again from frame {row.first_frame} of the stored capture"


def _connection(pkt: Packet, frames, index: FrameIndex, head_bytes: int) -> tuple[bytes, bytes]:
    """The first `head_bytes` each side of `pkt`'s TCP connection sent from `pkt` on, in
    sequence order (the client's from `pkt`'s own sequence number), read from at most
    REVEAL_SCAN further frames; each side ends at its FIN or RST, or at a hole."""
    client = (pkt.src, pkt.sport, pkt.dst, pkt.dport)
    server = (pkt.dst, pkt.dport, pkt.src, pkt.sport)
    sides: dict[tuple, _Side] = {client: _Side(pkt.seq), server: _Side(None)}
    sides[client].add(pkt, head_bytes)
    for count, frame in enumerate(frames):
        if count >= REVEAL_SCAN or all(side.done(head_bytes) for side in sides.values()):
            break
        if frame.number == pkt.frame:
            continue
        other = decode(frame, index)[0]
        if other is None or other.proto != PROTO_TCP:
            continue
        side = sides.get((other.src, other.sport, other.dst, other.dport))
        if side is not None:
            side.add(other, head_bytes)
    return sides[client].data(head_bytes), sides[server].data(head_bytes)


class _Side:
    """One direction's segments, by offset from its first data byte seen."""
    __slots__ = ("base", "segments", "closed")

    def __init__(self, base: int | None) -> None:
        self.base = base
        self.segments: dict[int, bytes] = {}
        self.closed = False

    def add(self, pkt: Packet, head_bytes: int) -> None:
        payload = bytes(pkt.payload or b"")
        if payload:
            if self.base is None:
                self.base = pkt.seq
            offset = (pkt.seq - self.base) & 0xFFFFFFFF
            if offset < head_bytes:
                self.segments.setdefault(offset, payload[:head_bytes - offset])
        if pkt.flags & (FIN | RST):
            self.closed = True

    def done(self, head_bytes: int) -> bool:
        return self.closed or sum(len(s) for s in self.segments.values()) >= head_bytes

    def data(self, head_bytes: int) -> bytes:
        out = bytearray()
        for offset in sorted(self.segments):
            if offset > len(out):
                break  # a hole
            out += self.segments[offset][len(out) - offset:]
        return bytes(out[:head_bytes])
