"""Settings, from the environment (prefix TRACEPCAP_), validated at start.

Contradictions are refused here, before anything runs: auth "oidc" without an issuer or an
audience is an error, never a server that silently lets everyone in.

List settings (TRACEPCAP_ALLOWED_HOSTS) are comma-separated in the environment.

The rules are pydantic-settings' (`validating_model`, built from the declarations below), but a
command does not pay ~0.1 s to import pydantic for values that are plainly valid: `Settings`
takes a value itself only where pydantic's answer is certain (an int written in digits, a
bound that holds, a word of a Literal, ...) and hands every other case to pydantic, which
converts it as it always did or raises its ValidationError, word for word.
"""

from __future__ import annotations

import operator
import os
import re
from functools import lru_cache
from pathlib import Path
from types import NoneType, SimpleNamespace, UnionType
from typing import Any, Literal, get_args, get_origin, get_type_hints
from urllib.parse import urlparse

from platformdirs import user_data_dir

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


class _Declared:
    """A setting's default (or its factory) and bounds, as pydantic's `Field` takes them."""

    __slots__ = ("default", "factory", "bounds")

    def __init__(self, default: Any, factory: Any, bounds: dict[str, int]) -> None:
        self.default, self.factory, self.bounds = default, factory, bounds


def setting(default: Any = None, *, factory: Any = None, **bounds: int) -> Any:
    """Declares a setting: `gt`, `ge`, `le` bound a number, `min_length` a list."""
    return _Declared(default, factory, bounds)


class Settings:
    #: where captures and the default SQLite database live
    data_dir: Path = setting(factory=lambda: Path(user_data_dir("tracepcap")))
    #: SQLAlchemy URL; default: a SQLite file in the data directory
    database_url: str | None = setting()
    #: uploads larger than this are refused while streaming
    max_capture_bytes: int = setting(2 * GIB, gt=0)
    #: an analysis stops (partial, with a sentence) past this many bytes after decompression
    max_decompressed_bytes: int = setting(Limits().max_read_bytes, gt=0)
    #: ... or past this many records: one capture cannot hold the worker for hours
    max_records: int = setting(Limits().max_records, gt=0)
    #: ... or when a gzip'd capture inflates more than this many times (a bomb)
    max_decompression_ratio: int = setting(Limits().max_decompression_ratio, ge=1)
    #: captures `serve` analyzes at once: one long capture never holds back the next upload
    analysis_workers: int = setting(2, ge=1, le=64)
    #: an `analyzing` capture with no sign of life for this long is stalled and queued again
    analysis_lease_seconds: float = setting(900, gt=0)
    #: processes one capture's walk is sharded over (extract/parallel.py); default: the cores
    capture_workers: int | None = setting(None, ge=1, le=MAX_CAPTURE_WORKERS)
    #: a Dask scheduler to send each capture's shards to instead: tls://host:8786, or tcp://
    #: on this machine only (dask_trust.py): results come back as pickles
    dask_scheduler: str | None = setting()
    #: Dask TLS: the CA that signed the cluster's certificates, this client's certificate and key
    dask_tls_ca_file: Path | None = setting()
    dask_tls_cert_file: Path | None = setting()
    dask_tls_key_file: Path | None = setting()
    #: allow a plain tcp:// scheduler on another machine (every host between must be trusted)
    dask_allow_insecure: bool = setting(False)
    #: captures smaller than this are walked in one process: starting shards costs more
    parallel_min_bytes: int = setting(32 << 20, ge=0)

    #: an upload waits at most this long for its next bytes before it is cut (408)
    upload_idle_timeout_seconds: float = setting(30, gt=0)
    #: past its first idle timeout, an upload averaging fewer bytes per second is cut (408)
    upload_min_bytes_per_second: int = setting(4096, ge=0)
    #: request bodies of every route but the capture uploads: larger ones are answered 413
    max_body_bytes: int = setting(1 << 20, gt=0)
    #: uploads received at once; one more is answered 503 with Retry-After
    max_concurrent_uploads: int = setting(4, ge=1)
    #: the Host names this server answers to (others: 400), so a DNS-rebinding page cannot
    #: reach it; add the public name when serving beyond this machine
    allowed_hosts: list[str] = setting(factory=lambda: list(LOCAL_HOSTS), min_length=1)

    #: "off" (default): every request acts as "system" with every role; "oidc": bearer JWTs
    auth: Literal["off", "oidc"] = setting("off")
    #: the issuer URL, e.g. a Keycloak realm: https://sso.example.org/realms/tracepcap
    oidc_issuer: str | None = setting()
    #: the audience tokens must carry (`aud`), e.g. "tracepcap-api"
    oidc_audience: str | None = setting()
    #: the public client the web UI logs in as (deploy/keycloak/realm-tracepcap.json)
    oidc_client_id: str = setting("tracepcap-web", min_length=1)
    #: dotted path of the roles list in the token (Keycloak realm roles by default)
    oidc_roles_claim: str = setting("realm_access.roles", min_length=1)
    #: clock skew tolerated on exp / nbf / iat, in seconds
    oidc_leeway_seconds: int = setting(30, ge=0, le=300)
    #: how long the issuer's JWKS is cached before it is fetched again
    oidc_jwks_cache_seconds: float = setting(300, gt=0)
    #: at most one refetch of the JWKS per this many seconds for a token with an unknown kid
    oidc_jwks_min_refresh_seconds: float = setting(10, ge=0)
    #: timeout of each request to the issuer (discovery, JWKS)
    oidc_http_timeout_seconds: float = setting(5, gt=0)

    def __init__(self, **values: Any) -> None:
        """Keyword values over the environment's TRACEPCAP_* over the defaults; unknown names
        are ignored. pydantic.ValidationError for a value the rules refuse."""
        try:
            taken = _take_plain(values)
        except _Uncertain:
            taken = validating_model()(**values).model_dump()
        for name, value in taken.items():
            setattr(self, name, value)

    def model_dump(self) -> dict[str, Any]:
        """The settings by name (a copy), as pydantic's models give them."""
        return {name: getattr(self, name) for name in _fields()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self.model_dump() == other.model_dump()

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in self.model_dump().items())})"

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


def _host_list(value: object) -> object:
    """TRACEPCAP_ALLOWED_HOSTS: comma-separated, trimmed, lower case, IPv6 without brackets."""
    if isinstance(value, str):
        value = value.split(",")
    if isinstance(value, (list, tuple)):
        value = [str(h).strip().lower().removeprefix("[").removesuffix("]") for h in value]
        value = [h for h in value if h]
    return value


#: a setting's own conversion before its type's (pydantic: a "before" field validator)
_BEFORE = {"allowed_hosts": _host_list}


def _complete(settings: Any) -> str | None:
    """After the fields: the default database, and what is contradictory (a sentence) or None."""
    if not settings.database_url:
        settings.database_url = f"sqlite:///{settings.data_dir / 'tracepcap.sqlite3'}"
    if settings.auth != "oidc":
        return None
    missing = [name for name, value in (("TRACEPCAP_OIDC_ISSUER", settings.oidc_issuer),
                                        ("TRACEPCAP_OIDC_AUDIENCE", settings.oidc_audience)) if not value]
    if missing:
        return f"TRACEPCAP_AUTH=oidc needs {' and '.join(missing)}"
    url = urlparse(settings.oidc_issuer)
    if url.scheme not in ("http", "https") or not url.netloc:
        return f"TRACEPCAP_OIDC_ISSUER must be an http(s) URL (got {settings.oidc_issuer!r})"
    return None


@lru_cache(maxsize=1)
def _fields() -> dict[str, tuple[Any, _Declared]]:
    """name -> (type, declaration), in declaration order."""
    hints = get_type_hints(Settings, {**globals(), "Literal": Literal})
    return {name: (hints[name], value) for name, value in vars(Settings).items() if isinstance(value, _Declared)}


class _Uncertain(Exception):
    """A value whose validation pydantic decides."""


_DIGITS = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?")
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_BOUNDS = {"gt": operator.gt, "ge": operator.ge, "le": operator.le}


def _plain(kind: Any, value: Any) -> Any:
    """`value` as pydantic (lax mode) converts it to `kind`, where that is certain; else _Uncertain."""
    if get_origin(kind) is UnionType and NoneType in get_args(kind):
        if value is None:
            return None
        (kind,) = [k for k in get_args(kind) if k is not NoneType]
    if kind is int:
        if type(value) is int:
            return value
        if isinstance(value, str) and _DIGITS.fullmatch(value):
            return int(value)
    elif kind is float:
        if type(value) in (int, float):
            return float(value)
        if isinstance(value, str) and _DECIMAL.fullmatch(value):
            return float(value)
    elif kind is bool:
        if type(value) is bool:
            return value
        if isinstance(value, str) and value.lower() in _BOOLEANS:
            return _BOOLEANS[value.lower()]
    elif kind is str:
        if type(value) is str:
            return value
    elif kind is Path:
        if isinstance(value, Path):
            return value
        if type(value) is str and value:
            return Path(value)
    elif get_origin(kind) is Literal:
        if type(value) is str and value in get_args(kind):
            return value
    elif get_origin(kind) is list and type(value) is list and all(type(v) is str for v in value):
        return list(value)  # list[str], the one list a setting is
    raise _Uncertain


def _within(value: Any, bounds: dict[str, int]) -> bool:
    for bound, limit in bounds.items():
        if value is None:
            continue
        if bound == "min_length":
            if len(value) < limit:
                return False
        elif not _BOUNDS[bound](value, limit):
            return False
    return True


def _take_plain(values: dict[str, Any]) -> dict[str, Any]:
    """Every setting from `values`, the environment or its default, each converted; _Uncertain
    as soon as one is not plainly valid (pydantic then decides them all)."""
    environment = {name.lower(): value for name, value in os.environ.items()
                   if name[:10].lower() == "tracepcap_"}
    taken: dict[str, Any] = {}
    for name, (kind, declared) in _fields().items():
        if name in values:
            value = values[name]
        elif f"tracepcap_{name}" in environment:
            value = environment[f"tracepcap_{name}"]
        else:
            value = declared.factory() if declared.factory else declared.default
        if name in _BEFORE:
            value = _BEFORE[name](value)
        value = _plain(kind, value)
        if not _within(value, declared.bounds):
            raise _Uncertain
        taken[name] = value
    completed = SimpleNamespace(**taken)
    if _complete(completed) is not None:
        raise _Uncertain
    return vars(completed)


def _as_validator(before: Any) -> classmethod:
    return classmethod(lambda cls, value: before(value))


@lru_cache(maxsize=1)
def validating_model() -> type:
    """The pydantic-settings model of the same declarations: the rules, and their errors."""
    from typing import Annotated

    from pydantic import Field, field_validator, model_validator
    from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"model_config": SettingsConfigDict(env_prefix="TRACEPCAP_", extra="ignore"),
                                 "__module__": __name__, "__qualname__": "Settings"}
    for name, (kind, declared) in _fields().items():
        annotations[name] = Annotated[kind, NoDecode] if get_origin(kind) is list else kind
        bounds: dict[str, Any] = declared.bounds
        namespace[name] = (Field(default_factory=declared.factory, **bounds) if declared.factory
                           else Field(declared.default, **bounds))
    namespace["__annotations__"] = annotations
    for name, before in _BEFORE.items():
        namespace[f"_before_{name}"] = field_validator(name, mode="before")(_as_validator(before))

    def after(self: Any) -> Any:
        problem = _complete(self)
        if problem:
            raise ValueError(problem)
        return self
    namespace["_complete"] = model_validator(mode="after")(after)
    return type("Settings", (BaseSettings,), namespace)



@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
