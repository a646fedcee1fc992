"""Exports of one capture: the whole record as JSON, or as CSV: one row per device (wide), one
row per (device, question) with `?format=long`, one row per login with `?format=credentials`
(secrets masked: they are never stored) or per application with `?format=applications`. The
JSON carries the credentials and the applications too, as their listings read them."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from ....adjudicate.registry import Registry
from ...deps import CaptureDep, RegistryDep, SessionDep, Viewer
from ...read.applications import applications
from ...read.credentials import credentials
from ...read.document import CSV_COLUMNS, capture_export, csv_rows, wide_csv_columns, wide_csv_rows
from ...read.shapes import plain
from ..offloop import OffLoopJsonRoute

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["exports"], dependencies=[Viewer])
CsvFormat = StrEnum("CsvFormat", {"wide": "wide", "long": "long", "credentials": "credentials",
                                  "applications": "applications"})
CREDENTIAL_COLUMNS = ("capture_id", "id", "protocol", "user", "client", "client_address", "server", "server_device",
                      "port", "secret", "cleartext", "first_frame", "last_frame", "count")
APPLICATION_COLUMNS = ("capture_id", "name", "detected", "ports", "conversations", "packets", "bytes", "clients",
                       "servers", "client_count", "server_count", "first_frame")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


@router.get("/export.json", response_class=JSONResponse)
def export_json(capture: CaptureDep, session: SessionDep, registry: RegistryDep) -> JSONResponse:
    """Every host, fact, verdict (with candidates and reasons) and human action of the capture,
    and its credentials (secrets masked) and applications as their listings show them."""
    document = capture_export(session, capture, registry)
    document["credentials"] = plain(credentials(session, capture.id))
    document["applications"] = plain(applications(session, capture.id))
    return JSONResponse(document, headers=_attachment(capture.id, "json"))


@router.get("/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_csv(capture: CaptureDep, session: SessionDep, registry: RegistryDep,
               format: Annotated[CsvFormat, Query(description="wide (default): one row per device with its "
                                                  "traffic and each question's answer, confidence and basis; "
                                                  "long: one row per (device, question) with candidates, "
                                                  "reasons and the human record; credentials: one row per "
                                                  "login, secret masked; applications: one row per "
                                                  "application")] = CsvFormat.wide,
               ) -> Response:
    """One row per device (key, addresses, MACs, vendors, locality, traffic, then each
    question's answer, confidence and basis), or with `format=long` one row per (device,
    question): the answer, its basis, candidates, reasons and override; `format=credentials`:
    one row per login (protocol, user, client, server, the secret masked, frames);
    `format=applications`: one row per application (packets, bytes, devices; lists joined
    with " | ")."""
    out = io.StringIO()
    writer = csv.writer(out)
    rows: Iterable[Sequence[object]]
    if format == CsvFormat.credentials:
        writer.writerow(CREDENTIAL_COLUMNS)
        rows = ([capture.id, *(getattr(c, name) for name in CREDENTIAL_COLUMNS[1:])]
                for c in credentials(session, capture.id))
    elif format == CsvFormat.applications:
        writer.writerow(APPLICATION_COLUMNS)
        rows = ([capture.id, *(_joined(getattr(a, name)) for name in APPLICATION_COLUMNS[1:])]
                for a in applications(session, capture.id))
    else:
        rows = _verdict_rows(writer, format, capture_export(session, capture, registry), registry)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    name = capture.id if format == CsvFormat.wide else f"{capture.id}-{format}"
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=_attachment(name, "csv"))


def _verdict_rows(writer, format: CsvFormat, document: dict, registry: Registry) -> Iterable[Sequence[object]]:
    """The header written, the rows of the wide or the long CSV."""
    if format == CsvFormat.long:
        writer.writerow(CSV_COLUMNS)
        return csv_rows(document)
    questions = [a.question for a in registry]
    writer.writerow(wide_csv_columns(questions))
    return wide_csv_rows(document, questions)


def _joined(value: object) -> object:
    return " | ".join(value) if isinstance(value, tuple) else value


def _cell(value: object) -> object:
    """Hosts name themselves and analysts write reasons: text a spreadsheet would evaluate is
    quoted so it stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _attachment(name: str, ext: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="tracepcap-{name}.{ext}"'}
