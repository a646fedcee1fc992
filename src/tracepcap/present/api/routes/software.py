"""A capture's software inventory: what each device runs or serves, read-only and paginated."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...deps import CaptureDep, PageDep, SessionDep, Viewer
from ...read.hosts import require_host
from ...read.software import software
from ..offloop import OffLoopJsonRoute
from ..schemas import SoftwareOut

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["software"], dependencies=[Viewer])


@router.get("/software", response_model=list[SoftwareOut])
def list_software(capture: CaptureDep, session: SessionDep, page: PageDep,
                  device: Annotated[str | None, Query(max_length=64, description="a device's key, address or MAC")] = None,
                  ) -> list:
    """Each device's software (product, version, platform, how it was seen, the text and its
    frames), devices in inventory order; `X-Total-Count` holds the number of entries."""
    key = require_host(session, capture.id, device) if device is not None else None
    found = software(session, capture.id, key)
    page.total(len(found))
    return found[page.offset:page.offset + page.limit]
