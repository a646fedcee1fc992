"""Health, the current actor, the registered questions."""

from __future__ import annotations

from fastapi import APIRouter

from .... import __version__
from ...deps import ActorDep, RegistryDep, Viewer
from ..offloop import OffLoopJsonRoute
from ..schemas import Health, Me, QuestionOut

router = APIRouter(route_class=OffLoopJsonRoute, tags=["meta"])


@router.get("/health", response_model=Health)
def health() -> Health:
    """Liveness; the one route that never needs a token."""
    return Health(status="ok", version=__version__)


@router.get("/me", response_model=Me)
def me(actor: ActorDep) -> Me:
    """Who the server thinks you are, and your roles (with auth off: "system", every role)."""
    return Me(actor=actor.name, authenticated=actor.authenticated, roles=sorted(actor.roles))


@router.get("/questions", response_model=list[QuestionOut], dependencies=[Viewer])
def questions(registry: RegistryDep) -> list[QuestionOut]:
    """The registered questions in display order, with their label vocabularies."""
    return [QuestionOut(question=a.question, title=a.title, tier=str(a.tier), labels=list(a.vocabulary),
                        parents=dict(a.parents))
            for a in registry]
