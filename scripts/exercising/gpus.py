"""What this machine offers the grader: how many GPUs the CUDA driver sees and their
architectures (for the exercise's build), whether a grader's checks can run here, and where
compute-sanitizer is. Standard library only: the driver is asked through ctypes.
"""
import ctypes
import os
import shutil
from typing import List, Optional

from .graders import Grader


def gpu_count() -> int:
    """How many devices the CUDA driver sees (0 when it does not load)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def gpu_present() -> bool:
    """True when the CUDA driver loads and sees at least one device."""
    return gpu_count() > 0


def gpu_architectures() -> List[str]:
    """The visible GPUs' own architectures for CMake ("86-real": compute capability 8.6), in
    device order without repeats; empty when the driver does not load or sees no device."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return []
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return []
    found: List[str] = []
    for ordinal in range(count.value):
        device, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        if (cuda.cuDeviceGet(ctypes.byref(device), ordinal) != 0
                or cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device) != 0  # ..._MAJOR
                or cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device) != 0):  # ..._MINOR
            return []
        architecture = f"{major.value}{minor.value}-real"
        if architecture not in found:
            found.append(architecture)
    return found


def missing_gpus(grader: Grader, count: Optional[int] = None) -> str:
    """Why this machine cannot run `grader`'s checks ('' when it can): fewer GPUs than it needs."""
    count = gpu_count() if count is None else count
    if count >= grader.gpus:
        return ""
    if count == 0:
        return "no GPU"
    return f"needs {grader.gpus} GPUs, found {count}"


def find_sanitizer() -> Optional[str]:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/compute-sanitizer",
                      "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None
