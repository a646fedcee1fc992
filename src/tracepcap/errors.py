"""The whole error tree of TracePcap, one place to look before catching.

* TracePcapError                      exit 1, HTTP 500
  * UnusableCapture                   exit 2, HTTP 415  not a capture, empty, unreadable header
    * CaptureMissing                  exit 2, HTTP 400  no such file
  * CaptureTooLarge                   exit 2, HTTP 413  over the configured size limit
  * NotFound                          exit 2, HTTP 404  capture, question, entity, evidence
  * InvalidAnnotation                 exit 2, HTTP 422  evidence weight out of range, empty reason
  * NotAuthor                         exit 2, HTTP 403  editing someone else's evidence

Decoders have their own small tree (`extract.decoders.DecodeError`): a packet that does not
decode is a per-packet matter recorded in the manifest, never an error of the capture.
"""

from __future__ import annotations


class TracePcapError(Exception):
    """Base of every error TracePcap raises on purpose."""


class UnusableCapture(TracePcapError):
    """The bytes given are not a capture we can read at all."""


class CaptureMissing(UnusableCapture):
    """The capture file named does not exist."""


class CaptureTooLarge(TracePcapError):
    """The upload passed the size limit while streaming."""


class NotFound(TracePcapError):
    """A capture, question, entity or annotation that does not exist."""


class InvalidAnnotation(TracePcapError):
    """A human annotation that breaks a rule (weight range, empty reason, label length)."""


class NotAuthor(TracePcapError):
    """Only the author of a piece of evidence may edit or delete it."""
