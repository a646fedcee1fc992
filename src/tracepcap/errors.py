"""The whole error tree of TracePcap, one place to look before catching.

* TracePcapError                      exit 1, HTTP 500
  * DuplicateQuestion                 exit 1, HTTP 500  two modules claim one question (start-up)
  * InternalError                     exit 1, HTTP 500  a bug or a failing database: the message
                                                        names it, the log holds the traceback
  * AnalysisCancelled                 (worker only)     the capture was deleted while analyzed
  * UsageError                        exit 2, HTTP 400  a request that cannot be carried out as given
    * UnusableCapture                 exit 2, HTTP 415  not a capture, empty, unreadable header
      * CaptureMissing                exit 2, HTTP 400  no such file
    * CaptureTooLarge                 exit 2, HTTP 413  over the configured size limit
    * NotFound                        exit 2, HTTP 404  capture, question, entity, evidence
    * InvalidAnnotation               exit 2, HTTP 422  evidence weight out of range, empty reason
    * InvalidText                     exit 2, HTTP 422  a control character, or longer than its field allows
    * NotAuthor                       exit 2, HTTP 403  editing someone else's evidence
    * present/auth.py: Unauthenticated (401, with WWW-Authenticate), Forbidden (403);
      present/api/upload.py: MissingFile (422), UploadTimeout (408), UploadsBusy (503, with
      Retry-After) — HTTP-only, defined beside their one user
  * present/auth.py: AuthUnavailable  HTTP 503  the issuer's keys cannot be fetched
  * Busy                              exit 1, HTTP 503  no turn at the database within the wait (Retry-After)

Decoders have their own small tree (`extract.decoders.DecodeError`): a packet that does not
decode is a per-packet matter recorded in the manifest, never an error of the capture.
"""

from __future__ import annotations


class TracePcapError(Exception):
    """Base of every error TracePcap raises on purpose."""

    exit_code = 1
    http_status = 500


class DuplicateQuestion(TracePcapError):
    """Two modules claim one question: the registry refuses to start."""


class InternalError(TracePcapError):
    """Something that is no fault of the input failed; the log has the traceback."""


class AnalysisCancelled(TracePcapError):
    """The capture was deleted (or its analysis cancelled) while the walk was running."""


class UsageError(TracePcapError):
    """The request, not the program, is at fault."""

    exit_code = 2
    http_status = 400


class UnusableCapture(UsageError):
    """The bytes given are not a capture we can read at all."""

    http_status = 415


class CaptureMissing(UnusableCapture):
    """The capture file named does not exist."""

    http_status = 400


class CaptureTooLarge(UsageError):
    """The upload passed the size limit while streaming."""

    http_status = 413


class NotFound(UsageError):
    """A capture, question, entity or annotation that does not exist."""

    http_status = 404


class InvalidAnnotation(UsageError):
    """A human annotation that breaks a rule (weight range, empty reason, label length)."""

    http_status = 422


class InvalidText(UsageError):
    """Text a person sent that breaks `tracepcap.text`'s rule; `details` names the field the
    way a request validation error does."""

    http_status = 422

    def __init__(self, field: str, rule: str, message: str, *, location: str = "body") -> None:
        super().__init__(message)
        self.details = {"problems": [{"location": location, "field": field, "rule": rule, "message": message}]}


class NotAuthor(UsageError):
    """Only the author of a piece of evidence may edit or delete it."""

    http_status = 403


class Busy(TracePcapError):
    """No turn at the database came within the wait: nothing was done, the caller may retry."""

    http_status = 503

    def __init__(self, message: str, retry_after: int = 5) -> None:
        super().__init__(message)
        self.headers = {"Retry-After": str(retry_after)}
