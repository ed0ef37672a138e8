"""Launch-size helpers of the submission."""


def next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p
