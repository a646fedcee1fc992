"""Dask trust (issue 23, item 9): results come back from the cluster as pickles, so a shard
goes only to a scheduler over TLS (with certificates from settings) or on this machine; a
plain tcp:// scheduler elsewhere is refused with a clear error unless explicitly allowed.
Unit tests of the rule and of the TLS configuration, and one walk on a real TLS cluster."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

import pytest

from tracepcap.extract import parallel
from tracepcap.dask_trust import DaskCluster, SchedulerRefused, is_loopback
from tracepcap.extract.parallel import run_extract
from tracepcap.extract.pipeline import extract
from tracepcap.present.cli import main
from tracepcap.settings import Settings

from support.cli import run_cli, sqlite_store


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tcp://127.8.9.10:1",
                                     "tcp://[::1]:8786", "tcp://localhost:8786", "tcp://LOCALHOST.:8786",
                                     "tcp://[::ffff:127.0.0.1]:8786", "inproc://10.0.0.1/1/2", "ws://127.0.0.1:1"])
def test_plain_schedulers_on_this_machine_are_accepted(address):
    DaskCluster(address).check()
    assert DaskCluster(address).security() is None


@pytest.mark.parametrize("address", ["tcp://10.0.0.1:8786", "10.0.0.1:8786", "tcp://dask.example.org:8786",
                                     "tcp://[2001:db8::1]:8786", "tcp://0.0.0.0:8786", "ws://10.0.0.1:1",
                                     "tcp://127.0.0.1.nip.io:8786", "tcp://localhost.example.org:1"])
def test_plain_schedulers_elsewhere_are_refused_unless_allowed(address):
    with pytest.raises(SchedulerRefused, match="TRACEPCAP_DASK_ALLOW_INSECURE"):
        DaskCluster(address).check()
    DaskCluster(address, allow_insecure=True).check()


@pytest.mark.parametrize("address, said", [("ucx://10.0.0.1:1", "ucx://"), ("tcp://:8786", "names no host"),
                                           ("tls://10.0.0.1:8786", "TRACEPCAP_DASK_TLS_CA_FILE")])
def test_other_schemes_and_incomplete_addresses_are_refused(address, said):
    with pytest.raises(SchedulerRefused, match=said):
        DaskCluster(address, allow_insecure=True).check()


def test_loopback_is_an_address_never_a_name_to_resolve():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("127.0.0.1.example.org") and not is_loopback("10.0.0.1") and not is_loopback("")


# -- TLS ---------------------------------------------------------------------------------------

def _pem_files(directory: Path) -> dict[str, Path]:
    """A CA and one certificate it signed for 127.0.0.1 / localhost, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tracepcap test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(ca_key, hashes.SHA256()))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False).sign(ca_key, hashes.SHA256()))
    files = {"ca": directory / "ca.pem", "cert": directory / "cert.pem", "key": directory / "key.pem"}
    files["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files["key"].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    return files


def test_tls_settings_build_dasks_security(tmp_path):
    files = _pem_files(tmp_path)
    settings = Settings(data_dir=tmp_path, dask_scheduler="tls://dask.example.org:8786",
                        dask_tls_ca_file=files["ca"], dask_tls_cert_file=files["cert"],
                        dask_tls_key_file=files["key"])
    settings.check_dask()
    security = settings.dask_cluster.security()
    assert security.require_encryption is True
    assert (security.tls_ca_file, security.tls_client_cert, security.tls_client_key) == (
        str(files["ca"]), str(files["cert"]), str(files["key"]))
    context = security.get_connection_args("client")
    assert context["require_encryption"] and context["ssl_context"] is not None
    combined = DaskCluster("tls://10.0.0.1:1", files["ca"], files["cert"]).security()  # key inside the cert file
    assert combined.tls_client_key is None and combined.require_encryption


def test_tls_settings_that_cannot_work_are_refused(tmp_path):
    files = _pem_files(tmp_path)
    with pytest.raises(SchedulerRefused, match="TRACEPCAP_DASK_TLS_CERT_FILE"):
        DaskCluster("tls://10.0.0.1:1", files["ca"]).check()
    with pytest.raises(SchedulerRefused, match="not a readable file"):
        DaskCluster("tls://10.0.0.1:1", files["ca"], files["cert"], tmp_path / "gone.pem").check()
    with pytest.raises(SchedulerRefused, match="write it as tls://"):  # certificates, yet plain text
        DaskCluster("tcp://127.0.0.1:1", files["ca"], files["cert"], files["key"]).check()


def test_a_refused_scheduler_is_an_error_not_a_quiet_local_walk(tmp_path, captures):
    """run_extract walks once locally when a cluster fails; a refusal must not be one."""
    with pytest.raises(SchedulerRefused):
        run_extract(captures / "dns_demo.pcap", "ab", scheduler="tcp://10.0.0.1:8786")
    with pytest.raises(SchedulerRefused):
        parallel.on_dask("tcp://10.0.0.1:8786", str(captures / "dns_demo.pcap"), "ab", None, 1, print)


def test_the_cli_and_the_server_refuse_it_at_start(tmp_path, captures, capsys):
    code, _out, err = run_cli("analyze", captures / "dns_demo.pcap", "--scheduler", "tcp://10.0.0.1:8786",
                              db=sqlite_store(tmp_path), data_dir=tmp_path)
    assert code == 2 and "refusing the plain tcp:// Dask scheduler" in err
    assert not list(tmp_path.glob("captures/**/*.pcap*"))  # refused before anything was stored
    from tracepcap.present.app import create_app
    with pytest.raises(SchedulerRefused):
        create_app(Settings(data_dir=tmp_path, database_url=sqlite_store(tmp_path),
                            dask_scheduler="tcp://10.0.0.1:8786"))
    create_app(Settings(data_dir=tmp_path, database_url=sqlite_store(tmp_path),
                        dask_scheduler="tcp://10.0.0.1:8786", dask_allow_insecure=True))


def test_a_walk_on_a_tls_cluster_gives_one_walks_result(tmp_path, captures):
    from distributed import LocalCluster
    from distributed.security import Security

    files = {k: str(v) for k, v in _pem_files(tmp_path).items()}
    roles = {f"tls_{role}_{part}": files[part] for role in ("scheduler", "worker", "client")
             for part in ("cert", "key")}
    cluster_security = Security(tls_ca_file=files["ca"], require_encryption=True, **roles)
    path = captures / "dns_demo.pcap"
    rows: list[dict] = []
    expected = extract(path, "ab", on_conversation=rows.append)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://",
                      security=cluster_security, dashboard_address=None, scheduler_port=0,
                      silence_logs=40) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        ours = DaskCluster(cluster.scheduler_address, Path(files["ca"]), Path(files["cert"]), Path(files["key"]))
        got: list[dict] = []
        outputs = parallel.on_dask(ours, str(path), "ab", parallel.Limits(), 1, lambda done, total: None)
        assert len(outputs) == 1  # reached the cluster (a failure would raise here, not fall back)
        assert run_extract(path, "ab", scheduler=ours, on_conversation=got.append) == expected
        assert got == sorted(rows, key=lambda row: row["first_frame"])
        # the same cluster without our certificates: plain tcp is refused, TLS needs the files
        with pytest.raises(SchedulerRefused):
            DaskCluster(cluster.scheduler_address).check()


def test_main_exits_2_on_a_refused_scheduler(tmp_path, captures, capsys, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_DATA_DIR", str(tmp_path))
    assert main(["analyze", str(captures / "dns_demo.pcap"), "--db", sqlite_store(tmp_path),
                 "--scheduler", "tls://10.0.0.1:8786"]) == 2
    assert "TRACEPCAP_DASK_TLS_CA_FILE" in capsys.readouterr().err
