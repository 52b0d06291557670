#!/usr/bin/env bash
# CI for the Python package: builds and installs it (`pip install ./python`) into a venv
# under target/, then runs its pytest tests. Idempotent; called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
if ! [ -x "$venv/bin/python" ]; then
    # Debian's python3 needs python3-venv for `-m venv`.
    python3 -m venv "$venv" 2>/dev/null || {
        rm -rf "$venv"
        apt-get -qq update >/dev/null && apt-get -qq install -y python3-venv >/dev/null
        python3 -m venv "$venv"
    }
fi
# The maturin build backend runs the `maturin` command: the venv's, found on PATH.
export PATH="$PWD/$venv/bin:$PATH"
pip=("$venv/bin/python" -m pip -q --disable-pip-version-check)
# dask[distributed]: the optional extra of fourfold.distributed, whose tests run here too.
"${pip[@]}" install maturin pytest "dask[distributed]"
# maturin is in the venv already: build without a second isolated download of it.
"${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./python
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
