"""The ``sim`` backend (the default): g++ against opkit's simulator; runs on this CPU.

Its build lives in :mod:`opkit.build.sim_backend` and its runner in :mod:`opkit.run.sim_runner`; this
module registers it beside the CANN backends and says what it needs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from opkit.backends.base import Readiness, compiler_need

NAME = "sim"
SUMMARY = "g++ against opkit's Ascend C simulator: host and kernel harnesses; runs on this CPU"


def readiness(env: Mapping[str, str] | None = None, cann_path: Path | str | None = None) -> Readiness:
    return Readiness(NAME, [compiler_need(os.environ if env is None else env)])
