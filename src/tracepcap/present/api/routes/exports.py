"""Exports of one capture: the whole record as JSON, or as CSV: one row per device (wide), or
one row per (device, question) with `?format=long`."""

from __future__ import annotations

import csv
import io
from enum import StrEnum
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from ...deps import CaptureDep, RegistryDep, SessionDep, Viewer
from ...read.document import CSV_COLUMNS, capture_export, csv_rows, wide_csv_columns, wide_csv_rows
from ..offloop import OffLoopJsonRoute

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["exports"], dependencies=[Viewer])
CsvFormat = StrEnum("CsvFormat", {"wide": "wide", "long": "long"})
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


@router.get("/export.json", response_class=JSONResponse)
def export_json(capture: CaptureDep, session: SessionDep, registry: RegistryDep) -> JSONResponse:
    """Every host, fact, verdict (with candidates and reasons) and human action of the capture."""
    document = capture_export(session, capture, registry)
    return JSONResponse(document, headers=_attachment(capture.id, "json"))


@router.get("/export.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def export_csv(capture: CaptureDep, session: SessionDep, registry: RegistryDep,
               format: Annotated[CsvFormat, Query(description="wide (default): one row per device with its "
                                                  "traffic and each question's answer, confidence and basis; "
                                                  "long: one row per (device, question) with candidates, "
                                                  "reasons and the human record")] = CsvFormat.wide,
               ) -> Response:
    """One row per device (key, addresses, MACs, vendors, locality, traffic, then each
    question's answer, confidence and basis), or with `format=long` one row per (device,
    question): the answer, its basis, candidates, reasons and override."""
    out = io.StringIO()
    writer = csv.writer(out)
    document = capture_export(session, capture, registry)
    if format == CsvFormat.long:
        writer.writerow(CSV_COLUMNS)
        rows = csv_rows(document)
    else:
        questions = [a.question for a in registry]
        writer.writerow(wide_csv_columns(questions))
        rows = wide_csv_rows(document, questions)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    name = capture.id if format == CsvFormat.wide else f"{capture.id}-long"
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=_attachment(name, "csv"))


def _cell(value: object) -> object:
    """Hosts name themselves and analysts write reasons: text a spreadsheet would evaluate is
    quoted so it stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _attachment(name: str, ext: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="tracepcap-{name}.{ext}"'}
