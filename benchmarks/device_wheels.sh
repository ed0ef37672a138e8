#!/usr/bin/env bash
# Fill .whl/ for benchmarks/device_check.sh: this project's wheel, the cp312 wheels of the
# dependencies a GPU image with torch/Triton/JAX lacks (pydantic, langgraph, gitpython, pyseccomp, ...),
# and Debian's bubblewrap and libseccomp .debs. Run on a machine with pip and apt (the dev machine).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl/debs
rm -f .whl/kernel_reviewer-*.whl
python3 -m pip wheel -q --no-deps -w .whl .
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
      --platform manylinux2014_x86_64 --platform manylinux1_x86_64)
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp "${plat[@]}" -d .whl \
  pydantic pydantic-core annotated-types typing-inspection typing-extensions 'langgraph>=1.2,<2' \
  'langgraph-checkpoint-sqlite>=3,<4' langgraph-checkpoint langgraph-prebuilt langgraph-sdk langchain-core \
  langchain-protocol langsmith jsonpatch jsonpointer tenacity ormsgpack orjson zstandard requests-toolbelt \
  uuid-utils aiosqlite sqlite-vec gitpython gitdb smmap pyseccomp sniffio --no-deps
(cd .whl/debs && apt-get download bubblewrap libseccomp2 libcap2)
