"""The one resolver of what names an entity (issue 11): its key, any of its addresses, or any
of its MACs in a common spelling ("8C:FE:57:00:00:01", "8c-fe-57-00-00-01", "8cfe.5700.0001",
"mac-8c-fe-57-00-00-01") -> the entity's canonical key, or None."""

from __future__ import annotations

import contextlib
import ipaddress
import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..keys import mac_key
from .models import Entity, EntityMember

_MAC = re.compile(r"^(?:mac-)?([0-9a-f]{2})[:\-.]?([0-9a-f]{2})[:\-.]?([0-9a-f]{2})[:\-.]?"
                  r"([0-9a-f]{2})[:\-.]?([0-9a-f]{2})[:\-.]?([0-9a-f]{2})$")


def spellings(text: str) -> list[str]:
    """The member names `text` may stand for: itself, its normalised address, its MAC key."""
    text = text.strip()
    out = [text]
    with contextlib.suppress(ValueError):
        out.append(str(ipaddress.ip_address(text)))
    if m := _MAC.match(text.lower()):
        out.append(mac_key(":".join(m.groups())))
    return list(dict.fromkeys(out))


def resolve(session: Session, capture_id: str, text: str) -> str | None:
    """The canonical key of the entity `text` names in the capture, None if none."""
    if not text or len(text) > 64:
        return None
    if session.get(Entity, (capture_id, text)) is not None:
        return text
    names = spellings(text)
    return session.scalar(select(EntityMember.entity_key).where(
        EntityMember.capture_id == capture_id, EntityMember.member.in_(names)).limit(1))


def members_of(session: Session, capture_id: str, key: str) -> list[str]:
    """Every name of the entity: its key, its addresses and its MAC keys."""
    names = session.scalars(select(EntityMember.member).where(EntityMember.capture_id == capture_id,
                                                              EntityMember.entity_key == key)).all()
    return list(dict.fromkeys((key, *names)))
