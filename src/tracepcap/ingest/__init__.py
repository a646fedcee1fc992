"""Ingest: byte plumbing only. Checksum, dedupe, size limit, format sniffing."""

from .sniff import sniff
from .store import capture_path, find_capture, store_capture, store_file, sweep_stale_uploads

__all__ = ["capture_path", "find_capture", "sniff", "store_capture", "store_file", "sweep_stale_uploads"]
