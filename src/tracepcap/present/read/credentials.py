"""The credentials of a capture: each login a client sent where the capture could read it
(the `credential` facts Extract stored), one entry per client device and login, with its
server and frames, as NetworkMiner's Credentials tab lists them. The secret was never stored:
an entry says only which kind of secret went ("password ******") or that none was seen."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...extract.extractors.credentials import CLEARTEXT, login_parts
from ...extract.kinds import CREDENTIAL
from ...store.models import Entity, EntityMember, ObservationRow


@dataclass(frozen=True, slots=True)
class Credential:
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
    stmt = (select(Entity.key, ObservationRow.entity, ObservationRow.value, ObservationRow.first_frame,
                   ObservationRow.last_frame, ObservationRow.count)
            .join(EntityMember, (EntityMember.capture_id == ObservationRow.capture_id)
                  & (EntityMember.member == ObservationRow.entity))
            .join(Entity, (Entity.capture_id == EntityMember.capture_id) & (Entity.key == EntityMember.entity_key))
            .where(ObservationRow.capture_id == capture_id, ObservationRow.kind == CREDENTIAL.name))
    if device is not None:
        stmt = stmt.where(Entity.key == device)
    merged: dict[tuple[str, str], list] = {}
    for key, member, value, first, last, count in session.execute(stmt):
        have = merged.get((key, value))
        if have is None:
            merged[key, value] = [member, first, last, count]
        else:  # the same login seen from two of the device's addresses
            if first < have[1]:
                have[0], have[1] = member, first
            have[2], have[3] = max(have[2], last), have[3] + count
    servers = _holders(session, capture_id, {login_parts(value)[3] for _, value in merged})
    out = []
    for (key, value), (member, first, last, count) in merged.items():
        proto, user, secret, server, port = login_parts(value)
        if protocol and proto != protocol:
            continue
        out.append(Credential(proto, user, key, member, server, servers.get(server), port, secret,
                              proto in CLEARTEXT, value, first, last, count))
    return sorted(out, key=lambda c: (c.first_frame, c.protocol, c.user or "", c.client, c.text))


def _holders(session: Session, capture_id: str, addresses: set[str]) -> dict[str, str]:
    """Address -> the inventory entity holding it, for the addresses that one holds."""
    if not addresses:
        return {}
    return dict(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
        EntityMember.capture_id == capture_id, EntityMember.member.in_(sorted(addresses)))).all())
