"""The Ascend C CPU simulator: C++17 headers named like CANN's, plus helpers to compile against them."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def include_dir() -> Path:
    """Directory to pass as ``-I`` so that ``#include "kernel_operator.h"`` finds the simulator."""
    return _HERE / "include"


__all__ = ["include_dir"]
