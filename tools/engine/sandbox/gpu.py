"""What a sandbox child is given of the machine's GPU, and nothing more.

A review on a GPU runs the submission on the device the review was given (``--device cuda:N``, or the
first one): the child sees that GPU's device node and no other (``/dev/nvidia<minor>``), the control
nodes every CUDA process opens (``nvidiactl``, ``nvidia-uvm``, ``nvidia-uvm-tools``, ``nvidia-modeset``,
``nvidia-caps``), the driver's user-space libraries wherever the machine keeps them, and the CUDA
toolkit the review uses, all read-only; ``CUDA_VISIBLE_DEVICES`` names that GPU by UUID so the
enumeration order inside cannot pick another. Its JIT caches (Triton, the CUDA driver's PTX cache)
are the child's own folders. Nothing of this is bound on a machine without a GPU.

Parent side only: never imported by a child.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the sandbox's files stand alone (tests copy them): no import of the engine at run time
    from tools.engine.runsetup import DeviceInfo

# Rationale: the nodes a CUDA process opens besides its GPU's own (nvidia-uvm for unified memory,
# nvidiactl for the driver, nvidia-caps for MIG and profiling capabilities); /dev/dri for
# render nodes where the driver exposes them.
CONTROL_NODES = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "nvidia-caps", "dri")
# other accelerators whose nodes the reviewer binds as a whole when asked (AMD kfd, Neuron, accel class)
OTHER_NODES = ("kfd", "neuron*", "accel")
_PER_GPU = re.compile(r"^nvidia(\d+)$")
# driver libraries: what a CUDA or NVML program dlopens (libcuda, libnvidia-*, libnvcuvid, ...)
_DRIVER_LIB = re.compile(r"^lib(cuda|nvidia-|nvcuvid|nvoptix|cudadebugger)")
# Rationale: CUDA reads the PCI tree (NUMA node, BAR sizes) and NVML the driver's module parameters;
# nothing else of /sys is needed, so the rest (firmware tables, other devices, cgroups) stays hidden.
SYS_PATHS = ("/sys/devices", "/sys/bus/pci", "/sys/module/nvidia", "/sys/module/nvidia_uvm", "/sys/class/drm",
             "/sys/dev/char")


@dataclass(frozen=True)
class GpuAccess:
    """The device nodes, read-only folders and environment one GPU child is given."""

    nodes: tuple[str, ...]
    readonly: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    sys_paths: tuple[str, ...] = SYS_PATHS
    notes: tuple[str, ...] = field(default=(), compare=False)

    def describe(self) -> dict[str, object]:
        return {"nodes": list(self.nodes), "readonly": list(self.readonly), "env": dict(self.env),
                "notes": list(self.notes)}


def _dev(pattern: str, dev: Path) -> list[str]:
    return [str(p) for p in sorted(dev.glob(pattern))]


def per_gpu_nodes(dev: Path = Path("/dev")) -> dict[int, str]:
    """``{minor: "/dev/nvidia<minor>"}`` for every GPU node present."""
    found = {}
    for p in sorted(dev.glob("nvidia*")):
        m = _PER_GPU.match(p.name)
        if m:
            found[int(m.group(1))] = str(p)
    return found


def minor_for_bus_id(bus_id: str, proc: Path = Path("/proc/driver/nvidia/gpus")) -> int | None:
    """The device minor of the GPU at PCI ``bus_id`` (``0000:4e:00.0``), from the driver's proc file."""
    if not bus_id:
        return None
    want = bus_id.lower()
    try:
        entries = list(proc.iterdir())
    except OSError:
        return None
    for entry in entries:
        # the driver names folders by domain:bus:device.function; torch reports 8-digit domains at times
        if entry.name.lower().split(":", 1)[-1] != want.split(":", 1)[-1]:
            continue
        try:
            text = (entry / "information").read_text(errors="replace")
        except OSError:
            return None
        m = re.search(r"^Device Minor:\s*(\d+)", text, re.M)
        return int(m.group(1)) if m else None
    return None


@functools.lru_cache(maxsize=1)
def _ldconfig_dirs() -> tuple[str, ...]:
    """Folders of the driver libraries in the dynamic loader's cache (``ldconfig -p``)."""
    exe = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
    if exe is None:
        return ()
    try:
        out = subprocess.run([exe, "-p"], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    dirs = []
    for line in out.splitlines():
        name, _, path = line.strip().partition(" => ")
        if path and _DRIVER_LIB.match(name.split()[0] if name else ""):
            dirs.append(str(Path(path).parent))
    return tuple(dict.fromkeys(dirs))


def driver_library_dirs(environ: dict[str, str] | None = None) -> list[str]:
    """Folders holding the driver's user-space libraries outside ``/usr`` (which every child has):
    the loader cache's, ``LD_LIBRARY_PATH``'s that hold one, ``/usr/local/nvidia`` style installs."""
    env = os.environ if environ is None else environ
    cands: list[str] = list(_ldconfig_dirs())
    for d in env.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        try:
            if d and any(_DRIVER_LIB.match(n) for n in os.listdir(d)):
                cands.append(d)
        except OSError:
            continue
    out = []
    for d in cands:
        real = os.path.realpath(d)
        if not real.startswith("/usr/") and os.path.isdir(real) and real not in out:
            out.append(real)
    return out


def toolkit_dirs(environ: dict[str, str] | None = None) -> list[str]:
    """The CUDA toolkit the review uses (``CUDA_HOME``/``CUDA_PATH``, the folder of ``nvcc`` on PATH),
    where it lives outside ``/usr``."""
    env = os.environ if environ is None else environ
    out: list[str] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        v = env.get(var)
        if v and os.path.isdir(v):
            out.append(os.path.realpath(v))
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc:
        out.append(str(Path(os.path.realpath(nvcc)).parent.parent))
    return [d for d in dict.fromkeys(out) if not d.startswith("/usr/") and d != "/usr"]


def access(*, uuid: str | None = None, bus_id: str | None = None, dev: Path = Path("/dev"),
           proc: Path = Path("/proc/driver/nvidia/gpus"), environ: dict[str, str] | None = None) -> GpuAccess:
    """What a child running kernels on the GPU (``uuid``, at PCI ``bus_id``) is given.

    Its own GPU node only when the driver says which minor it is; every GPU node otherwise (with a note),
    since CUDA_VISIBLE_DEVICES still selects the one GPU."""
    nodes: list[str] = []
    notes: list[str] = []
    gpus = per_gpu_nodes(dev)
    minor = minor_for_bus_id(bus_id or "", proc)
    if minor is not None and minor in gpus:
        nodes.append(gpus[minor])
    else:
        nodes += gpus.values()
        if len(gpus) > 1:
            notes.append("which /dev/nvidia<N> is the review's GPU is unknown: every GPU node bound, "
                         "CUDA_VISIBLE_DEVICES selects it")
    for name in (*CONTROL_NODES, *OTHER_NODES):
        nodes += _dev(name, dev)
    env: list[tuple[str, str]] = []
    if uuid:
        env.append(("CUDA_VISIBLE_DEVICES", uuid))
    return GpuAccess(nodes=tuple(dict.fromkeys(nodes)), readonly=tuple(driver_library_dirs(environ) +
                                                                         toolkit_dirs(environ)),
                     env=tuple(env), notes=tuple(notes))


def for_device(device: DeviceInfo) -> GpuAccess | None:
    """The access a child running kernels on ``device`` gets; None for a CPU review."""
    if not device.has_gpu:
        return None
    return access(uuid=device.uuid, bus_id=device.bus_id)


def child_env(workdir: Path, gpu: GpuAccess) -> dict[str, str]:
    """The GPU child's own caches (the CUDA driver's PTX JIT cache; Triton's is set for every child)
    and the device selection."""
    cache = workdir / "cuda-cache"
    cache.mkdir(parents=True, exist_ok=True)
    return {"CUDA_CACHE_PATH": str(cache), "CUDA_DEVICE_ORDER": "PCI_BUS_ID", **dict(gpu.env)}
