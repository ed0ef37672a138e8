"""What a sandbox child is given of a GPU (issue 27), checked on a machine without one: device nodes,
driver libraries and the device selection are read from a fake /dev, /proc/driver/nvidia and
LD_LIBRARY_PATH, and the bubblewrap command line binds exactly those, and nothing without a GPU."""

from __future__ import annotations

from pathlib import Path

import tools.engine.sandbox.bwrap as bwrap
from tools.engine.sandbox import gpu
from tools.engine.runsetup import DeviceInfo


def _machine(tmp_path: Path, gpus: int = 4) -> tuple[Path, Path]:
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "null", "sda"):
        (dev / name).touch()
    (dev / "nvidia-caps").mkdir()
    proc = tmp_path / "gpus"
    for minor in range(gpus):
        (dev / f"nvidia{minor}").touch()
        # the driver's folder names are PCI addresses; minors need not follow their order
        bus = f"0000:{0x1b + 0x20 * (gpus - 1 - minor):02x}:00.0"
        (proc / bus).mkdir(parents=True)
        (proc / bus / "information").write_text(f"Model: \t NVIDIA H100\nIRQ: 42\nDevice Minor: \t {minor}\n")
    return dev, proc


def test_only_the_reviews_gpu_node_and_the_control_nodes_are_bound(tmp_path: Path) -> None:
    dev, proc = _machine(tmp_path)
    got = gpu.access(uuid="GPU-abc", bus_id="0000:3b:00.0", dev=dev, proc=proc, environ={"PATH": "/usr/bin"})
    # bus 0x3b is minor 2 in the fake driver table (0x1b + 0x20 * (4 - 1 - 2))
    assert got.nodes == (str(dev / "nvidia2"), str(dev / "nvidiactl"), str(dev / "nvidia-uvm"),
                         str(dev / "nvidia-uvm-tools"), str(dev / "nvidia-modeset"), str(dev / "nvidia-caps"))
    assert dict(got.env) == {"CUDA_VISIBLE_DEVICES": "GPU-abc"} and not got.notes
    # torch may report an 8-digit PCI domain
    assert gpu.minor_for_bus_id("00000000:3b:00.0", proc) == 2


def test_an_unknown_minor_binds_every_gpu_node_and_says_so(tmp_path: Path) -> None:
    dev, proc = _machine(tmp_path)
    got = gpu.access(uuid="GPU-abc", bus_id=None, dev=dev, proc=proc, environ={})
    assert [n for n in got.nodes if Path(n).name.startswith("nvidia") and Path(n).name[6:].isdigit()] == \
        [str(dev / f"nvidia{i}") for i in range(4)]
    assert got.notes and "CUDA_VISIBLE_DEVICES" in got.notes[0]


def test_driver_libraries_outside_usr_are_found_on_the_loader_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(gpu, "_ldconfig_dirs", lambda: ())
    nv = tmp_path / "nvidia" / "lib64"
    nv.mkdir(parents=True)
    (nv / "libcuda.so.1").touch()
    plain = tmp_path / "other"
    plain.mkdir()
    (plain / "libfoo.so").touch()
    dirs = gpu.driver_library_dirs({"LD_LIBRARY_PATH": f"{nv}:{plain}:/usr/lib/x86_64-linux-gnu"})
    assert dirs == [str(nv.resolve())]


def test_the_command_line_binds_the_gpu_only_when_given_one(tmp_path: Path) -> None:
    dev, proc = _machine(tmp_path, gpus=1)
    etc = bwrap.passwd_file(tmp_path / "etc")
    without = bwrap.command(writable=[tmp_path / "w"], chdir=tmp_path / "w", etc_dir=etc, seccomp_fd=None, gpu=None)
    assert not any("nvidia" in a for a in without) and "/sys/devices/system/cpu" in without
    assert "/sys/bus/pci" not in without
    access = gpu.access(uuid="GPU-abc", bus_id="0000:1b:00.0", dev=dev, proc=proc, environ={})
    with_gpu = bwrap.command(writable=[tmp_path / "w"], chdir=tmp_path / "w", etc_dir=etc, seccomp_fd=None,
                             gpu=access)
    pairs = list(zip(with_gpu, with_gpu[1:]))
    assert ("--dev-bind", str(dev / "nvidia0")) in pairs and ("--dev-bind", str(dev / "nvidiactl")) in pairs
    assert ("--dev-bind", str(dev / "null")) not in pairs and ("--dev-bind", str(dev / "sda")) not in pairs
    assert "/sys" not in with_gpu  # the PCI part of /sys, not all of it
    env = gpu.child_env(tmp_path / "w", access)
    assert env["CUDA_VISIBLE_DEVICES"] == "GPU-abc" and Path(env["CUDA_CACHE_PATH"]).is_dir()


def test_a_cpu_review_gets_no_gpu() -> None:
    assert gpu.for_device(DeviceInfo(kind="cpu", name="cpu")) is None
