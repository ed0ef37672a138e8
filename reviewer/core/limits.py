"""Resource limits applied to every sandbox child."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SandboxLimits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    call_timeout_s: float = Field(120.0, gt=0, description="wall time for one request (one case)")
    startup_timeout_s: float = Field(90.0, gt=0, description="wall time to start and import")
    # Rationale: RLIMIT_AS rather than RSS, because it fails the allocation inside the child (a clean
    # MemoryError/bad_alloc) instead of the kernel OOM killer picking a process. torch + triton + jax
    # reserve ~2.2 GiB of address space after import (measured), so the floor must sit well above.
    memory_mb: int = Field(6144, ge=3072, description="address-space limit (RLIMIT_AS)")
    threads: int = Field(2, ge=1, description="intra-op threads for torch / OpenMP in the child")
    file_size_mb: int = Field(2048, ge=1, description="largest file the child may write")
    # Rationale: RLIMIT_FSIZE bounds one file; many files each under it filled 2.4 GB of a host disk.
    # Twice the largest file: an output file and its copy for the other side fit.
    disk_mb: int = Field(8192, ge=64, description="all files a sandbox child keeps on disk together")

    def describe(self) -> str:
        return (
            f"timeout {self.call_timeout_s:g}s/call, memory {self.memory_mb} MiB address space, "
            f"{self.threads} threads"
        )
