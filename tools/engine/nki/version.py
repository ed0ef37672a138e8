"""The NKI version the reviewer's interpreter follows, the documentation it was written from, and the
hardware limits it enforces.

Pinned: the NKI of AWS Neuron SDK 2.25.0 (July 2025; neuronx-cc 2.20.2831.0), the ``neuronxcc.nki``
API with ``nl.load``/``nl.store``, masks and ``nl.arange``/``nl.mgrid`` index grids, targeting trn1
(NeuronCore-v2). The newer top-level ``nki`` spelling (SDK 2.27+) is accepted as an alias for the same
semantics. Every constant below cites the page it comes from (paths under ``DOCS``).
"""

from __future__ import annotations

SDK_VERSION = "2.25.0"
TARGET = "trn1 (NeuronCore-v2)"
#: In every message of a feature the interpreter does not model (outcomes read it to call the check
#: unverified; here, not in the interpreter package, so reading it does not load the interpreter).
UNSUPPORTED_MARK = "not simulated by the reviewer's NKI interpreter"
#: Before the interpreter's report (JSON) where it rides on a failed call's exception as a note
#: (tools/engine/harness/instruments/nki.py writes it, tools/nki/report.py reads it).
NOTE_PREFIX = "kreview-nki-report: "
DOCS = f"https://awsdocs-neuron.readthedocs-hosted.com/en/v{SDK_VERSION}/general/nki/"

#: The pages the interpreter follows (read, not copied).
PAGES = {
    "programming_model": DOCS + "programming_model.html",
    "errors": DOCS + "api/nki.errors.html",
    "language": DOCS + "api/nki.language.html",
    "isa": DOCS + "api/nki.isa.html",
    "common_fields": DOCS + "api/nki.api.shared.html",
    "arch": DOCS + "arch/trainium_inferentia2_arch.html",
    "known_issues": DOCS + "nki_known_issues.html",
    "simulate_kernel": DOCS + "api/generated/nki.simulate_kernel.html",
    "psum_alloc": DOCS + "api/generated/nki.compiler.psum.alloc.html",
    "simulator_new": "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/guides/nki_simulator.html",
}

#: How every piece of evidence produced by our interpreter names its source.
INTERPRETER_LABEL = f"simulated by the reviewer's NKI interpreter, NKI {SDK_VERSION} semantics"

# programming_model "Tile size considerations" TC#1..TC#3; arch "Tile Size" of TensorE.
PMAX = 128
PSUM_FMAX = 512
GEMM_STATIONARY_FMAX = 128
GEMM_MOVING_FMAX = 512
BN_STATS_FMAX = 512
# arch "NeuronCore-v2": 24 MiB SBUF and 2 MiB PSUM in 128 partitions: 192 KiB and 16 KiB per partition;
# "Near-memory accumulation in PSUM": 8 banks of 2 KiB (512 fp32) per partition.
SBUF_BYTES_PER_PARTITION = 192 * 1024
PSUM_BYTES_PER_PARTITION = 16 * 1024
PSUM_BANKS = 8
PSUM_BANK_BYTES = 2 * 1024
# nc_transpose: TensorE up to (128, 128), VectorE up to (32, 32).
TRANSPOSE_VECTOR_MAX = 32
