#!/usr/bin/env bash
# Create (once) the virtual environments of the two peer engines and print their folder:
#   catanatron 3.2.1 + catanatron-gym 4.0.0 (pure Python, any Python 3.11)
#   fastcatan 2.0.0 (C++ wheels for Python 3.12)
# Usage: A=$(bash benchmarks/peers/setup_peers.sh | tail -1)   (PEERS_DIR overrides the folder)
set -eu
A=${PEERS_DIR:-/tmp/catan_peers}
mkdir -p "$A"
if [ ! -x "$A/cat311/bin/python" ]; then
  python3 -m venv "$A/cat311"
  "$A/cat311/bin/pip" -q install catanatron==3.2.1 catanatron-gym==4.0.0 >/dev/null
fi
if [ ! -x "$A/fc312/bin/python" ]; then
  PY312=python3.12
  $PY312 -c pass 2>/dev/null || PY312=$(ls "$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3.12 2>/dev/null | head -1)
  if [ -z "$PY312" ]; then echo "fastcatan needs Python 3.12 (python3.12 not found)" >&2; exit 1; fi
  "$PY312" -m venv "$A/fc312"
  "$A/fc312/bin/pip" -q install fastcatan==2.0.0 numpy >/dev/null
fi
echo "$A"
