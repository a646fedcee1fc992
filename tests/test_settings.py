"""Settings take plainly valid values without pydantic and leave every other case to the
pydantic-settings model of the same declarations: either way the result, or the
ValidationError word for word, is the model's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

import tracepcap
from tracepcap.settings import Settings, validating_model

CASES = [
    ({}, {}),
    ({"TRACEPCAP_MAX_RECORDS": "7", "TRACEPCAP_ANALYSIS_LEASE_SECONDS": "12.5"}, {}),
    ({"tracepcap_max_records": "8", "TRACEPCAP_DASK_ALLOW_INSECURE": "TRUE"}, {}),
    ({"TRACEPCAP_DASK_ALLOW_INSECURE": "yes", "TRACEPCAP_MAX_RECORDS": " 7 "}, {}),  # pydantic's reading
    ({"TRACEPCAP_MAX_RECORDS": "1_000", "TRACEPCAP_ANALYSIS_LEASE_SECONDS": "1e3"}, {}),
    ({"TRACEPCAP_ALLOWED_HOSTS": " A.example ,[::2],"}, {}),
    ({"TRACEPCAP_DASK_TLS_CA_FILE": "", "TRACEPCAP_DATABASE_URL": ""}, {}),
    ({"TRACEPCAP_MAX_RECORDS": "9"}, {"max_records": 3, "analysis_lease_seconds": 5, "data_dir": "rel"}),
    ({}, {"capture_workers": 3, "dask_scheduler": "tls://d.example:8786", "allowed_hosts": ["x"]}),
    ({}, {"auth": "oidc", "oidc_issuer": "https://sso.example.org/realms/t", "oidc_audience": "api"}),
    ({}, {"max_records": True, "analysis_workers": 2.0, "unknown": 1}),
    # refused, each with pydantic's words
    ({"TRACEPCAP_MAX_RECORDS": "0"}, {}),
    ({"TRACEPCAP_CAPTURE_WORKERS": ""}, {}),
    ({"TRACEPCAP_ALLOWED_HOSTS": " , "}, {}),
    ({"TRACEPCAP_ANALYSIS_WORKERS": "65", "TRACEPCAP_AUTH": "kerberos"}, {}),
    ({"TRACEPCAP_ANALYSIS_LEASE_SECONDS": "nan"}, {}),
    ({}, {"auth": "oidc"}),
    ({}, {"auth": "oidc", "oidc_issuer": "sso.example.org", "oidc_audience": "a"}),
    ({}, {"oidc_client_id": "", "capture_workers": 257}),
]


def outcome(make, values):
    try:
        return make(**values).model_dump()
    except ValidationError as err:
        return str(err)


@pytest.mark.parametrize("environment, values", CASES)
def test_the_settings_are_the_models(monkeypatch, tmp_path, environment, values):
    monkeypatch.setenv("TRACEPCAP_DATA_DIR", str(tmp_path))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert outcome(Settings, values) == outcome(validating_model(), values)


def test_plain_values_load_no_pydantic(tmp_path):
    probe = ("import sys; from tracepcap.settings import Settings; "
             "s = Settings(database_url='sqlite://', capture_workers=2); "
             "print(s.max_records, s.capture_workers, sorted(m for m in sys.modules if 'pydantic' in m))")
    src = str(Path(tracepcap.__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": src, "TRACEPCAP_DATA_DIR": str(tmp_path), "TRACEPCAP_MAX_RECORDS": "5"})
    assert done.stdout.split() == ["5", "2", "[]"]
