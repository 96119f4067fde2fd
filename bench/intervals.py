"""The 95 % Wilson interval every benchmark here prints beside a rate (one copy for all of them)."""
from __future__ import annotations


def wilson(k: float, n: int, z: float = 1.96, empty: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """Wilson score interval of the rate ``k/n`` (``empty`` when ``n`` is 0), clipped to [0, 1]."""
    if n == 0:
        return empty
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / d
    return (max(0.0, c - h), min(1.0, c + h))
