"""Hosts of a capture, their facts, and its conversations: read-only, paginated."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import AfterValidator

from ....text import SEARCH
from ... import queries
from ..deps import CaptureDep, PageDep, RegistryDep, SessionDep, Viewer
from ..schemas import ConversationOut, FactOut, HostOut

router = APIRouter(prefix="/captures/{cid}", tags=["hosts"], dependencies=[Viewer])


@router.get("/hosts", response_model=list[HostOut])
def list_hosts(capture: CaptureDep, session: SessionDep, registry: RegistryDep, page: PageDep,
               q: Annotated[str | None, Query(description="part of an address, a claimed name or a verdict's "
                                              f"label (at most {SEARCH.max_chars} characters)"),
                            AfterValidator(SEARCH.validator)] = None) -> list[dict]:
    """Hosts in address order with their MACs, names and verdict summaries; `X-Total-Count`
    holds the number of matching hosts."""
    total, hosts = queries.host_page(session, registry, capture.id, q=q, offset=page.offset, limit=page.limit)
    page.total(total)
    return hosts


@router.get("/hosts/{ip}/facts", response_model=list[FactOut])
def host_facts(capture: CaptureDep, ip: str, session: SessionDep) -> list:
    """The host's facts with their grade and witness (frames, count, extractor)."""
    return queries.host_facts(session, capture.id, ip)


@router.get("/conversations", response_model=list[ConversationOut])
def list_conversations(capture: CaptureDep, session: SessionDep, page: PageDep,
                       ip: Annotated[str | None, Query(max_length=45, description="either end")] = None,
                       port: Annotated[int | None, Query(ge=0, le=65535, description="either end")] = None,
                       proto: Annotated[str | None, Query(max_length=8, description="tcp, udp, ...")] = None,
                       ) -> list:
    """Conversations in the order they began; `X-Total-Count` holds the number matching."""
    total, rows = queries.conversation_page(session, capture.id, ip=ip, port=port, proto=proto,
                                            offset=page.offset, limit=page.limit)
    page.total(total)
    return rows
