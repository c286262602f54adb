"""Running a package's golden.py: import it, call it, check what it returns."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from opkit.errors import OpkitError
from opkit.golden import MARKER, ComputeNotImplemented
from opkit.spec import Case, Spec
from opkit.verify.inputs import as_golden_input


class GoldenError(OpkitError):
    """The golden could not run or returned something unusable."""


def marker_lines(path: Path) -> list[int]:
    """Lines of ``path`` carrying the compute-not-implemented marker."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [i for i, line in enumerate(lines, 1) if MARKER in line]


def compute_not_implemented(spec: Spec) -> str | None:
    """The "compute not implemented" message when the kernel or golden still carries the marker."""
    places = []
    for rel in (f"op_kernel/{spec.name}.h", f"op_kernel/{spec.name}.cpp", spec.golden_file):
        for line in marker_lines(spec.dir / rel):
            places.append(f"{rel}:{line}")
    if not places:
        return None
    return "compute not implemented: " + " and ".join(places) + \
        " (replace the marked placeholders with the operator's math)"


def load_module(spec: Spec) -> ModuleType:
    path = spec.dir / spec.golden_file
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise GoldenError(f"{path}: cannot read the golden ({exc.strerror})") from None
    mod_name = f"opkit_golden_{spec.name}_{hashlib.sha256(str(path).encode() + content).hexdigest()[:16]}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    loader_spec = importlib.util.spec_from_file_location(mod_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise GoldenError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(loader_spec)
    sys.path.insert(0, str(spec.dir))
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        raise GoldenError(f"{path}: importing it failed: {_where(exc, path)}") from None
    finally:
        sys.path.remove(str(spec.dir))
    sys.modules[mod_name] = module
    return module


def _where(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    at = f"{path.name}:{frames[-1].lineno}: " if frames else ""
    return f"{at}{type(exc).__name__}: {exc}"


def custom_generators(spec: Spec):
    """A lookup for ``init: {x: {custom: fn}}`` generators defined in golden.py."""
    def find(name: str):
        fn = getattr(load_module(spec), name, None)
        if not callable(fn):
            raise GoldenError(f"{spec.dir / spec.golden_file}: no generator function '{name}'")
        return fn
    return find


def run_golden(spec: Spec, case: Case, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The golden's outputs for a case: {output name: float64 or integer array}."""
    path = spec.dir / spec.golden_file
    fn = getattr(load_module(spec), spec.golden_func, None)
    if not callable(fn):
        raise GoldenError(f"{path}: no function '{spec.golden_func}'")
    kwargs = {k: as_golden_input(v) for k, v in inputs.items()}
    kwargs.update(case.attrs)
    try:
        result = fn(**kwargs)
    except ComputeNotImplemented:
        raise GoldenError(compute_not_implemented(spec) or f"{path}: compute not implemented") from None
    except Exception as exc:
        raise GoldenError(f"{path}: the golden failed on case '{case.name}': {_where(exc, path)}") from None
    produced = [o for o in spec.outputs if o.when is None or o.when.holds(case.attrs)]
    if not isinstance(result, dict):
        if len(produced) != 1:
            raise GoldenError(f"{path}: {spec.golden_func}() must return a dict of "
                              f"{', '.join(o.name for o in produced)}; it returned {type(result).__name__}")
        result = {produced[0].name: result}
    missing = [o.name for o in produced if o.name not in result]
    unknown = [k for k in result if k not in {o.name for o in spec.outputs}]
    if missing or unknown:
        raise GoldenError(f"{path}: {spec.golden_func}() returned {sorted(result)}; expected the outputs "
                          f"{[o.name for o in produced]} for case '{case.name}'")
    return {o.name: np.asarray(result[o.name]) for o in produced}


def run_reference(spec: Spec, case: Case, inputs: dict[str, Any], column: int) -> dict[str, np.ndarray]:
    """A same-precision reference run, for the ``ratio-vs-reference`` profile.

    golden.py's ``<golden>_reference`` function when it defines one (called like the golden, with
    float inputs as float32 arrays: a reference written to compute in the inputs' precision);
    otherwise the golden's result rounded once to each output's dtype — the best a same-precision
    implementation can do, so the profile then asks the kernel to be within the level's ratio of
    correct rounding.
    """
    from opkit.numerics import np_dtype

    path = spec.dir / spec.golden_file
    module = load_module(spec)
    fn = getattr(module, f"{spec.golden_func}_reference", None)
    if callable(fn):
        kwargs: dict[str, Any] = {}
        for k, v in inputs.items():
            g = as_golden_input(v)
            kwargs[k] = g.astype(np.float32) if isinstance(g, np.ndarray) and g.dtype == np.float64 else g
        kwargs.update(case.attrs)
        try:
            result = fn(**kwargs)
        except Exception as exc:
            raise GoldenError(f"{path}: {fn.__name__}() failed on case '{case.name}': {_where(exc, path)}") from None
        if not isinstance(result, dict):
            result = {spec.outputs[0].name: result}
    else:
        result = run_golden(spec, case, inputs)
    out = {}
    for o in spec.outputs:
        if o.name in result:
            with np.errstate(over="ignore", invalid="ignore"):
                out[o.name] = np.asarray(result[o.name]).astype(np_dtype(o.dtypes[column]))
    return out
