"""Which Dask scheduler a capture's shards may be sent to, and how (issue 23, item 9).

A sharded walk on Dask (extract/parallel.py `on_dask`) gets its results back from the
cluster's workers as pickles, and Dask unpickles them here: whoever can act as the scheduler
or a worker can run code in this process. The cluster must therefore be trusted, and the
connection to it must be one nobody else can take over:

* `tls://host:port`: Dask's TLS, with this client's certificate and the CA that signed the
  cluster's (`TRACEPCAP_DASK_TLS_CA_FILE`, `..._CERT_FILE`, `..._KEY_FILE` unless the
  certificate file holds the key too), encryption required;
* `tcp://` (or no scheme) only to this machine (a loopback address, or `localhost`), unless
  `TRACEPCAP_DASK_ALLOW_INSECURE` says the network in between is trusted too;
* `inproc://` (this process) as it is; any other scheme is refused.

A refusal is a UsageError naming the setting to change, raised before anything is sent.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .errors import UsageError

PLAIN = frozenset({"tcp", "ws"})
ENCRYPTED = frozenset({"tls", "wss"})
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class SchedulerRefused(UsageError):
    """A Dask scheduler address this process will not send work to (or take results from)."""


def is_loopback(host: str) -> bool:
    """A loopback address (IPv4 127/8, ::1, IPv4-mapped 127/8) or the name localhost. Other
    names are not resolved: what a name resolves to can change after this check."""
    host = host.strip().lower().rstrip(".")
    if host in LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def _scheme_and_host(address: str) -> tuple[str, str]:
    text = address.strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else "tcp"  # Dask's default
    if scheme == "inproc":
        return scheme, ""
    try:
        host = urlsplit(text if "://" in text else f"tcp://{text}").hostname or ""
    except ValueError as err:
        raise SchedulerRefused(f"the Dask scheduler address {address!r} cannot be read: {err}") from None
    if not host:
        raise SchedulerRefused(f"the Dask scheduler address {address!r} names no host (tls://host:8786)")
    return scheme, host


@dataclass(frozen=True)
class DaskCluster:
    """A scheduler address and how to reach it (from Settings: `Settings.dask_cluster`)."""

    address: str
    tls_ca_file: Path | None = None
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    allow_insecure: bool = False

    @property
    def tls_configured(self) -> bool:
        return any(f is not None for f in (self.tls_ca_file, self.tls_cert_file, self.tls_key_file))

    def check(self) -> None:
        """SchedulerRefused unless this scheduler may be used as configured."""
        scheme, host = _scheme_and_host(self.address)
        if scheme == "inproc":
            return
        if scheme in ENCRYPTED:
            self._tls_files()
            return
        if scheme not in PLAIN:
            raise SchedulerRefused(f"the Dask scheduler {self.address!r} uses {scheme}://, which TracePcap "
                                   "does not send work over: use tls://host:port")
        if self.tls_configured:
            raise SchedulerRefused(f"TLS certificates are configured but the Dask scheduler {self.address!r} is "
                                   f"plain {scheme}://: write it as tls://{host}:port")
        if not is_loopback(host) and not self.allow_insecure:
            raise SchedulerRefused(
                f"refusing the plain {scheme}:// Dask scheduler {self.address!r}: it is not on this machine, and "
                "results come back from the cluster as pickles, which run code here. Use tls:// with "
                "TRACEPCAP_DASK_TLS_CA_FILE / _CERT_FILE / _KEY_FILE, or set TRACEPCAP_DASK_ALLOW_INSECURE=true "
                "if every host on the way to it is trusted")

    def _tls_files(self) -> tuple[Path, Path, Path | None]:
        missing = [name for name, value in (("TRACEPCAP_DASK_TLS_CA_FILE", self.tls_ca_file),
                                            ("TRACEPCAP_DASK_TLS_CERT_FILE", self.tls_cert_file)) if value is None]
        if missing:
            raise SchedulerRefused(f"the tls:// Dask scheduler {self.address!r} needs {' and '.join(missing)} "
                                   "(the CA that signed the cluster's certificates, and this client's certificate)")
        for name, value in (("TRACEPCAP_DASK_TLS_CA_FILE", self.tls_ca_file),
                            ("TRACEPCAP_DASK_TLS_CERT_FILE", self.tls_cert_file),
                            ("TRACEPCAP_DASK_TLS_KEY_FILE", self.tls_key_file)):
            if value is not None and not Path(value).is_file():
                raise SchedulerRefused(f"{name} names {str(value)!r}, which is not a readable file")
        return self.tls_ca_file, self.tls_cert_file, self.tls_key_file

    def security(self):
        """The `distributed.security.Security` to connect with: TLS with our files and
        encryption required for tls://, None (Dask's default) otherwise. Checks first."""
        self.check()
        scheme, _ = _scheme_and_host(self.address)
        if scheme not in ENCRYPTED:
            return None
        from distributed.security import Security

        ca, cert, key = self._tls_files()
        files = {"tls_ca_file": str(ca), "tls_client_cert": str(cert)}
        if key is not None:
            files["tls_client_key"] = str(key)
        return Security(require_encryption=True, **files)


def as_cluster(scheduler: str | DaskCluster) -> DaskCluster:
    """A bare address (tests, callers without settings) is a cluster with no TLS files and
    no leave to go off this machine in plain text."""
    return scheduler if isinstance(scheduler, DaskCluster) else DaskCluster(str(scheduler))
