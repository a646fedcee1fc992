"""One page of a query: how many rows match, and the rows of the page."""

from __future__ import annotations

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session


def page(session: Session, stmt: Select, order, offset: int, limit: int | None) -> tuple[int, list]:
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0
    stmt = stmt.order_by(*order).offset(offset)
    return total, list(session.execute(stmt if limit is None else stmt.limit(limit)))
