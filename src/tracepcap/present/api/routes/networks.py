"""Networks over time: create and list networks, put captures into them (upload into one, or
attach an existing capture), read a network's changes, presence grid and inventory, mark a
change reviewed, re-affirm a carried or stale human answer, and search every capture.

Every write calls `adjudicate.networks` as the current actor (resolved from the validated
token, never from the request)."""

from __future__ import annotations

import json
from typing import Annotated

import anyio
from fastapi import APIRouter, Path, Query, Request, Response, status

from ....adjudicate import networks
from ....adjudicate.networks.baseline import RETURNED
from ....adjudicate.networks.changes import ChangeKind
from ....errors import InvalidText, UsageError
from ....ingest import find_capture
from ....store.models import MAX_INTEGER
from ...deps import ActorDep, Analyst, DbDep, KeyDep, RegistryDep, SessionDep, SettingsDep, Viewer, WorkerDep
from ...read import networks as read
from ..offloop import OffLoopJsonRoute
from ..schemas import (
    ChangeOut,
    In,
    InventoryOut,
    Label,
    NetworkAttachedOut,
    NetworkDetailOut,
    NetworkOut,
    PresenceOut,
    SearchHitOut,
    Verdict,
)
from ..upload import receive_capture, upload_slot

router = APIRouter(route_class=OffLoopJsonRoute, tags=["networks"])
Limit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=MAX_INTEGER)]


class NetworkIn(In):
    name: Label


class AttachIn(In):
    capture_id: Label


@router.post("/networks", status_code=status.HTTP_201_CREATED, response_model=NetworkOut, dependencies=[Analyst])
def create_network(body: NetworkIn, session: SessionDep, actor: ActorDep, response: Response) -> read.NetworkRow:
    """A new, empty network (a name no other network has)."""
    network = networks.create_network(session, body.name, actor=actor)
    response.headers["Location"] = f"/api/networks/{network.id}"
    return read.network_fields(network, 0)


@router.get("/networks", response_model=list[NetworkOut], dependencies=[Viewer])
def list_networks(session: SessionDep) -> list[read.NetworkRow]:
    """Every network with how many captures it holds."""
    return read.networks(session)


@router.get("/networks/{nid}", response_model=NetworkDetailOut, dependencies=[Viewer])
def read_network(nid: str, session: SessionDep) -> read.NetworkDetail:
    """The network (by id or name) with its captures in order (first packet time, then upload)."""
    return read.network_detail(session, networks.find_network(session, nid))


@router.post("/networks/{nid}/captures", response_model=NetworkAttachedOut, dependencies=[Analyst],
             responses={202: {"description": "uploaded; analysed in the background, then carried into"}})
async def add_capture(nid: str, request: Request, response: Response, actor: ActorDep, db: DbDep,
                      settings: SettingsDep, registry: RegistryDep, worker: WorkerDep) -> NetworkAttachedOut:
    """Put a capture into the network: either upload it here (multipart/form-data, a "file"
    part, as `POST /api/captures`), analysed in the background and carried into when done, or
    attach an analysed one with JSON `{"capture_id": ...}`. A capture belongs to at most one
    network."""
    kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    with db.session() as s:
        network_id = networks.find_network(s, nid).id
    if kind == "application/json":
        try:
            body = AttachIn.model_validate(json.loads(await request.body()))
        except ValueError as err:
            raise UsageError(f'send {{"capture_id": "..."}}: {err}') from err
        capture_id, created = body.capture_id, False
    else:
        async with upload_slot(request.app.state.upload_slots, settings):
            capture, created = await receive_capture(request, db, settings, actor.name)
        capture_id = capture.id

    def attach() -> NetworkAttachedOut:
        with db.session(write=True) as s:
            network = networks.find_network(s, network_id)
            cid = find_capture(s, capture_id).id
            if created:  # analysed next: the analysis carries answers into it when it ends
                networks.attach(s, network, cid, actor=actor)
            else:
                networks.add_capture(s, registry, network, cid, actor=actor)
            detail = NetworkDetailOut.model_validate(read.network_detail(s, network))
            return NetworkAttachedOut.model_validate({**dict(detail), "capture_id": cid})
    detail = await anyio.to_thread.run_sync(attach)
    if created:
        worker.submit(detail.capture_id)
    response.status_code = status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK
    return detail


@router.delete("/networks/{nid}/captures/{cid}", response_model=NetworkDetailOut, dependencies=[Analyst])
def remove_capture(nid: str, cid: str, session: SessionDep, registry: RegistryDep, actor: ActorDep
                   ) -> read.NetworkDetail:
    """Take a capture out of the network (the capture stays); what was carried is recomputed."""
    network = networks.find_network(session, nid)
    networks.remove_capture(session, registry, network, find_capture(session, cid).id, actor=actor)
    return read.network_detail(session, network)


SEVERITIES = ("high", "medium", "low")
KINDS = frozenset(v for k, v in vars(ChangeKind).items() if k.isupper()) | {RETURNED}


@router.get("/networks/{nid}/changes", response_model=list[ChangeOut], dependencies=[Viewer])
def list_changes(nid: str, session: SessionDep, response: Response,
                 capture: Annotated[str | None, Query(description="only the changes into this capture")] = None,
                 severity: Annotated[list[str] | None, Query(description="high, medium or low (repeatable)")] = None,
                 kind: Annotated[list[str] | None, Query(description="a change kind (repeatable)")] = None,
                 device: Annotated[str | None, Query(description="changes naming this device (key or address)")]
                 = None, offset: Offset = 0, limit: Limit = 100) -> list[read.Change]:
    """The typed changes of each capture against the network's history before it, in capture
    order then severity, each with its witness frames and whether (and by whom) it was
    reviewed; one page of them (`X-Total-Count` holds how many match)."""
    network = networks.find_network(session, nid)
    for value in severity or ():
        if value not in SEVERITIES:
            raise InvalidText("severity", "one-of", f"unknown severity {value!r}: one of {', '.join(SEVERITIES)}",
                              location="query")
    for value in kind or ():
        if value not in KINDS:
            raise InvalidText("kind", "one-of", f"unknown change kind {value!r}: one of {', '.join(sorted(KINDS))}",
                              location="query")
    events = read.change_documents(session, network.id, find_capture(session, capture).id if capture else None,
                                   severities=tuple(severity) if severity else None,
                                   kinds=tuple(kind) if kind else None, device=device)
    response.headers["X-Total-Count"] = str(len(events))
    return events[offset:offset + limit]


@router.post("/networks/{nid}/changes/{change_id}/review", response_model=ChangeOut, dependencies=[Analyst])
def review_change(nid: str, change_id: Annotated[int, Path(ge=1, le=MAX_INTEGER)], session: SessionDep,
                  actor: ActorDep) -> read.Change:
    """Mark a change reviewed (audited as `change.reviewed`)."""
    network = networks.find_network(session, nid)
    change = networks.changes.mark_reviewed(session, network.id, change_id, actor=actor)
    return next(c for c in read.change_documents(session, network.id, change.capture_id) if c.id == change.id)


@router.get("/networks/{nid}/presence", response_model=PresenceOut, dependencies=[Viewer])
def presence(nid: str, session: SessionDep, offset: Offset = 0, limit: Limit = 100) -> read.Presence:
    """Devices x captures: present, absent, or changed (a change event names it there)."""
    return read.presence(session, networks.find_network(session, nid), offset, limit)


@router.get("/networks/{nid}/inventory", response_model=InventoryOut, dependencies=[Viewer])
def inventory(nid: str, session: SessionDep, offset: Offset = 0, limit: Limit = 100) -> read.Inventory:
    """The network's devices: first and last seen, current answers with carried / stale state."""
    return read.inventory(session, networks.find_network(session, nid), offset, limit)


@router.post("/captures/{cid}/adjudications/{question}/{entity}/reaffirm", response_model=Verdict,
             dependencies=[Analyst], tags=["adjudications"])
def reaffirm(key: KeyDep, session: SessionDep, registry: RegistryDep, actor: ActorDep) -> dict:
    """The human answer still holds here: its stale mark goes (audited as `override.reaffirmed`),
    and this capture's evidence is what later captures are checked against."""
    return networks.reaffirm(session, registry, key, actor=actor).to_document()


@router.get("/search", response_model=list[SearchHitOut], dependencies=[Viewer])
def search(q: Annotated[str, Query(min_length=1, max_length=200)], session: SessionDep,
           limit: Limit = 200) -> list[read.SearchHit]:
    """Entities in every capture by MAC, address, hostname or answer label: entity, capture
    and the facts that matched."""
    return read.search(session, q, limit)
