"""What is in a capture: packets and bytes by application, and how each was detected."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from ...deps import CaptureDep, PageDep, SessionDep, Viewer
from ...read.applications import applications
from ..offloop import OffLoopJsonRoute

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["applications"],
                   dependencies=[Viewer])


class ApplicationOut(BaseModel):
    """One application: how it was detected (by payload, by port, by protocol or
    unidentified), its server ports, its traffic and the devices on either side."""
    model_config = ConfigDict(from_attributes=True)
    name: str
    detected: str
    ports: list[str]
    conversations: int
    packets: int
    bytes: int
    clients: list[str]
    servers: list[str]
    client_count: int
    server_count: int
    first_frame: int


@router.get("/applications", response_model=list[ApplicationOut])
def list_applications(capture: CaptureDep, session: SessionDep, page: PageDep) -> list:
    """Applications by bytes, most first, counted from the stored conversations; `X-Total-Count`
    holds the number of applications."""
    found = applications(session, capture.id)
    page.total(len(found))
    return found[page.offset:page.offset + page.limit]
