#!/usr/bin/env bash
# The one-shot device check (issue 27), on a GPU machine that has Python, torch, Triton and the CUDA
# tools but not this project's other dependencies nor bubblewrap: install them from .whl/ (cp312
# wheels, this project's wheel, and Debian's bubblewrap .deb in .whl/debs), then run
# benchmarks/device_check.py. Prepare .whl/ on a machine with pip (benchmarks/device_wheels.sh).
#   bash benchmarks/device_check.sh [device_check.py options]
set -uo pipefail
cd "$(dirname "$0")/.."
site=/opt/kreview-site
debs=/opt/kreview-debs
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .whl/*.whl || exit 2
if ! command -v bwrap >/dev/null; then
  mkdir -p "$debs" && for f in .whl/debs/*.deb; do dpkg -x "$f" "$debs"; done
  export PATH="$debs/usr/bin:$PATH"
  if ldd "$debs/usr/bin/bwrap" | grep -q "not found"; then
    export LD_LIBRARY_PATH="$debs/usr/lib/x86_64-linux-gnu:$debs/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  fi
fi
export PYTHONPATH="$site" PYTHONUNBUFFERED=1
exec python3 benchmarks/device_check.py "$@"
