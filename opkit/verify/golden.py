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
from opkit.run.inputs import as_golden_input
from opkit.spec import Case, Spec
from opkit.verify import usercode
from opkit.verify.compare import HookResult
from opkit.verify.usercode import UserCodeError


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
    for base, rel in ((spec.src_dir, f"op_kernel/{spec.name}.h"), (spec.src_dir, f"op_kernel/{spec.name}.cpp"),
                      (spec.dir, spec.golden_file)):
        for line in marker_lines(base / rel):
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


def user_module(spec: Spec) -> usercode.UserModule:
    """golden.py run guarded (opkit.verify.usercode): every call happens in the package's worker process,
    so an exit, a crash or a hang in it becomes a GoldenError naming the line."""
    path = spec.dir / spec.golden_file
    try:
        return usercode.module(path)
    except OSError as exc:
        raise GoldenError(f"{path}: cannot read the golden ({exc.strerror or exc})") from None
    except UserCodeError as exc:
        raise GoldenError(f"{path}: importing it failed: {exc.detail}") from None


def _where(exc: BaseException, path: Path) -> str:
    if isinstance(exc, UserCodeError):
        return exc.detail
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    at = f"{path.name}:{frames[-1].lineno}: " if frames else ""
    return f"{at}{type(exc).__name__}: {exc}"


def custom_generators(spec: Spec):
    """A lookup for ``init: {x: {custom: fn}}`` generators defined in golden.py; a generator that raises
    becomes a GoldenError naming the file, line and function."""
    path = spec.dir / spec.golden_file

    def find(name: str):
        fn = getattr(user_module(spec), name, None)
        if not callable(fn):
            raise GoldenError(f"{path}: no generator function '{name}'")

        def call(shape: Any, dtype: Any, rng: Any, attrs: Any) -> Any:
            try:
                return fn.generate(shape, dtype, rng, attrs)
            except Exception as exc:
                raise GoldenError(f"{path}: the input generator {name}() failed for shape {list(shape)}: "
                                  f"{_where(exc, path)}") from None
        return call
    return find


def _golden_fn(spec: Spec) -> Any:
    fn = getattr(user_module(spec), spec.golden_func, None)
    if not callable(fn):
        raise GoldenError(f"{spec.dir / spec.golden_file}: no function '{spec.golden_func}'")
    return fn


def _call_golden(spec: Spec, case: Case, kwargs: dict[str, Any]) -> Any:
    path = spec.dir / spec.golden_file
    fn = _golden_fn(spec)
    kwargs.update(case.attrs)
    try:
        return fn(**kwargs)
    except ComputeNotImplemented:
        raise GoldenError(compute_not_implemented(spec) or f"{path}: compute not implemented") from None
    except Exception as exc:
        raise GoldenError(f"{path}: the golden failed on case '{case.name}': {_where(exc, path)}") from None


def run_golden(spec: Spec, case: Case, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    """The golden's outputs for a case: {output name: float64 or integer array}."""
    result = _call_golden(spec, case, {k: as_golden_input(v) for k, v in inputs.items()})
    return _golden_outputs(spec, case, result)


def run_golden_ranks(spec: Spec, case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, np.ndarray]]:
    """A multi-rank case's golden (docs/spec.md, "Multi-rank cases"): called once with every input as a list of
    the ranks' tensors (rank order) and the attrs; returns a list of one result per rank, each what a one-device
    golden returns (``{output: array}``, or one array for a single output)."""
    path = spec.dir / spec.golden_file
    kwargs = {p.name: [as_golden_input(ins.get(p.name)) for ins in inputs] for p in spec.inputs}
    result = _call_golden(spec, case, kwargs)
    if not isinstance(result, (list, tuple)) or len(result) != len(inputs):
        got = f"a {type(result).__name__}" + (f" of {len(result)}" if isinstance(result, (list, tuple)) else "")
        raise GoldenError(f"{path}: {spec.golden_func}() must return a list of {len(inputs)} results on the "
                          f"{len(inputs)}-rank case '{case.name}' (one per rank, each a dict of outputs or one "
                          f"array); it returned {got}")
    out = []
    for r, one in enumerate(result):
        try:
            out.append(_golden_outputs(spec, case, one))
        except GoldenError as exc:
            raise GoldenError(f"rank {r}: {exc.message}") from None
    return out


def _golden_outputs(spec: Spec, case: Case, result: Any) -> dict[str, np.ndarray]:
    """What the golden returned (for one rank), checked: {output name: array}."""
    path = spec.dir / spec.golden_file
    produced = spec.produced_outputs(case.attrs)
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
    out: dict[str, Any] = {}
    for o in produced:
        if o.param == "dynamic":  # a list output: a list of arrays (the tensors may differ in shape)
            if not isinstance(result[o.name], (list, tuple)):
                raise GoldenError(f"{path}: {spec.golden_func}() returned '{o.name}' as a "
                                  f"{type(result[o.name]).__name__}; a dynamic (list) output is a list of arrays")
            out[o.name] = [np.asarray(v) for v in result[o.name]]
        else:
            out[o.name] = np.asarray(result[o.name])
    _check_shapes(spec, case, out, path)
    return out


def _check_shapes(spec: Spec, case: Case, out: dict[str, Any], path: Path) -> None:
    """A golden output that is not numeric, or whose shape op.yaml's shapes refuse, is the golden's error."""
    from opkit.spec.load import _bind_shape

    bound: dict[str, Any] = {}
    for p in spec.inputs:
        shape = case.shapes.get(p.name)
        if p.shape is not None and p.param != "dynamic" and isinstance(shape, list):
            _bind_shape(p.shape, list(shape), bound)
    for o in spec.outputs:
        if o.name not in out:
            continue
        arrs = out[o.name] if o.param == "dynamic" else [out[o.name]]
        for arr in arrs:
            if arr.dtype.kind not in "biufc":  # complex for complex64 outputs
                raise GoldenError(f"{path}: {spec.golden_func}() returned '{o.name}' as {arr.dtype} data on case "
                                  f"'{case.name}'; each output must be a numeric (or bool) array")
        arr = arrs[0] if arrs else np.zeros(0)
        if o.shape is not None and o.param != "dynamic":
            problem = _bind_shape(o.shape, list(arr.shape), bound)
            if problem:
                raise GoldenError(f"{path}: {spec.golden_func}() returned '{o.name}' with shape {list(arr.shape)} "
                                  f"on case '{case.name}', which {problem} (op.yaml outputs: {o.name}); the "
                                  "golden is wrong, not the kernel")


HOOK_KEYS = {"passed", "summary", "counts", "thresholds", "failures", "details"}


def _plain(value: Any, where: str) -> Any:
    """``value`` as plain JSON data (NumPy scalars and arrays converted); a GoldenError naming ``where``
    when it holds anything else."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise GoldenError(f"{where} holds a {type(value).__name__}; use numbers, strings, lists and dicts")


def _hook_result_problem(result: dict[str, Any]) -> str | None:
    """What is wrong with a hook's returned dict (whose 'passed' is a bool), or None."""
    unknown = sorted(set(result) - HOOK_KEYS)
    if unknown:
        return f"unknown key(s) {unknown}"
    if not isinstance(result.get("summary", ""), str):
        return "'summary' is not a string"
    counts = result.get("counts", {})
    if not isinstance(counts, dict) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in counts.values()):
        return "'counts' is not a {str: int} dict"
    failures = result.get("failures", [])
    if not isinstance(failures, list) or not all(isinstance(f, str) for f in failures):
        return "'failures' is not a list of strings"
    for key in ("thresholds", "details"):
        if not isinstance(result.get(key, {}), dict):
            return f"'{key}' is not a dict"
    return None


def run_compare_hook(spec: Spec, case: Case, inputs: dict[str, Any], golden: dict[str, np.ndarray],
                     actual: dict[str, np.ndarray], column: int, check: Any) -> HookResult:
    """Call the case's comparison hook (op.yaml ``compare``) and check what it returns.

    The hook gets the kernel's outputs (device dtypes) and the golden's for the outputs it judges,
    the inputs as the golden saw them, the attrs, the column's dtypes, ``check`` and its options.
    """
    hook = case.compare
    assert hook is not None
    path = spec.dir / hook.file
    name = f"{hook.function}()"
    fn = getattr(user_module(spec), hook.function, None)
    if not callable(fn):
        raise GoldenError(f"{path}: no comparison hook function '{hook.function}' (op.yaml compare.function)")
    produced = [o for o in hook.outputs if o in golden]
    try:
        result = fn(actual={o: actual[o] for o in produced}, golden={o: golden[o] for o in produced},
                    inputs={k: as_golden_input(v) for k, v in inputs.items()}, attrs=dict(case.attrs),
                    dtypes=spec.column(column), check=check, **hook.options)
    except OpkitError:
        raise
    except Exception as exc:
        raise GoldenError(f"{path}: the comparison hook {name} failed on case '{case.name}': "
                          f"{_where(exc, path)}") from None
    expect = ("a dict with 'passed' (true or false) and optionally 'summary' (str), 'counts' ({str: int}), "
              "'thresholds' (dict), 'failures' ([str]), 'details' (dict)")
    if not isinstance(result, dict) or not isinstance(result.get("passed"), (bool, np.bool_)):
        shown = type(result).__name__ if not isinstance(result, dict) else f"a dict with keys {sorted(result)}"
        raise GoldenError(f"{path}: the comparison hook {name} must return {expect}; on case '{case.name}' it "
                          f"returned {shown}")
    problem = _hook_result_problem(result)
    if problem:
        raise GoldenError(f"{path}: the comparison hook {name} returned a dict whose {problem}; it must return "
                          f"{expect}")
    counts, failures = result.get("counts", {}), result.get("failures", [])
    where = f"{path}: the comparison hook {name}'s result"
    passed = bool(result["passed"])
    return HookResult(hook.where, produced, passed,
                      result.get("summary") or ("passed" if passed else "failed"),
                      {str(k): int(v) for k, v in counts.items()},
                      _plain(result.get("thresholds", {}), f"{where}['thresholds']"), list(failures),
                      _plain(result.get("details", {}), f"{where}['details']"), _plain(hook.options, "options"))


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
    module = user_module(spec)
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


def run_untouched(spec: Spec, case: Case, inputs: dict[str, Any],
                  golden: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The ``untouched`` masks of the case's outputs (op.yaml outputs[].untouched): {output: bool array of the
    golden output's shape}, True where the operator leaves the element as it was by contract. Without
    ``golden`` (a run on the user's data: ``opkit run``, the Python API) the masks of the outputs the case
    produces, their size checked by the simulator's harness against the output's inferred shape."""
    path = spec.dir / spec.golden_file
    masks: dict[str, np.ndarray] = {}
    produced = {o.name for o in spec.produced_outputs(case.attrs)}
    for o in spec.outputs:
        if o.untouched is None or (o.name not in golden if golden is not None else o.name not in produced):
            continue
        fn = getattr(user_module(spec), o.untouched, None)
        if not callable(fn):
            raise GoldenError(f"{path}: no function '{o.untouched}' (op.yaml outputs: {o.name}: untouched)")
        kwargs = {k: as_golden_input(v) for k, v in inputs.items()}
        kwargs.update(case.attrs)
        try:
            mask = np.asarray(fn(**kwargs))
        except Exception as exc:
            raise GoldenError(f"{path}: the untouched hook {o.untouched}() failed on case '{case.name}': "
                              f"{_where(exc, path)}") from None
        want = golden[o.name].shape if golden is not None else mask.shape
        if mask.dtype != np.bool_ or mask.shape != want:
            raise GoldenError(f"{path}: {o.untouched}() must return a bool array of output '{o.name}''s shape "
                              f"{list(want)}; on case '{case.name}' it returned {mask.dtype} of shape "
                              f"{list(mask.shape)}")
        masks[o.name] = mask
    return masks
