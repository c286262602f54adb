"""Call a package's kernel from Python: ``opkit.ops.load("interleave_rope")(x=x, cos=cos, sin=sin)``.

``load`` finds a package (an op name or a path, as every opkit command does) and returns an :class:`Operator`;
calling it checks the arguments against op.yaml, builds the harness of the chosen chip and dtype column (once:
the build cache of ``opkit build``), runs the kernel on the simulator through the runner ``opkit run`` uses and
returns the outputs. The contract is in docs/python-api.md.

This module is opkit's Python package ``opkit.ops``; the ``ops/`` folder at the top of a repository holds
operator packages (op.yaml and C++), which are not Python.
"""

from __future__ import annotations

import collections
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opkit import discover
from opkit.errors import OpkitError, UsageError
from opkit.ops import tensors
from opkit.ops.arguments import bind, signature
from opkit.run.limits import check_case
from opkit.run.sim_runner import KernelError
from opkit.run.types import run_case
from opkit.spec import Spec, resolve_column
from opkit.spec import load as load_spec

__all__ = ["BACKENDS", "KernelError", "OpkitError", "Operator", "SimulatorWarning", "load"]

# Where a package is built and run (opkit.backends; docs/backends.md).
BACKENDS = {
    "sim": "opkit's CPU simulator (g++)",
    "cann": "the CANN toolchain, running on an Ascend NPU",
    "cann-cpu": "CANN's own CPU-debug mode (tikicpulib)",
}
_CHECKOUT_OPS = Path(__file__).resolve().parents[2] / "ops"  # the family packages beside opkit in a checkout


class SimulatorWarning(UserWarning):
    """A run that passed did something the NPU may not run as the simulator did (docs/simulator.md, Checks)."""


def _runner(backend: str, timeout_s: float, jobs: int | None, options: dict[str, Any]) -> Any:
    """The runner of ``backend`` (``run(spec, case, column, chip, inputs) -> RunOutput``), from opkit.backends."""
    from opkit import backends

    if backend not in BACKENDS:
        raise UsageError(f"backend={backend!r}: unknown backend (backends: {', '.join(BACKENDS)})")
    if options and backend != "cann":
        raise UsageError(f"backend_options {sorted(options)} are options of backend='cann' (vendor, device, sanitize)")
    unknown = sorted(set(options) - {"vendor", "device", "sanitize"})
    if unknown:
        raise UsageError(f"backend_options {unknown}: unknown (backend='cann' takes vendor, device, sanitize)")
    ready = backends.readiness(backend, command="opkit verify" if backend == "cann" else "opkit build")
    if not ready.ready:  # the backends' own refusal, worded for this call
        rest = ready.message("opkit").partition("\n")[2]
        raise backends.BackendUnavailable(f"opkit.ops.load(..., backend={backend!r}) cannot run on this machine:\n"
                                          + rest)
    return backends.runner(backend, timeout_s=timeout_s, jobs=jobs, **options)


def _package(name_or_path: str | os.PathLike[str], cwd: Path) -> Path:
    """The package folder: a path, an op name under ``cwd/ops``, else one under the ops/ of opkit's checkout."""
    if not isinstance(name_or_path, (str, os.PathLike)) or not os.fspath(name_or_path):
        raise UsageError(f"opkit.ops.load({name_or_path!r}): give an op name or a path to a package")
    text = os.fspath(name_or_path)
    plain = isinstance(text, str) and "/" not in text and not text.startswith(".") and not Path(text).is_absolute()
    here = [d for d in discover.packages_under(cwd / "ops") if d.name == text] if plain else []
    if plain and not here and not (cwd / text).exists() and _CHECKOUT_OPS.is_dir() and _CHECKOUT_OPS != cwd / "ops":
        if any(d.name == text for d in discover.packages_under(_CHECKOUT_OPS)):
            return discover.find_package(text, _CHECKOUT_OPS.parent)
        raise UsageError(f"{text}: no operator package of that name under {cwd / 'ops'} or {_CHECKOUT_OPS}; give "
                         "a path to a folder holding op.yaml")
    return discover.find_package(os.fsdecode(text), cwd)


class Operator:
    """A package's kernel as a Python callable (see docs/python-api.md).

    ``op(*inputs, **inputs_and_attrs)`` runs the kernel once and returns its output (one array) or its outputs
    (a named tuple, fields named as op.yaml's outputs, in op.yaml's order; a conditional output whose ``when``
    does not hold is not among them). :meth:`run` is the same call with the dtype column and chip chosen
    explicitly.
    """

    def __init__(self, spec: Spec, chip: str, backend: str, runner: Any) -> None:
        self.spec = spec
        self.chip = chip
        self.backend = backend
        self.last_info: dict[str, Any] = {}
        self._runner = runner
        self._result_types: dict[tuple[str, ...], type] = {}
        self.__doc__ = f"{signature(spec)}\n\n{spec.summary}".strip()

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def signature(self) -> str:
        return signature(self.spec)

    @property
    def inputs(self) -> list[str]:
        return [p.name for p in self.spec.inputs]

    @property
    def outputs(self) -> list[str]:
        return [o.name for o in self.spec.outputs]

    @property
    def attrs(self) -> dict[str, Any]:
        """Every attr and its default (``None`` for a required attr)."""
        return {a.name: a.default for a in self.spec.attrs}

    def __repr__(self) -> str:
        return f"<opkit operator {self.signature} on {self.chip} ({self.backend}), {self.spec.dir}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(args, kwargs, None, None)

    def run(self, arguments: Mapping[str, Any], *, dtype: Any = None, chip: str | None = None) -> Any:
        """The call ``op(**arguments)`` with its dtype column and chip chosen: ``dtype`` picks the column when the
        arrays' dtypes fit several (a dtype name of the first tensor, a column index, or ``{tensor: dtype}``, as
        op.yaml's case ``dtype``); ``chip`` runs on another chip than the operator's."""
        if not isinstance(arguments, Mapping):
            raise UsageError(f"{self.name}.run: give the inputs and attrs as one mapping ({{name: value}}), not "
                             f"{tensors.describe(arguments)}")
        return self._call((), dict(arguments), dtype, chip)

    def build(self, dtype: Any = None) -> None:
        """Build ahead of the first call the harness of every dtype column the operator's chip supports (or of the
        column ``dtype`` selects, as in :meth:`run`); a compile error is an OpkitError naming the user's files."""
        spec = self.spec
        _, soc = spec.target(self.chip)
        if dtype is None:
            columns = [k for k in range(spec.n_columns) if soc.supports(k)]
        else:
            col = resolve_column(dtype, spec.inputs, spec.outputs, spec.n_columns)
            if isinstance(col, str):
                raise UsageError(f"{spec.name}: dtype={dtype!r}: {col}")
            columns = [col]
        self._runner.prebuild([(spec, self.chip, k) for k in columns])

    def _call_ranks(self, args: tuple, kwargs: dict[str, Any], dtype: Any, chip: str | None) -> list[Any]:
        """A multi-rank (MC2) call: one mapping of tensors per rank (rank order), the attrs once for all ranks."""
        spec = self.spec
        if len(args) != 1 or not isinstance(args[0], (list, tuple)) or not args[0] or \
                not all(isinstance(m, Mapping) for m in args[0]):
            raise UsageError(f"{spec.name} is a multi-rank (MC2) operator: call it with one mapping of tensors per "
                             f"rank, in rank order (op([{{'{self.inputs[0]}': ...}}, ...], attr=...)), not "
                             f"{', '.join(tensors.describe(a) for a in args) or 'no positional argument'}")
        target, soc = spec.target(self.chip if chip is None else chip)
        calls = []
        for r, mapping in enumerate(args[0]):
            clash = sorted(set(mapping) & set(kwargs))
            if clash:
                raise UsageError(f"{spec.name}: rank {r}'s mapping and the keyword arguments both give '{clash[0]}'")
            calls.append(bind(spec, (), {**mapping, **kwargs}, dtype))
        column = calls[0].column
        for r, c in enumerate(calls[1:], 1):
            if c.column != column:
                raise UsageError(f"{spec.name}: rank {r}'s tensors are of dtype column {c.column} "
                                 f"({spec.column_label(c.column)}), rank 0's of column {column} "
                                 f"({spec.column_label(column)}): every rank runs one column")
        if not soc.supports(column):
            raise UsageError(f"{spec.name}: {soc.key} (chip {target}) does not support the dtype column {column} "
                             f"({spec.column_label(column)}) (op.yaml socs)")
        for c in calls:
            check_case(spec, c.case, column)
        results = self._runner.run_ranks(spec, calls[0].case, column, target, [c.inputs for c in calls])
        produced = [o.name for o in spec.produced_outputs(calls[0].case.attrs)]
        self.last_info = {"ranks": [dict(res.info) for res in results]}
        out = []
        for r, (res, c) in enumerate(zip(results, calls, strict=True)):
            missing = [n for n in produced if n not in res.outputs]
            if missing:
                raise OpkitError(f"{spec.name}: rank {r}'s kernel run produced no output '{missing[0]}'")
            for w in res.info.get("warnings", []):
                warnings.warn(f"{spec.name} on {target}, rank {r}: {w}", SimulatorWarning, stacklevel=4)
            values = [tensors.from_numpy(res.outputs[n], c.as_torch) for n in produced]
            out.append(values[0] if len(values) == 1 else self._result_type(tuple(produced))(*values))
        return out

    def _call(self, args: tuple, kwargs: dict[str, Any], dtype: Any, chip: str | None) -> Any:
        spec = self.spec
        if spec.multi_rank:
            return self._call_ranks(args, kwargs, dtype, chip)
        target, soc = spec.target(self.chip if chip is None else chip)
        call = bind(spec, args, kwargs, dtype)
        if not soc.supports(call.column):
            cols = ", ".join(f"{k} ({spec.column_label(k)})" for k in soc.columns or ())
            raise UsageError(f"{spec.name}: {soc.key} (chip {target}) supports the dtype columns {cols} (op.yaml "
                             f"socs), not column {call.column} ({spec.column_label(call.column)}); convert the inputs "
                             "or run on another chip")
        check_case(spec, call.case, call.column)
        masks = {}
        if any(o.untouched for o in spec.outputs) and getattr(self._runner, "takes_untouched", False):
            from opkit.verify.golden import run_untouched  # golden.py's hooks, guarded as verify runs them

            masks = run_untouched(spec, call.case, call.inputs)
        result = run_case(self._runner, spec, call.case, call.column, target, call.inputs, masks)
        produced = [o.name for o in spec.produced_outputs(call.case.attrs)]
        missing = [n for n in produced if n not in result.outputs]
        if missing:
            raise OpkitError(f"{spec.name}: the kernel run produced no output '{missing[0]}'")
        self.last_info = dict(result.info)  # block dim, tiling key, simulator warnings of the last call
        for w in result.info.get("warnings", []):
            warnings.warn(f"{spec.name} on {target}: {w}", SimulatorWarning, stacklevel=3)
        values = [tensors.from_numpy(result.outputs[n], call.as_torch) for n in produced]
        if len(values) == 1:
            return values[0]
        return self._result_type(tuple(produced))(*values)

    def _result_type(self, fields: tuple[str, ...]) -> type:
        if fields not in self._result_types:
            self._result_types[fields] = collections.namedtuple(f"{self.spec.op_type}Outputs", fields)
        return self._result_types[fields]


def load(name_or_path: str | os.PathLike[str], *, chip: str | None = None, backend: str = "sim",
         timeout: float = 300.0, jobs: int | None = 1, cwd: str | os.PathLike[str] | None = None,
         backend_options: dict[str, Any] | None = None) -> Operator:
    """The operator of a package, ready to call.

    ``name_or_path``: an op name (looked up under ``./ops`` of ``cwd``, default the current directory, then under
    the ``ops/`` of opkit's own checkout) or a path to a package (its folder or its op.yaml). ``chip``: a chip
    (``ascend910b4``) or an OpDef SoC key (default: the default chip of the op's first SoC). ``backend``: where
    the kernel runs: "sim" (default), "cann" (the package built and installed with ``opkit build/install
    --backend cann``, run on an NPU through its aclnn API) or "cann-cpu" (CANN's CPU-debug mode); a backend
    that cannot work here refuses with what is missing (docs/backends.md). ``backend_options``: backend='cann''s
    ``vendor``, ``device``, ``sanitize``. ``timeout``: seconds before a kernel run counts as hung. ``jobs``:
    compile jobs of a build. Raises an OpkitError (``.message``) for a package that is not found or whose
    op.yaml is invalid.
    """
    import math

    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise UsageError(f"opkit.ops.load: timeout={timeout!r}: give a number of seconds > 0")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise UsageError(f"opkit.ops.load: jobs={jobs!r}: give a number of compile jobs >= 1 (or None: one per "
                         "core)")
    runner = _runner(backend, float(timeout), jobs, dict(backend_options or {}))
    here = Path(cwd).resolve() if cwd is not None else Path.cwd()
    spec = load_spec(_package(name_or_path, here).resolve())
    if spec.multi_rank and not hasattr(runner, "run_ranks"):
        why = (" (CANN's CPU-debug library has no HCCL server to connect ranks: docs/backends.md)"
               if backend == "cann-cpu" else "")
        raise UsageError(f"{spec.name} is a multi-rank (MC2) operator: the {backend} backend does not run "
                         f"multi-rank operators{why}; use backend='sim' or backend='cann'")
    if not spec.modelled_socs:
        raise UsageError(f"{spec.path}: socs {[s.key for s in spec.socs]}: the simulator models none of them")
    target = spec.target(chip if chip is not None else spec.modelled_socs[0].key)[0]
    if backend == "cann":  # the installed package and its aclnn symbols: checked here, not at the first call
        try:
            runner.library(spec)
        except OpkitError as exc:
            raise UsageError(f"opkit.ops.load({spec.name!r}, backend='cann'): {exc.message}") from None
    return Operator(spec, target, backend, runner)
