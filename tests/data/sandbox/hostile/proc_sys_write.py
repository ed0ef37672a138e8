"""Opens machine-wide /proc files for writing (never writes: opening alone changes nothing): under a
reviewer run as root the child is the host's root, and a write to kernel.core_pattern would run a program
of its choosing as root on the next crash, one to sysrq-trigger would reboot the machine. Expected: every
open refused (read-only: tools/engine/sandbox/bwrap.py PROC_READONLY)."""

import os

PATHS = ("/proc/sysrq-trigger", "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname",
         "/proc/sys/kernel/printk_ratelimit_burst", "/proc/sys/vm/drop_caches", "/proc/sys/fs/file-max",
         "/proc/irq/default_smp_affinity")


def attack(t: dict) -> dict:
    opened = []
    for path in PATHS:
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        os.close(fd)
        opened.append(path)
    return {"opened": opened}


# -- the same file is a KernelBench submission (the review runs it) and a stdlib script (the
# unprivileged run of the suite): it reports what it achieved, as JSON, in its exception.
def _targets() -> dict:
    import json
    from pathlib import Path

    p = Path(__file__).with_name("targets.json")
    return json.loads(p.read_text()) if p.exists() else {}


try:
    import torch.nn as _nn
except ImportError:  # run as a script
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            import json

            raise RuntimeError("KREVIEW-HOSTILE " + json.dumps(attack(_targets())))

if __name__ == "__main__":
    import json
    import sys

    print("KREVIEW-HOSTILE " + json.dumps(attack(json.loads(sys.argv[1]))))
