"""Settings, from the environment (prefix TRACEPCAP_), validated at start."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from platformdirs import user_data_dir
from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

GIB = 1 << 30


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRACEPCAP_", extra="ignore")

    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("tracepcap")))
    #: SQLAlchemy URL; default: a SQLite file in the data directory
    database_url: str | None = None
    #: uploads larger than this are refused while streaming
    max_capture_bytes: int = Field(default=2 * GIB, gt=0)

    @model_validator(mode="after")
    def _default_database(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'tracepcap.sqlite3'}"
        return self

    @property
    def capture_dir(self) -> Path:
        return self.data_dir / "captures"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
