# Sourced by the other scripts: creates .venv with Python 3.11 and installs the project
# (with the extras named in $TRACEPCAP_EXTRAS) when pyproject.toml changed since last time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null || python=python3
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
extras="${TRACEPCAP_EXTRAS:-}"
stamp="$venv/.installed-$(sha256sum "$root/pyproject.toml" | cut -c1-16)-${extras:-none}"
if [ ! -f "$stamp" ]; then
  spec="$root"
  [ -n "$extras" ] && spec="$root[$extras]"
  "$venv/bin/python" -m pip install --quiet -e "$spec"
  # the OUI table and the compiled User-Agent rules, derived once per machine (else on first use)
  "$venv/bin/python" -m tracepcap.warm >&2 || echo "reference data will be derived on first use" >&2
  touch "$stamp"
fi
