"""A capture's credentials: the logins clients sent where the capture could read them, with
the secret masked (it was never stored), read-only and paginated."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from ...deps import CaptureDep, PageDep, SessionDep, Viewer
from ...read.credentials import credentials
from ...read.hosts import require_host
from ..offloop import OffLoopJsonRoute

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["credentials"], dependencies=[Viewer])


class CredentialOut(BaseModel):
    """One login: protocol, user, client device, server, the masked secret, its frames."""
    model_config = ConfigDict(from_attributes=True)
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
