"""The terminal's progress bar for `tracepcap analyze`: bytes of the file while the packets are
read, then one bar per later stage (scan, adjudicate). Drawn by tqdm on stderr, only when
stderr is a terminal, and never when `--json` goes to a pipe (a script reading the document
wants a silent run). The analysis reports through the `progress(stage, done, total)` hook of
`analysis.analyze`, the same ticks that record a capture's progress for the web UI."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

log = logging.getLogger(__name__)

#: what each stage's bar says, and its unit
STAGES = {
    "read": ("reading packets", "B"),
    "scan": ("scanning", "stage"),
    "adjudicate": ("adjudicating", "stage"),
}

Progress = Callable[[str, int, int], None]


def wanted(*, as_json: bool, stderr: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    """A bar only for a person watching: stderr a terminal, and not `--json` into a pipe."""
    stderr = stderr or sys.stderr
    stdout = stdout or sys.stdout
    if not _isatty(stderr):
        return False
    return not (as_json and not _isatty(stdout))


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream is no terminal
        return False


class Bars:
    """A bar per stage, opened on the stage's first tick and closed on the next stage's (or at
    the end); calls tqdm with the stream it was given."""

    def __init__(self, tqdm, stream: TextIO) -> None:
        self._tqdm, self._stream = tqdm, stream
        self._stage: str | None = None
        self._bar = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self.close()
            label, unit = STAGES.get(stage, (stage, "it"))
            scaled = unit == "B"
            self._stage = stage
            # a stage's rate ("1.2 stage/s") says nothing: its bar shows the count and the time
            shape = {} if scaled else {"bar_format": "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}]"}
            self._bar = self._tqdm(total=total, desc=label, unit=unit, unit_scale=scaled,
                                   unit_divisor=1024 if scaled else 1000, file=self._stream,
                                   leave=True, dynamic_ncols=True, **shape)
        bar = self._bar
        if total != bar.total:
            bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar, self._stage = None, None


@contextmanager
def terminal_progress(*, as_json: bool, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """The `progress` callback to hand to the analysis, or None when no bar is wanted; every
    bar is closed when the block ends, before the report is printed."""
    stream = stream or sys.stderr
    if not wanted(as_json=as_json, stderr=stream):
        yield None
        return
    try:
        from tqdm import tqdm
    except ImportError:  # a declared dependency; an install without it runs, without the bar
        log.warning("no progress bar: the tqdm package is not installed")
        yield None
        return
    bars = Bars(tqdm, stream)
    try:
        yield bars
    finally:
        bars.close()
