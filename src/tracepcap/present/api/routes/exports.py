"""Exports of one capture: the whole record as JSON, or one CSV row per (host, question)."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from ...deps import CaptureDep, RegistryDep, SessionDep, Viewer
from ...read.document import CSV_COLUMNS, capture_export, csv_rows

router = APIRouter(prefix="/captures/{cid}", tags=["exports"], dependencies=[Viewer])
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


@router.get("/export.json", response_class=JSONResponse)
def export_json(capture: CaptureDep, session: SessionDep, registry: RegistryDep) -> JSONResponse:
    """Every host, fact, verdict (with candidates and reasons) and human action of the capture."""
    document = capture_export(session, capture, registry)
    return JSONResponse(document, headers=_attachment(capture.id, "json"))


@router.get("/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_csv(capture: CaptureDep, session: SessionDep, registry: RegistryDep) -> Response:
    """One row per (host, question): the answer, its basis, candidates, reasons and override."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in csv_rows(capture_export(session, capture, registry)):
        writer.writerow([_cell(v) for v in row])
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=_attachment(capture.id, "csv"))


def _cell(value: object) -> object:
    """Hosts name themselves and analysts write reasons: text a spreadsheet would evaluate is
    quoted so it stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _attachment(capture_id: str, ext: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="tracepcap-{capture_id}.{ext}"'}
