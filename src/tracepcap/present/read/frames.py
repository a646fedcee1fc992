"""Witness frames: one frame of a stored capture as Extract describes it (`extract/describe.py`:
its layers, link to application, as TracePcap's decoders read them; nothing here dissects a
packet), and the frames a reason or a conversation cites, for a slice.

Frames are keyed by capture and frame number only (the numbers Wireshark shows), never by
host. Every read starts at the frame index's nearest mark (`extract/frame_index.py`), so
frame 1,000,000 costs what frame 1,000 does. "Previous/next frame of this conversation" is
looked for in at most `NEIGHBOUR_SCAN` frames each way (the conversation row bounds it by
its first frame and last time); past that the conversation's first frame is offered.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import and_, bindparam, or_, select
from sqlalchemy.orm import Session

from ...errors import NotFound, UsageError
from ...extract import describe
from ...extract.describe import Layer
from ...extract.flows import PROTO_NAMES
from ...extract.frame_index import Frame, FrameCursor, FrameIndex, load_or_build, readable
from ...extract.packet import Packet
from ...ingest import capture_path
from ...limits import Limits
from ...store.models import Capture, Conversation
from ...visible import visible

MAX_SLICE_FRAMES = 10_000  #: frames one slice request may name
MAX_SPEC = 4000  #: characters of a frame list
NEIGHBOUR_SCAN = 2048  #: frames read each way for the previous/next frame of a conversation
HEX_SHOWN = 4096  #: bytes of a frame the hex dump shows
TIME_SLACK = 1e-6  # seconds: a stored float time and one recomputed from ticks may differ in the last bit
RANGE = re.compile(r"\A([0-9]{1,19})(?:-([0-9]{1,19}))?\Z")  # ASCII digits only: int() takes any script's


class BadFrames(UsageError):
    """A frame number or frame list that names no frame of the capture (HTTP 400)."""


def stored_file(capture_dir: Path, capture: Capture) -> Path:
    path = capture_path(capture_dir, capture.sha256)
    if not path.is_file():
        raise NotFound(f"the stored file of capture {capture.id} is gone")
    return path


def capture_index(capture_dir: Path, capture: Capture, limits: Limits = Limits()) -> tuple[Path, FrameIndex]:
    """The file to read a capture's frames from (a gzip'd one decompressed once) and its frame
    index (built once if it has none)."""
    path = stored_file(capture_dir, capture)
    index = load_or_build(path, limits)
    return readable(path, index, limits), index


def check_frame(index: FrameIndex, capture: Capture, number: int) -> None:
    if number < 1:
        raise BadFrames(f"frames are numbered from 1 (got {number})")
    if number > index.frames:
        raise NotFound(f"capture {capture.id} has {index.frames} frames: there is no frame {number}")


def parse_frames(spec: str, total: int, limit: int = MAX_SLICE_FRAMES) -> list[int]:
    """'7,13,74-79' -> [7, 13, 74, 75, 76, 77, 78, 79] (sorted, each once). Refuses, with the
    offending part named: an empty list, a part that is not N or N-M, frame 0, a range that
    runs backwards, a frame past the last one, more than `limit` frames."""
    if not spec.strip():
        raise BadFrames("no frames asked for: give frames=7,13,74-79")
    if len(spec) > MAX_SPEC:
        raise BadFrames(f"the frame list is longer than {MAX_SPEC} characters")
    wanted: set[int] = set()
    for part in spec.split(","):
        match = RANGE.match(part.strip())
        if match is None:
            raise BadFrames(f"{visible(part.strip())[:40]!r} is not a frame number or a range N-M")
        low = int(match[1])
        high = int(match[2]) if match[2] else low
        if low < 1:
            raise BadFrames(f"frames are numbered from 1 (got {low})")
        if high < low:
            raise BadFrames(f"the range {low}-{high} runs backwards")
        if high > total:
            raise BadFrames(f"the capture has {total} frames: there is no frame {high}")
        if high - low + 1 + len(wanted) > limit:
            raise BadFrames(f"more than {limit} frames asked for in one slice")
        wanted.update(range(low, high + 1))
        if len(wanted) > limit:
            raise BadFrames(f"more than {limit} frames asked for in one slice")
    return sorted(wanted)


def wireshark_filter(numbers: list[int]) -> str:
    """The display filter selecting these frames, runs compressed: [7, 13, 74, ..., 79] ->
    'frame.number in {7, 13, 74..79}'. Commas: Wireshark 4.0 and later refuse set elements
    separated by spaces only (tshark 4.0: '"13" was unexpected in this context')."""
    parts = []
    for low, high in runs(numbers):
        parts.append(str(low) if low == high else f"{low}..{high}")
    return "frame.number in {" + ", ".join(parts) + "}"


def runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted, distinct numbers as (first, last) runs of consecutive ones."""
    out: list[tuple[int, int]] = []
    for n in sorted(set(numbers)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def frame_spec(numbers: list[int]) -> str:
    """The frames=... parameter naming these frames: '7,13,74-79'."""
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs(numbers))


# -- one frame --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ConversationKey:
    proto: str
    ends: frozenset

    @classmethod
    def of(cls, pkt: Packet) -> ConversationKey | None:
        if pkt.src is None:
            return None
        return cls(PROTO_NAMES.get(pkt.proto, str(pkt.proto)), frozenset(((pkt.src, pkt.sport), (pkt.dst, pkt.dport))))

    def addresses(self) -> tuple[bytes, ...]:
        """Both ends' addresses as they stand in a frame's bytes: a frame lacking one is not
        of this conversation, and costs a substring search instead of a decode."""
        return tuple(socket.inet_pton(socket.AF_INET6 if ":" in ip else socket.AF_INET, ip) for ip, _ in self.ends)


def decode(frame: Frame, index: FrameIndex) -> tuple[Packet | None, str | None]:
    """The frame's packet as the decoders read it, or None and why not."""
    return describe.decode(frame.linktype(index), frame.data, frame.number, frame.time(index), frame.orig_len)


@dataclass(frozen=True, slots=True)
class FrameConversation:
    """The conversation a frame belongs to, and its previous and next frame (None: the first
    or last, or not within the frames scanned - then see `first_frame`)."""

    id: int
    proto: str
    src: str
    sport: int
    dst: str
    dport: int
    first_frame: int
    packets: int
    previous: int | None
    next: int | None


@dataclass(frozen=True, slots=True)
class FrameDetail:
    """The page of one frame: where it stands, its description by Extract (`summary`,
    `layers`), its bytes in hex (at most HEX_SHOWN), and its conversation."""

    capture_id: str
    number: int
    time: float
    time_text: str
    interface: int
    section: int
    linktype: int
    linktype_name: str
    wire_length: int
    captured_length: int
    summary: str
    layers: tuple[Layer, ...]
    hex: str
    hex_truncated: bool
    conversation: FrameConversation | None
    frames: int  #: frames in the capture


def frame_detail(session: Session, capture: Capture, path: Path, index: FrameIndex, number: int) -> FrameDetail:
    """One frame: summary line, layers field by field, hex dump, time, and the previous and
    next frame of its conversation. One pass from the mark before the frame serves the frame,
    the search for the previous one within that stretch, and the search for the next."""
    check_frame(index, capture, number)
    with FrameCursor(path, index) as cursor:
        mark = index.mark_before(number)[0]
        walk = cursor.frames_from(mark)
        before: list[Frame] = []
        frame = None
        for seen in walk:
            if seen.number == number:
                frame = seen
                break
            before.append(seen)
        if frame is None:
            raise NotFound(f"frame {number} of capture {capture.id} could not be read from its stored file")
        pkt, error = decode(frame, index)
        conversation = _conversation(session, capture.id, cursor, index, pkt, walk, before) if pkt else None
    return frame_view(capture, index, frame, pkt, error, conversation)


def frame_view(capture: Capture, index: FrameIndex, frame: Frame, pkt: Packet | None, error: str | None,
               conversation: FrameConversation | None) -> FrameDetail:
    """The page of one frame read and decoded (`decode`), with its conversation (or None)."""
    ts = frame.time(index)
    linktype = frame.linktype(index)
    described = describe.describe(linktype, frame.data, frame.number, ts, frame.orig_len, frame.interface,
                                  decoded=(pkt, error))
    return FrameDetail(
        capture_id=capture.id, number=frame.number, time=ts, time_text=time_text(ts),
        interface=frame.interface, section=frame.section, linktype=linktype,
        linktype_name=described.linktype_name, wire_length=frame.orig_len, captured_length=len(frame.data),
        summary=described.summary, layers=described.layers,
        hex=frame.data[:HEX_SHOWN].hex(), hex_truncated=len(frame.data) > HEX_SHOWN,
        conversation=conversation, frames=index.frames)


def time_text(ts: float) -> str:
    """A frame's time as ISO 8601 UTC; a damaged timestamp past the calendar's years says so."""
    try:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="microseconds")
    except (OverflowError, OSError, ValueError):
        return f"{ts:.6f} s after 1970 (beyond the years a calendar date can name)"


# -- conversations ----------------------------------------------------------------------------

def _ends(a: str, aport: str, b: str, bport: str):
    return and_(Conversation.src == bindparam(a), Conversation.sport == bindparam(aport),
                Conversation.dst == bindparam(b), Conversation.dport == bindparam(bport))


# built once: the frame view runs it per request, and building the expression costs more than running it
_ROW = (select(Conversation).where(
    Conversation.capture_id == bindparam("cid"), Conversation.proto == bindparam("proto"),
    or_(_ends("a", "aport", "b", "bport"), _ends("b", "bport", "a", "aport")),
    Conversation.first_frame <= bindparam("number"), Conversation.last_time >= bindparam("ts"))
    .order_by(Conversation.first_frame.desc()).limit(1))


def _row_for(session: Session, capture_id: str, key: ConversationKey, number: int, ts: float) -> Conversation | None:
    """The conversation row a packet belongs to: its 5-tuple, begun by then and not ended before."""
    ends = sorted(key.ends)  # one end when a host talks to itself
    (a, aport), (b, bport) = ends[0], ends[-1]
    return session.scalars(_ROW, {"cid": capture_id, "proto": key.proto, "a": a, "aport": aport, "b": b,
                                  "bport": bport, "number": number, "ts": ts - TIME_SLACK}).first()


def _conversation(session: Session, capture_id: str, cursor: FrameCursor, index: FrameIndex, pkt: Packet,
                  after: Iterator[Frame], before: list[Frame]) -> FrameConversation | None:
    """The frame's conversation row, and its previous and next frame: `before` holds the frames
    from the mark up to this one, `after` reads on from it."""
    key = ConversationKey.of(pkt)
    if key is None:
        return None
    row = _row_for(session, capture_id, key, pkt.frame, pkt.ts)
    if row is None:
        return None
    raw = key.addresses()
    nxt = None
    for seen, frame in enumerate(after):
        if seen >= NEIGHBOUR_SCAN or frame.time(index) > row.last_time + TIME_SLACK:
            break
        if _matches(frame, index, key, raw):
            nxt = frame.number
            break
    prev = _last_match(before, index, key, raw, row.first_frame)
    if prev is None and before and before[0].number > row.first_frame:
        prev = _previous(cursor, index, key, raw, before[0].number, row.first_frame, NEIGHBOUR_SCAN - len(before))
    elif prev is None and not before and pkt.frame > row.first_frame:
        prev = _previous(cursor, index, key, raw, pkt.frame, row.first_frame, NEIGHBOUR_SCAN)
    return FrameConversation(row.id, row.proto, row.src, row.sport, row.dst, row.dport, row.first_frame,
                             row.packets_fwd + row.packets_rev, prev, nxt)


def _matches(frame: Frame, index: FrameIndex, key: ConversationKey, raw: tuple[bytes, ...]) -> bool:
    data = frame.data
    for address in raw:
        if address not in data:
            return False
    pkt, _ = decode(frame, index)
    return pkt is not None and ConversationKey.of(pkt) == key


def _last_match(frames: list[Frame], index: FrameIndex, key: ConversationKey, raw: tuple[bytes, ...],
                first_frame: int) -> int | None:
    for frame in reversed(frames):
        if frame.number < first_frame:
            return None
        if _matches(frame, index, key, raw):
            return frame.number
    return None


def _previous(cursor: FrameCursor, index: FrameIndex, key: ConversationKey, raw: tuple[bytes, ...], end: int,
              first_frame: int, budget: int) -> int | None:
    """The last frame of the conversation before frame `end`, or None when none is found in
    `budget` frames: the stretches between marks are read backwards, each from its mark, never
    before the conversation's first frame."""
    while end > first_frame and budget > 0:
        start = max(first_frame, index.mark_before(end - 1)[0])
        stretch = []
        for frame in cursor.frames_from(start):
            if frame.number >= end:
                break
            stretch.append(frame)
        found = _last_match(stretch, index, key, raw, first_frame)
        if found is not None:
            return found
        budget -= len(stretch)
        end = start
    return None


def conversation_frames(session: Session, capture: Capture, path: Path, index: FrameIndex,
                        conversation_id: int) -> Iterator[Frame]:
    """Every frame of one conversation, read from its first frame to its last time."""
    row = session.get(Conversation, conversation_id)
    if row is None or row.capture_id != capture.id:
        raise NotFound(f"capture {capture.id} has no conversation {conversation_id}")
    key = ConversationKey(row.proto, frozenset(((row.src, row.sport), (row.dst, row.dport))))
    first, last_time, raw = row.first_frame, row.last_time, key.addresses()

    def walk() -> Iterator[Frame]:
        with FrameCursor(path, index) as cursor:
            for frame in cursor.frames_from(first):
                if frame.time(index) > last_time + TIME_SLACK:
                    return
                if _matches(frame, index, key, raw):
                    yield frame
    return walk()


def frames_at(path: Path, index: FrameIndex, numbers: list[int]) -> Iterator[Frame]:
    """The frames numbered `numbers` (sorted), each read from the nearest mark."""
    with FrameCursor(path, index) as cursor:
        yield from cursor.frames_at(numbers)
