"""What a runner is and what it returns: the contract between running a kernel and those who use the run.

``opkit.verify`` (judging outputs) and ``opkit.perf`` (modelling the trace) both consume a
:class:`RunOutput`; a runner (the simulator's :class:`opkit.run.sim_runner.SimRunner`, a test's
own) produces it. Living in ``opkit.run``, the types keep the flow one way: verify -> run and
perf -> run, never back (docs/architecture.md, "Layering").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from opkit.spec import Case, Spec

# golden.py's ``init: {x: {custom: fn}}`` generators: name -> generate(shape, dtype, rng, attrs)
Generators = Callable[[str], Callable[..., Any]]
# golden.py's op.yaml ``untouched`` hooks for a case: (spec, case, inputs) -> {output: bool mask}
Untouched = Callable[[Spec, Case, dict[str, Any]], dict[str, np.ndarray]]


@dataclass
class RunOutput:
    """One kernel run: its outputs and what the run reported about itself."""

    outputs: dict[str, np.ndarray]  # produced outputs in their device dtype
    info: dict[str, Any] = field(default_factory=dict)  # block dim, tiling key, trace_file, warnings, ...


class Runner(Protocol):
    """Runs one case of a spec in one dtype column on one chip, on the given inputs."""

    def run(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any]) -> RunOutput: ...


def run_case(runner: Runner, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any],
             untouched: dict[str, np.ndarray] | None = None) -> RunOutput:
    """``runner.run`` with the outputs' ``untouched`` masks for a runner that takes them (the simulator, which
    poisons outputs); other runners run the case as it is."""
    if untouched and getattr(runner, "takes_untouched", False):
        return runner.run(spec, case, column, chip, inputs, untouched=untouched)  # type: ignore[call-arg]
    return runner.run(spec, case, column, chip, inputs)


__all__ = ["Generators", "RunOutput", "Runner", "Untouched", "run_case"]
