"""`opkit run`: one kernel run on a case of the spec or on the user's own .npz data."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from opkit import data_io, writes
from opkit.errors import OpkitError, UsageError
from opkit.numerics import np_dtype
from opkit.run.inputs import make_inputs
from opkit.run.limits import check_case
from opkit.run.types import Generators, Runner, Untouched, run_case
from opkit.spec import Case, Spec, resolve_column
from opkit.spec.load import _bind_shape, attr_value_problem
from opkit.spec.yamlio import load_text


@dataclass
class RunSummary:
    out: Path
    column: int
    chip: str
    outputs: dict[str, tuple[int, ...]]
    info: dict[str, Any]


def parse_attrs(spec: Spec, items: list[str]) -> dict[str, Any]:
    """``--attr k=v`` values, read as YAML scalars and checked against the attr's type."""
    out: dict[str, Any] = {}
    known = {a.name: a for a in spec.attrs}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--attr {item!r}: expected NAME=VALUE (e.g. --attr alpha=0.5)")
        key, raw = item.split("=", 1)
        key = key.strip()
        if key not in known:
            raise UsageError(f"--attr {key}: {spec.name} has no attr '{key}' (attrs: {', '.join(known) or 'none'})")
        value = load_text(raw, f"--attr {key}").data
        if known[key].type == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        problem = attr_value_problem(known[key].type, value)
        if problem:
            raise UsageError(f"--attr {key}: {problem}")
        out[key] = value
    return out


def _dtype_column(spec: Spec, dtype: Any) -> int:
    """The column a ``--dtype`` selector picks (see op.yaml's case ``dtype``)."""
    col = resolve_column(dtype, spec.inputs, spec.outputs, spec.n_columns)
    if isinstance(col, str):
        raise UsageError(f"--dtype {dtype}: {col}")
    return col


def _gather_lists(spec: Spec, arrays: dict[str, np.ndarray], path: Path) -> dict[str, Any]:
    """The .npz arrays by input name; a dynamic (list) input's tensors come as keys ``NAME.0``, ``NAME.1``, ...
    (numbered from 0 without gaps, in list order) and become one list."""
    dynamic = {p.name for p in spec.inputs if p.param == "dynamic"}
    out: dict[str, Any] = {}
    listed: dict[str, dict[int, np.ndarray]] = {}
    for key, arr in arrays.items():
        base, dot, index = key.rpartition(".")
        if dot and base in dynamic and index.isdigit():
            listed.setdefault(base, {})[int(index)] = arr
        elif key in dynamic:
            raise UsageError(f"{path}: '{key}' is a list input of {spec.name}; store its tensors as "
                             f"'{key}.0', '{key}.1', ... (one key per tensor, in list order)")
        else:
            out[key] = arr
    for name, items in listed.items():
        gap = next((i for i in range(len(items)) if i not in items), None)
        if gap is not None:
            raise UsageError(f"{path}: list input '{name}' has keys {', '.join(f'{name}.{i}' for i in sorted(items))} "
                             f"but no '{name}.{gap}'; number its tensors 0, 1, ... without gaps")
        out[name] = [items[i] for i in range(len(items))]
    return out


def _npz_column(spec: Spec, arrays: dict[str, Any]) -> int:
    """The one dtype column whose input dtypes match the arrays' dtypes."""
    fits = []
    for k in range(spec.n_columns):
        ok = True
        for p in spec.inputs:
            if p.name not in arrays:
                continue
            want = p.dtypes[k]
            value = arrays[p.name]
            for have in (a.dtype for a in (value if isinstance(value, list) else [value])):
                if want == "bfloat16":
                    ok &= have == np.uint16 or (have.kind == "V" and have.itemsize == 2)
                else:
                    ok &= have == np_dtype(want)
        if ok:
            fits.append(k)
    if len(fits) == 1:
        return fits[0]
    cols = "; ".join(f"{k}: {spec.column_label(k)}" for k in range(spec.n_columns))
    if not fits:
        got = ", ".join(f"{n}={(a[0] if isinstance(a, list) and a else a).dtype}" for n, a in arrays.items()
                        if not (isinstance(a, list) and not a))
        raise UsageError(f"the .npz dtypes ({got}) match no dtype column of {spec.name} ({cols}); convert the "
                         "data or pick a column with --dtype (float data is then rounded, bf16 travels as uint16)")
    raise UsageError(f"the .npz dtypes match columns {fits} of {spec.name} ({cols}); pick one with --dtype")


def case_from_npz(spec: Spec, path: Path, dtype: Any | None, attrs: dict[str, Any],
                  notice: Callable[[str], None]) -> tuple[Case, int, dict[str, Any]]:
    arrays = _gather_lists(spec, data_io.load(path), path)
    names = {p.name for p in spec.inputs}
    unknown = [k for k in arrays if k not in names]
    if unknown:
        raise UsageError(f"{path}: '{unknown[0]}' is not an input of {spec.name} (inputs: {', '.join(sorted(names))})")
    missing = [p.name for p in spec.inputs if p.param != "optional" and p.name not in arrays]
    if missing:
        raise UsageError(f"{path}: no array for required input '{missing[0]}'")
    if dtype is not None:
        col = _dtype_column(spec, dtype)
    else:
        col = _npz_column(spec, arrays)
    inputs: dict[str, Any] = {p.name: None for p in spec.inputs}
    for p in spec.inputs:
        value = arrays.get(p.name)
        if isinstance(value, list):
            inputs[p.name] = [data_io.from_npz_array(a, p.dtypes[col], f"{path}:{p.name}.{i}", notice)
                              for i, a in enumerate(value)]
        elif value is not None:
            inputs[p.name] = data_io.from_npz_array(value, p.dtypes[col], f"{path}:{p.name}", notice)
    for a in spec.attrs:
        if a.required and a.name not in attrs:
            raise UsageError(f"attr '{a.name}' is required: give --attr {a.name}=VALUE")
    case = case_from_arrays(spec, path.stem, inputs, col, attrs, lambda name: f"{path}:{name}")
    return case, col, inputs


def case_from_arrays(spec: Spec, name: str, inputs: dict[str, Any], column: int, attrs: dict[str, Any],
                     where: Callable[[str], str]) -> Case:
    """The case of a run on given tensors (``opkit run --inputs``, the Python API): each input's shape (each
    tensor of a dynamic input's list on its own) checked against op.yaml's symbolic shape and its ``dims``
    limits; attrs not given take their defaults. ``inputs`` maps every input to an array, a list of arrays
    (dynamic) or None (absent); ``where(name)`` names a tensor in the messages."""
    bound: dict[str, Any] = {}
    for p in spec.inputs:
        value = inputs.get(p.name)
        if value is None or p.shape is None:
            continue
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for i, v in items:
            problem = _bind_shape(p.shape, list(np.shape(v)), {} if i is not None else bound)
            if problem:
                at = where(p.name) + ("" if i is None else f"[{i}]")
                raise UsageError(f"{at}: shape {list(np.shape(v))} {problem}")
    for sym, value in bound.items():
        limit = spec.dims.get(sym.removeprefix("..."))
        for v in value if isinstance(value, tuple) else (value,):
            problem = limit.problem(v) if limit else None
            if problem:
                raise UsageError(f"{spec.name}: {problem}")
    shapes = {k: [list(np.shape(x)) for x in v] if isinstance(v, list) else list(np.shape(v))
              for k, v in inputs.items() if v is not None}
    return Case(name=name, shapes=shapes, columns=(column,), attrs={a.name: a.default for a in spec.attrs} | attrs,
                dims={k.removeprefix("..."): v for k, v in bound.items()})


def select_case(spec: Spec, case_name: str, dtype: Any | None = None,
                attrs: dict[str, Any] | None = None) -> tuple[Case, int]:
    """A case of op.yaml in one dtype column (``--case`` / ``--dtype``), with ``attrs`` overriding its own."""
    try:
        base = spec.case(case_name)
    except KeyError:
        raise UsageError(f"{spec.name} has no case '{case_name}' (cases: "
                         f"{', '.join(c.name for c in spec.cases)})") from None
    col = _dtype_column(spec, dtype) if dtype is not None else base.columns[0]
    return replace(base, columns=(col,), attrs=base.attrs | (attrs or {})), col


def run_on_data(spec: Spec, runner: Runner, chip: str, out: Path, *, case_name: str | None = None,
                inputs_npz: Path | None = None, attr_items: list[str] | None = None, dtype: Any | None = None,
                force: bool = False, notice: Callable[[str], None] | None = None,
                generators: Generators | None = None, untouched: Untouched | None = None) -> RunSummary:
    """Run the kernel once on a case of op.yaml (inputs as verify makes them; ``generators`` is golden.py's
    lookup of ``init: {custom: fn}`` generators, :func:`opkit.verify.golden.custom_generators`) or on the
    user's .npz data, and save the outputs (and, for a case, its inputs) to ``out``. ``untouched``: golden.py's
    op.yaml ``untouched`` hooks (:func:`opkit.verify.golden.run_untouched`), the elements the simulator must
    not count as unwritten."""
    notice = notice or (lambda m: print(m, file=sys.stderr))
    if (case_name is None) == (inputs_npz is None):
        raise UsageError("give exactly one of --case NAME and --inputs FILE.npz")
    if out.suffix != ".npz":
        raise UsageError(f"--out {out}: the output file must end in .npz")
    writes.check(out, force, "--out")
    attrs = parse_attrs(spec, attr_items or [])
    if case_name is not None:
        case, col = select_case(spec, case_name, dtype, attrs)
        check_case(spec, case, col)
        inputs = make_inputs(spec, case, col, generators)
    else:
        assert inputs_npz is not None
        case, col, inputs = case_from_npz(spec, inputs_npz, dtype, attrs, notice)
    masks = untouched(spec, case, inputs) if untouched is not None else {}
    result = run_case(runner, spec, case, col, chip, inputs, masks)  # outputs left as they were by contract
    shapes = save_run(spec, case, col, out, result.outputs, inputs if case_name is not None else None)
    return RunSummary(out, col, chip, shapes, result.info)


def save_run(spec: Spec, case: Case, col: int, out: Path, outputs: dict[str, Any],
             inputs: dict[str, Any] | None) -> dict[str, tuple[int, ...]]:
    """Save a run's produced outputs (and ``inputs`` when given: a case's) to ``out``; returns the outputs' shapes
    (a list output's tensors as ``NAME.0``, ``NAME.1``, ...)."""
    # A conditional output whose condition does not hold is not part of the result (design §9), even
    # though the harness allocated it.
    produced = {o.name for o in spec.produced_outputs(case.attrs)}
    outputs = {k: v for k, v in outputs.items() if k in produced}
    tensors = dict(outputs)
    dtypes = {o.name: o.dtypes[col] for o in spec.outputs}
    if inputs is not None:
        tensors.update({k: v for k, v in inputs.items() if v is not None})
        dtypes.update({p.name: p.dtypes[col] for p in spec.inputs})
    clash = set(outputs) & {p.name for p in spec.inputs}
    if clash:  # pragma: no cover - the spec loader refuses shared names
        raise OpkitError(f"names shared by inputs and outputs: {clash}")
    for name in [k for k, v in tensors.items() if isinstance(v, list)]:  # a list as NAME.0, NAME.1, ...
        for i, v in enumerate(tensors.pop(name)):
            tensors[f"{name}.{i}"] = v
            dtypes[f"{name}.{i}"] = dtypes[name]
    out.parent.mkdir(parents=True, exist_ok=True)
    data_io.save(out, tensors, dtypes)
    writes.record([out])
    return {f"{k}.{i}" if isinstance(v, list) else k: tuple(x.shape)
            for k, v in outputs.items() for i, x in (enumerate(v) if isinstance(v, list) else [(0, v)])}
