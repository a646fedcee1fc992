"""Hosts of a capture, their facts, and its conversations: read-only, paginated."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import AfterValidator

from ....store.models import Locality
from ....text import SEARCH
from ...deps import CaptureDep, PageDep, RegistryDep, SessionDep, Viewer
from ...read.captures import entity_findings, findings
from ...read.hosts import HostFilter, conversation_page, host_facts as facts_of, host_page, host_rows, require_host
from ..schemas import ConversationOut, FactOut, HostOut

router = APIRouter(prefix="/captures/{cid}", tags=["hosts"], dependencies=[Viewer])


@router.get("/hosts", response_model=list[HostOut])
def list_hosts(capture: CaptureDep, session: SessionDep, registry: RegistryDep, page: PageDep,
               q: Annotated[str | None, Query(description="part of an address, a MAC, an OUI vendor, a claimed name or a "
                                              f"verdict's label (at most {SEARCH.max_chars} characters)"),
                            AfterValidator(SEARCH.validator)] = None,
               locality: Annotated[Locality | None, Query(description="only hosts Scan placed there")] = None,
               finding: Annotated[bool, Query(description="only hosts a finding names")] = False,
               ) -> list[HostOut]:
    """Hosts in address order with their MACs, names, locality and verdict summaries;
    `X-Total-Count` holds the number of matching hosts."""
    found = host_page(session, registry, capture.id, HostFilter(text=q or "", locality=locality or "",
                                                                          mark="finding" if finding else ""),
                      offset=page.offset, limit=page.limit)
    page.total(found.total)
    return [HostOut.model_validate(row) for row in found.rows]


@router.get("/hosts/{ip}", response_model=HostOut)
def one_host(capture: CaptureDep, ip: str, session: SessionDep, registry: RegistryDep) -> HostOut:
    """One host or device, named by its key, any of its addresses or any of its MACs: its key,
    addresses, MACs, names, locality with its reason, the severest finding naming it, and
    verdict summaries."""
    key = require_host(session, capture.id, ip)
    flagged = entity_findings(findings(session, capture.id))
    return HostOut.model_validate(host_rows(session, registry, capture.id, [key], flagged)[0])


@router.get("/hosts/{ip}/facts", response_model=list[FactOut])
def host_facts(capture: CaptureDep, ip: str, session: SessionDep) -> list:
    """The facts of the host or device (all its addresses' and MACs'), with their grade and
    witness (frames, count, extractor)."""
    return facts_of(session, capture.id, ip)


@router.get("/conversations", response_model=list[ConversationOut])
def list_conversations(capture: CaptureDep, session: SessionDep, page: PageDep,
                       ip: Annotated[str | None, Query(max_length=45, description="either end")] = None,
                       port: Annotated[int | None, Query(ge=0, le=65535, description="either end")] = None,
                       proto: Annotated[str | None, Query(max_length=8, description="tcp, udp, ...")] = None,
                       ) -> list:
    """Conversations in the order they began; `X-Total-Count` holds the number matching."""
    total, rows = conversation_page(session, capture.id, ip=ip, port=port, proto=proto,
                                            offset=page.offset, limit=page.limit)
    page.total(total)
    return rows
