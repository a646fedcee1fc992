"""Witness frames: one frame decoded, frames or a conversation as a pcapng slice, and the
original capture (analyst and up)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import FileResponse, StreamingResponse

from ....extract.slices import pcapng_slice
from ....store.models import MAX_BIGINT
from ...deps import Analyst, CaptureDep, SessionDep, SettingsDep, Viewer
from ...read.frames import (
    MAX_SLICE_FRAMES,
    FrameDetail,
    capture_index,
    conversation_frames,
    frame_detail,
    frames_at,
    parse_frames,
    stored_file,
)
from ..offloop import OffLoopJsonRoute
from ..schemas import FrameOut

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["frames"])
PCAPNG = "application/x-pcapng"
SLICE = {200: {"content": {PCAPNG: {}}, "description": "a pcapng file; each packet's comment names its original frame"}}


@router.get("/frames/{n}", response_model=FrameOut, dependencies=[Viewer])
def one_frame(capture: CaptureDep, n: Annotated[int, Path(description="the frame number, as Wireshark shows it")],
              session: SessionDep, settings: SettingsDep) -> FrameDetail:
    """One frame as TracePcap's decoders read it: summary, layers, hex, and the previous and
    next frame of its conversation. 400 for frame 0, 404 past the last frame."""
    path, index = capture_index(settings.capture_dir, capture, settings.extract_limits)
    return frame_detail(session, capture, path, index, n)


@router.get("/frames.pcap", response_class=StreamingResponse, responses=SLICE, dependencies=[Viewer])
def frame_slice(capture: CaptureDep, settings: SettingsDep,
                frames: Annotated[str, Query(description=f"frame numbers and ranges, e.g. 7,13,74-79 "
                                                         f"(at most {MAX_SLICE_FRAMES} frames)")]) -> StreamingResponse:
    """The frames named, with their original timestamps, interfaces and link types, as pcapng."""
    path, index = capture_index(settings.capture_dir, capture, settings.extract_limits)
    numbers = parse_frames(frames, index.frames)
    return _pcapng(pcapng_slice(index, frames_at(path, index, numbers), capture.name),
                   f"tracepcap-{capture.id}-frames.pcapng")


@router.get("/conversations/{conversation}.pcap", response_class=StreamingResponse, responses=SLICE,
            dependencies=[Viewer])
def conversation_slice(capture: CaptureDep,
                       conversation: Annotated[int, Path(ge=1, le=MAX_BIGINT, description="the conversation's id")],
                       session: SessionDep,
                       settings: SettingsDep) -> StreamingResponse:
    """Every frame of one conversation (its id from GET .../conversations), as pcapng."""
    path, index = capture_index(settings.capture_dir, capture, settings.extract_limits)
    chosen = conversation_frames(session, capture, path, index, conversation)
    return _pcapng(pcapng_slice(index, chosen, capture.name),
                   f"tracepcap-{capture.id}-conversation-{conversation}.pcapng")


@router.get("/file", response_class=FileResponse, dependencies=[Analyst],
            responses={200: {"content": {"application/octet-stream": {}}, "description": "the capture as uploaded"}})
def original(capture: CaptureDep, settings: SettingsDep) -> FileResponse:
    """The capture file as it was uploaded (analyst and up)."""
    path = stored_file(settings.capture_dir, capture)
    return FileResponse(path, media_type="application/octet-stream", filename=capture.name)


def _pcapng(blocks, filename: str) -> StreamingResponse:
    return StreamingResponse(blocks, media_type=PCAPNG,
                             headers={"Content-Disposition": f'attachment; filename="{filename}"'})
