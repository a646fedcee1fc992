"""Hosts of a capture, their facts, and its conversations: read-only, paginated."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from pydantic import AfterValidator

from ....store.models import MAX_BIGINT, Locality
from ....text import SEARCH
from ...deps import CaptureDep, PageDep, RegistryDep, SessionDep, Viewer
from ...read.captures import entity_findings, findings
from ...read.hosts import ConversationEntry, HostFilter, conversation_page, host_page, host_rows, require_host
from ...read.hosts import host_facts as facts_of
from ...read.traffic import SORTS, normal_port
from ..offloop import OffLoopJsonRoute
from ..schemas import ConversationOut, FactOut, HostOut

HostSort = StrEnum("HostSort", {name: name for name in ("ip", *SORTS)})  # the listing's orders
router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["hosts"], dependencies=[Viewer])


@router.get("/hosts", response_model=list[HostOut])
def list_hosts(capture: CaptureDep, session: SessionDep, registry: RegistryDep, page: PageDep,
               q: Annotated[str | None, Query(description="part of an address, a MAC, an OUI vendor, a claimed name or a "
                                              f"verdict's label (at most {SEARCH.max_chars} characters)"),
                            AfterValidator(SEARCH.validator)] = None,
               locality: Annotated[Locality | None, Query(description="only hosts Scan placed there")] = None,
               finding: Annotated[bool, Query(description="only hosts a finding names")] = False,
               question: Annotated[str | None, Query(min_length=1, max_length=64,
                                                     description="a question key: with `answer`, `contested`, "
                                                                 "`human` or `stale`, only that question's verdicts "
                                                                 "count")] = None,
               answer: Annotated[str | None, Query(min_length=1, max_length=100,
                                                   description="only hosts whose uncontested answer to `question` "
                                                               "is this label")] = None,
               contested: Annotated[bool, Query(description="only hosts with a contested verdict")] = False,
               human: Annotated[bool, Query(description="only hosts with an answer a human gave")] = False,
               stale: Annotated[bool, Query(description="only hosts with a human answer whose facts moved")] = False,
               min_packets: Annotated[int, Query(ge=0, le=MAX_BIGINT, description="only hosts that sent and "
                                                 "received at least this many packets together")] = 0,
               port: Annotated[str | None, Query(max_length=9, description="only hosts that served this port: "
                                                 "`80` (TCP or UDP), `tcp/80` or `udp/53`")] = None,
               sort: Annotated[HostSort, Query(description="ip (default), packets, bytes or peers (largest first), "
                                               "first_seen or last_seen (earliest first)")] = HostSort.ip,
               desc: Annotated[bool, Query(description="reverse the order")] = False,
               ) -> list[HostOut]:
    """Hosts in address order (or `sort`'s) with their MACs, names, locality, traffic and
    verdict summaries, filtered as the web inventory filters them; `X-Total-Count` holds the
    number of matching hosts. `contested`, `human`, `stale` and `finding` are one choice each:
    at most one of them, and none with `answer`."""
    marks = [name for name, on in (("contested", contested), ("human", human), ("stale", stale),
                                   ("finding", finding)) if on]
    if len(marks) > 1:
        raise HTTPException(422, f"choose one of contested, human, stale and finding (got {', '.join(marks)})")
    if question is not None and question not in {a.question for a in registry}:
        raise HTTPException(422, f"question must be one of {', '.join(a.question for a in registry)} "
                                 f"(got {question!r})")
    if answer is not None and question is None:
        raise HTTPException(422, "answer needs question: the label is one question's answer")
    if answer is not None and marks:
        raise HTTPException(422, f"answer cannot be combined with {marks[0]}")
    served = ""
    if port:
        served = normal_port(port)
        if served is None:
            raise HTTPException(422, f"port must be a number 0-65535, tcp/N or udp/N, not {port!r}")
    found = host_page(session, registry, capture.id,
                      HostFilter(text=q or "", question=question or "", label=answer or "",
                                 mark=marks[0] if marks else "", locality=locality or "",
                                 sort=sort.value, desc=desc, min_packets=min_packets, port=served),
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
                       ) -> tuple[ConversationEntry, ...]:
    """Conversations in the order they began (times in ISO 8601 UTC); `X-Total-Count` holds
    the number matching."""
    found = conversation_page(session, capture.id, ip=ip, port=port, proto=proto,
                              offset=page.offset, limit=page.limit)
    page.total(found.total)
    return found.items
