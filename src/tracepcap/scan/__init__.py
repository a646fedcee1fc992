"""Scan: facts in, votes out. Signals read one host's facts (never the capture) and vote
into a ScoreBoard; a new signal only adds votes."""

from .context import CaptureContext, Fact, HostFacts
from .run import scan_capture
from .vote import ScoreBoard, Vote, normalize_label

__all__ = ["CaptureContext", "Fact", "HostFacts", "ScoreBoard", "Vote", "normalize_label", "scan_capture"]
