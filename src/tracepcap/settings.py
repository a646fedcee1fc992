"""Settings, from the environment (prefix TRACEPCAP_), validated at start.

Contradictions are refused here, before anything runs: auth "oidc" without an issuer or an
audience is an error, never a server that silently lets everyone in.

List settings (TRACEPCAP_ALLOWED_HOSTS) are comma-separated in the environment.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlparse

from platformdirs import user_data_dir
from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from .dask_trust import DaskCluster
from .limits import Limits

#: cores a machine needs before a capture's walk is sharded by default. Every shard reads
#: every record and skips the other shards' frames by their raw key: measured on the 0.25 GiB
#: benchmark capture, each of 2 shards costs 0.75-0.8 of one whole walk in CPU (docs/BENCHMARKS.md,
#: "Scan, adjudicate and the default --workers"), so 2 shards on 2 cores gain at most ~1.2x in
#: wall time on idle cores, spend ~1.5x the CPU, and lose outright on a busy machine.
SHARD_MIN_CORES = 3


def default_workers() -> int:
    """The machine's cores (those this process may run on) when there are at least
    SHARD_MIN_CORES of them; else 1: one walk in the analyzing process."""
    try:
        cores = len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return cores if cores >= SHARD_MIN_CORES else 1

GIB = 1 << 30
MAX_CAPTURE_WORKERS = 256  #: processes one capture's walk may be sharded over
#: the names a browser may use for a server on this machine; `tracepcap serve` adds its --host
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRACEPCAP_", extra="ignore")

    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("tracepcap")))
    #: SQLAlchemy URL; default: a SQLite file in the data directory
    database_url: str | None = None
    #: uploads larger than this are refused while streaming
    max_capture_bytes: int = Field(default=2 * GIB, gt=0)
    #: an analysis stops (partial, with a sentence) past this many bytes after decompression
    max_decompressed_bytes: int = Field(default=Limits().max_read_bytes, gt=0)
    #: ... or past this many records: one capture cannot hold the worker for hours
    max_records: int = Field(default=Limits().max_records, gt=0)
    #: ... or when a gzip'd capture inflates more than this many times (a bomb)
    max_decompression_ratio: int = Field(default=Limits().max_decompression_ratio, ge=1)
    #: captures `serve` analyzes at once: one long capture never holds back the next upload
    analysis_workers: int = Field(default=2, ge=1, le=64)
    #: an `analyzing` capture with no sign of life for this long is stalled and queued again
    analysis_lease_seconds: float = Field(default=900, gt=0)
    #: processes one capture's walk is sharded over (extract/parallel.py); default: the cores
    capture_workers: int | None = Field(default=None, ge=1, le=MAX_CAPTURE_WORKERS)
    #: a Dask scheduler to send each capture's shards to instead: tls://host:8786, or tcp://
    #: on this machine only (dask_trust.py): results come back as pickles
    dask_scheduler: str | None = None
    #: Dask TLS: the CA that signed the cluster's certificates, this client's certificate and key
    dask_tls_ca_file: Path | None = None
    dask_tls_cert_file: Path | None = None
    dask_tls_key_file: Path | None = None
    #: allow a plain tcp:// scheduler on another machine (every host between must be trusted)
    dask_allow_insecure: bool = False
    #: captures smaller than this are walked in one process: starting shards costs more
    parallel_min_bytes: int = Field(default=32 << 20, ge=0)

    #: an upload waits at most this long for its next bytes before it is cut (408)
    upload_idle_timeout_seconds: float = Field(default=30, gt=0)
    #: past its first idle timeout, an upload averaging fewer bytes per second is cut (408)
    upload_min_bytes_per_second: int = Field(default=4096, ge=0)
    #: request bodies of every route but the capture uploads: larger ones are answered 413
    max_body_bytes: int = Field(default=1 << 20, gt=0)
    #: uploads received at once; one more is answered 503 with Retry-After
    max_concurrent_uploads: int = Field(default=4, ge=1)
    #: the Host names this server answers to (others: 400), so a DNS-rebinding page cannot
    #: reach it; add the public name when serving beyond this machine
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=lambda: list(LOCAL_HOSTS), min_length=1)

    #: "off" (default): every request acts as "system" with every role; "oidc": bearer JWTs
    auth: Literal["off", "oidc"] = "off"
    #: the issuer URL, e.g. a Keycloak realm: https://sso.example.org/realms/tracepcap
    oidc_issuer: str | None = None
    #: the audience tokens must carry (`aud`), e.g. "tracepcap-api"
    oidc_audience: str | None = None
    #: the public client the web UI logs in as (deploy/keycloak/realm-tracepcap.json)
    oidc_client_id: str = Field(default="tracepcap-web", min_length=1)
    #: dotted path of the roles list in the token (Keycloak realm roles by default)
    oidc_roles_claim: str = Field(default="realm_access.roles", min_length=1)
    #: clock skew tolerated on exp / nbf / iat, in seconds
    oidc_leeway_seconds: int = Field(default=30, ge=0, le=300)
    #: how long the issuer's JWKS is cached before it is fetched again
    oidc_jwks_cache_seconds: float = Field(default=300, gt=0)
    #: at most one refetch of the JWKS per this many seconds for a token with an unknown kid
    oidc_jwks_min_refresh_seconds: float = Field(default=10, ge=0)
    #: timeout of each request to the issuer (discovery, JWKS)
    oidc_http_timeout_seconds: float = Field(default=5, gt=0)

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _host_list(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, (list, tuple)):
            value = [str(h).strip().lower().removeprefix("[").removesuffix("]") for h in value]
            value = [h for h in value if h]
        return value

    @model_validator(mode="after")
    def _default_database(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'tracepcap.sqlite3'}"
        return self

    @model_validator(mode="after")
    def _auth_is_complete(self) -> Settings:
        if self.auth != "oidc":
            return self
        missing = [name for name, value in (("TRACEPCAP_OIDC_ISSUER", self.oidc_issuer),
                                            ("TRACEPCAP_OIDC_AUDIENCE", self.oidc_audience)) if not value]
        if missing:
            raise ValueError(f"TRACEPCAP_AUTH=oidc needs {' and '.join(missing)}")
        url = urlparse(self.oidc_issuer)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise ValueError(f"TRACEPCAP_OIDC_ISSUER must be an http(s) URL (got {self.oidc_issuer!r})")
        return self

    @property
    def capture_dir(self) -> Path:
        return self.data_dir / "captures"

    def extract_plan(self, path: Path) -> tuple[int, DaskCluster | None]:
        """(processes, Dask scheduler or None) to walk the capture at `path` with: one walk
        in this process below `parallel_min_bytes`."""
        try:
            size = path.stat().st_size
        except OSError:
            size = 0  # the walk reports the missing file
        if size < self.parallel_min_bytes:
            return 1, None
        if self.capture_workers is not None:
            return self.capture_workers, self.dask_cluster
        return default_workers(), self.dask_cluster

    @property
    def dask_cluster(self) -> DaskCluster | None:
        """The Dask scheduler with how to reach it (dask_trust.py), or None."""
        if not self.dask_scheduler:
            return None
        from .dask_trust import DaskCluster
        return DaskCluster(self.dask_scheduler, self.dask_tls_ca_file, self.dask_tls_cert_file,
                           self.dask_tls_key_file, self.dask_allow_insecure)

    def check_dask(self) -> None:
        """SchedulerRefused (a usage error) when the configured scheduler may not be used."""
        if self.dask_cluster is not None:
            self.dask_cluster.check()

    @property
    def extract_limits(self) -> Limits:
        return Limits(max_read_bytes=self.max_decompressed_bytes, max_records=self.max_records,
                      max_decompression_ratio=self.max_decompression_ratio)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
