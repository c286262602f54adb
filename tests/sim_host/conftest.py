"""Fixtures of the host-side simulator tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from sim_host_util import build_harnesses


@pytest.fixture(scope="session")
def harnesses() -> dict[str, Path]:
    """name -> harness executable (axpy_float16, axpy_bfloat16, probe), built once and cached."""
    return build_harnesses()
