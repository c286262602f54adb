"""Fixtures of the simulator tests (the helpers live in sim_util.py, importable by name from any test)."""

from __future__ import annotations

import pytest
from sim_util import CPP, VecRunner, build


@pytest.fixture(scope="session")
def vec(tmp_path_factory) -> VecRunner:
    exe = build(CPP / "vec_harness.cpp")
    return VecRunner(exe, tmp_path_factory.mktemp("vec"))
