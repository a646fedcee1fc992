"""The store: tables (models), the database handle and its migrations."""

from .db import Database, open_database

__all__ = ["Database", "open_database"]
