"""The seccomp filter every sandbox child runs under (a BPF program handed to bubblewrap).

Bubblewrap already gives the child a user namespace with no capabilities, so most of these calls
would fail anyway; the filter is the second wall: the calls a process uses to change what it can
see (mounts, namespaces), to reach into other processes (ptrace, process_vm_*), or to reach the
kernel's rarely audited surfaces (bpf, perf, keyrings, io_uring, module loading, kexec) fail with
EPERM whatever the namespace setup turned out to be. Built with ``pyseccomp`` (ctypes bindings of
the system's libseccomp); bwrap loads it last, after its own setup, just before running the child.
"""

from __future__ import annotations

import errno
import os
import tempfile

# Rationale: each name is a way out or a large kernel attack surface; nothing a kernel review runs
# (torch, triton, jax, compilers, CUDA) needs any of them.
DENIED = (
    # the filesystem view: every mount API, old and new
    "mount", "umount", "umount2", "mount_setattr", "open_tree", "move_mount", "fsopen", "fsconfig",
    "fsmount", "fspick", "pivot_root", "chroot",
    # namespaces: entering the host's or making new ones (clone with CLONE_NEW* is below)
    "setns", "unshare",
    # other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel surfaces
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "quotactl_fd",
    "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "lookup_dcookie",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "nfsservctl", "vhangup", "uselib", "personality",
)

# clone flags that create namespaces (linux/sched.h)
# (NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME)
_CLONE_NEW = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080)


# Socket address families a child may create (linux/socket.h): local sockets, IPv4/IPv6 (the
# network namespace leaves them nothing to reach but loopback) and netlink (glibc's getaddrinfo and
# getifaddrs ask it). Rationale: every other family is either a way past the network namespace
# (AF_VSOCK reaches the hypervisor or host across it) or a rarely audited kernel surface (AF_ALG,
# AF_PACKET, AF_XDP, AF_KCM, AF_TIPC, AF_RDS, ...); socket and socketpair with any other family fail
# with EAFNOSUPPORT, as on a kernel built without them.
ALLOWED_FAMILIES = (1, 2, 10, 16)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
_LAST_FAMILY_RULED = max(ALLOWED_FAMILIES)


class SeccompUnavailable(RuntimeError):
    pass


def build_filter_bytes() -> bytes:
    """The BPF program: allow by default, EPERM for ``DENIED``, ENOSYS for clone3 (its flags sit in
    memory a filter cannot read; glibc then falls back to clone, whose flags are checked),
    EAFNOSUPPORT for sockets outside ``ALLOWED_FAMILIES``."""
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as exc:  # the package or libseccomp.so.2 missing
        raise SeccompUnavailable(f"no seccomp filter: pyseccomp/libseccomp not available ({exc}); "
                                 "pip install pyseccomp (a dependency of kernel-reviewer) and "
                                 "apt-get install -y libseccomp2") from exc
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        for name in DENIED:
            try:
                f.add_rule(sc.ERRNO(errno.EPERM), name)
            except (RuntimeError, ValueError, OSError):
                continue  # a syscall this architecture does not have
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        # Rationale: one rule per namespace flag (a masked equality tests one pattern): any of them denies.
        for flag in _CLONE_NEW:
            f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        # socket families: each one below the highest allowed, unless allowed, then all above it
        # (a value with any of the upper 32 bits set is above it too)
        for call in ("socket", "socketpair"):
            for family in range(_LAST_FAMILY_RULED):
                if family not in ALLOWED_FAMILIES:
                    f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), call, sc.Arg(0, sc.EQ, family))
            f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), call, sc.Arg(0, sc.GT, _LAST_FAMILY_RULED))
        with tempfile.TemporaryFile() as fh:
            f.export_bpf(fh)
            fh.seek(0)
            return fh.read()
    except SeccompUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - any libseccomp failure means no filter: fail closed upstream
        raise SeccompUnavailable(f"building the seccomp filter failed: {type(exc).__name__}: {exc}") from exc


_CACHE: list[bytes] = []


def filter_fd() -> int:
    """A fresh readable fd holding the BPF program (bwrap reads it to the end, so one per child)."""
    if not _CACHE:
        _CACHE.append(build_filter_bytes())
    fd = os.memfd_create("kreview-seccomp", 0)
    os.write(fd, _CACHE[0])
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
