"""Extract: walk a capture once, deterministically, into observations, conversations and a
manifest row per extractor. It never picks a winner between conflicting facts."""

from .facts import FactKind, Grade, Observation, Witness
from .persist import extract_capture
from .pipeline import ExtractResult, ManifestRow, extract

__all__ = ["ExtractResult", "FactKind", "Grade", "ManifestRow", "Observation", "Witness",
           "extract", "extract_capture"]
