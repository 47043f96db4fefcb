"""What this machine lets citeline use. Standard library only: the model's server imports it.

``os.cpu_count()`` counts the machine's cores, not the ones this process may run on. Under
``taskset``, a container's cpuset or a test worker pinned to one core, a thread pool sized by it
oversubscribes the cores it has, and llama.cpp's and onnxruntime's threads, which spin while they
wait for each other at every step, then run several times slower than with one thread each.
"""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """How many cores this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform (macOS)
        return os.cpu_count() or 1
