"""A capture's notices: traffic that violated its protocol, read-only and paginated."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...deps import CaptureDep, PageDep, SessionDep, Viewer
from ...read.notices import NoticeEntry, notice_page
from ..offloop import OffLoopJsonRoute
from ..schemas import NoticeOut

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["notices"], dependencies=[Viewer])


@router.get("/notices", response_model=list[NoticeOut])
def list_notices(capture: CaptureDep, session: SessionDep, page: PageDep,
                 kind: Annotated[str | None, Query(max_length=64, description="e.g. kerberos-truncated")] = None,
                 ) -> tuple[NoticeEntry, ...]:
    """The stored notices in frame order (the first of the capture's, up to the extract limit;
    the capture's `notice_counts` counts every one); `X-Total-Count` holds the number matching."""
    found = notice_page(session, capture.id, kind=kind, offset=page.offset, limit=page.limit)
    page.total(found.total)
    return found.items
