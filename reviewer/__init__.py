"""kernel-reviewer: evidence-backed reviews of GPU and accelerator kernels."""

__version__ = "0.1.0"
