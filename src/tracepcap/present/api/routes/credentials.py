"""A capture's credentials: the logins clients sent where the capture could read them, with
the secret masked (it was never stored), paginated; and an analyst's reveal of one secret,
re-read from the stored capture and audited (`credential.revealed`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict

from ....adjudicate.annotations import record_reveal
from ...deps import ActorDep, Analyst, CaptureDep, PageDep, SessionDep, SettingsDep, Viewer
from ...read.credentials import credentials, reveal
from ...read.hosts import require_host
from ..offloop import OffLoopJsonRoute

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["credentials"], dependencies=[Viewer])


class CredentialOut(BaseModel):
    """One login: protocol, user, client device, server, the masked secret, its frames."""
    model_config = ConfigDict(from_attributes=True)
    id: int
    protocol: str
    user: str | None
    client: str
    client_address: str
    server: str
    server_device: str | None
    port: int
    secret: str
    cleartext: bool
    text: str
    first_frame: int
    last_frame: int
    count: int


@router.get("/credentials", response_model=list[CredentialOut])
def list_credentials(capture: CaptureDep, session: SessionDep, page: PageDep,
                     device: Annotated[str | None, Query(max_length=64, description="the client's key, address or MAC")] = None,
                     protocol: Annotated[str | None, Query(max_length=32, description="e.g. ftp, http-form")] = None,
                     ) -> list:
    """The logins in frame order; the secret shows masked ("password ******") or as "no
    password seen": it is never stored. `X-Total-Count` holds the number matching."""
    key = require_host(session, capture.id, device) if device is not None else None
    found = credentials(session, capture.id, device=key, protocol=protocol)
    page.total(len(found))
    return found[page.offset:page.offset + page.limit]


class RevealedOut(BaseModel):
    """One credential's secret, read again from the stored capture: the password, token or
    community as sent, or for a challenge-response the line a cracker reads (`format` says
    which: "cleartext", "hashcat -m 5600 (NetNTLMv2)", ...); null with `note` saying why."""
    model_config = ConfigDict(from_attributes=True)
    id: int
    protocol: str
    user: str | None
    server: str
    port: int
    text: str
    frame: int
    secret: str | None
    format: str | None
    note: str


@router.post("/credentials/{credential_id}/reveal", response_model=RevealedOut, dependencies=[Analyst])
def reveal_credential(capture: CaptureDep, session: SessionDep, settings: SettingsDep, actor: ActorDep,
                      credential_id: Annotated[int, Path(ge=1, le=2**62)]):
    """Reveal one credential's secret (the analyst role). Nothing is stored: the secret is read
    again from the credential's frames in the stored capture, and the reveal is written to the
    audit log (`credential.revealed`, with the actor and the time, never the secret). The role
    is checked before the request takes its write turn (a refusal records itself)."""
    found = reveal(session, settings.capture_dir, capture, credential_id, settings.extract_limits)
    record_reveal(session, actor, capture.id, credential=found.id, protocol=found.protocol, user=found.user,
                  server=found.server, port=found.port, frame=found.frame, shown=found.secret is not None)
    return found
