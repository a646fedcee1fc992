"""What a human sends, checked before anything is written: the key names a question, capture
and host that exist; labels, prose and weights are within their rules (`tracepcap.text`)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound
from ...store.models import Capture, Entity
from ...text import LABEL, PROSE
from ..contract import Key
from ..registry import Registry


def check_key(session: Session, registry: Registry, key: Key) -> None:
    """NotFound naming what does not exist: the question, the capture or the entity."""
    registry.get(key.question)
    if session.get(Capture, key.capture_id) is None:
        raise NotFound(f"no capture {key.capture_id!r}")
    if session.get(Entity, (key.capture_id, key.entity_key)) is None:
        raise NotFound(f"no host or device {key.entity_key!r} in capture {key.capture_id}")


def label(label: str) -> str:
    """A label as stored: whitespace runs made one space; empty is refused."""
    clean = " ".join(LABEL.check("label", label or "").split())
    if not clean:
        raise InvalidAnnotation("label is required")
    return clean


def text(field: str, value: str) -> str:
    """Prose (a rationale, a reason) as stored: trimmed; empty is refused."""
    clean = PROSE.check(field, value or "").strip()
    if not clean:
        raise InvalidAnnotation(f"{field} is required")
    return clean


def weight(weight: int) -> int:
    """An evidence weight: an integer 1..100."""
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
        raise InvalidAnnotation(f"evidence weight must be 1..100 (got {weight!r})")
    return weight

