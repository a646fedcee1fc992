"""A credential's reveal in three steps, so that no write lock is held while the capture is
read: (1) the capture and the credential fact are read in a read-only unit of work; (2) the
secret is read again from the stored capture, outside any unit of work (up to
`read.credentials.REVEAL_SCAN` frames); (3) a writing unit of work records the reveal
(`credential.revealed`, actor and time). The secret is handed back only once that record is
committed: if it cannot be written, the caller gets the error, never the secret.

The web UI and the CLI call `reveal_audited`; the API runs the same steps (`read_login`,
`read_secret`, `audit`) each in its database turn (`api.turns`)."""

from __future__ import annotations

from ..adjudicate.actor import Actor
from ..adjudicate.annotations import record_reveal
from ..ingest import find_capture
from ..settings import Settings
from ..store import Database
from ..store.models import Capture
from .read.credentials import Revealed, StoredLogin, reveal, stored_login


def read_login(db: Database, cid: str, credential_id: int) -> tuple[Capture, StoredLogin]:
    """Step 1: the capture and the credential, in a read-only unit of work."""
    with db.session() as s:
        capture = find_capture(s, cid)
        return capture, stored_login(s, capture.id, credential_id)


def read_secret(settings: Settings, capture: Capture, login: StoredLogin) -> Revealed:
    """Step 2: the secret read again from the capture file; no session."""
    return reveal(settings.capture_dir, capture, login, settings.extract_limits)


def audit(db: Database, actor: Actor, capture_id: str, revealed: list[Revealed]) -> None:
    """Step 3: one `credential.revealed` event per reveal, in one writing unit of work."""
    with db.session(write=True) as s:
        for found in revealed:
            record_reveal(s, actor, capture_id, credential=found.id, protocol=found.protocol, user=found.user,
                          server=found.server, port=found.port, frame=found.frame, shown=found.secret is not None)


def reveal_audited(db: Database, settings: Settings, actor: Actor, cid: str, credential_id: int) -> Revealed:
    """The three steps in a row: the secret, once its reveal is recorded."""
    capture, login = read_login(db, cid, credential_id)
    found = read_secret(settings, capture, login)
    audit(db, actor, capture.id, [found])
    return found


