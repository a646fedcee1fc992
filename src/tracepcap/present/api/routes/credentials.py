"""A capture's credentials: the logins clients sent where the capture could read them, with
the secret masked (it was never stored), paginated; and an analyst's reveal of one secret,
re-read from the stored capture and audited (`credential.revealed`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict

from ... import reveals
from ...deps import ActorDep, Analyst, CaptureDep, DbDep, PageDep, SessionDep, SettingsDep, Viewer
from ...read.credentials import credentials
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
async def reveal_credential(request: Request, cid: str, db: DbDep,
                            settings: SettingsDep, actor: ActorDep, credential_id: Annotated[int, Path(ge=1, le=2**62)]):
    """Reveal one credential's secret (the analyst role). Nothing is stored: the secret is read
    again from the credential's frames in the stored capture, and the reveal is written to the
    audit log (`credential.revealed`, with the actor and the time, never the secret); the
    secret is returned only once that is committed. The credential is read in a read turn, the
    capture outside any (it may scan 65,536 frames), and only the audit row takes the write
    turn (`present.reveals`). The role is checked first (a refusal records itself)."""
    turns = request.app.state.turns
    async with turns.take(write=False):
        capture, login = await run_in_threadpool(reveals.read_login, db, cid, credential_id)
    found = await run_in_threadpool(reveals.read_secret, settings, capture, login)
    async with turns.take(write=True):
        await run_in_threadpool(reveals.audit, db, actor, capture.id, [found])
    return found
