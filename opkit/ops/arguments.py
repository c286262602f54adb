"""A Python call's arguments checked against op.yaml before anything is built: which tensor is which, the dtype
column the arrays' dtypes pick, shapes against the symbolic shapes, attrs against their types."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from opkit.errors import UsageError
from opkit.numerics import int_range_problem, np_dtype
from opkit.ops import tensors
from opkit.run.userdata import case_from_arrays
from opkit.spec import Case, Param, Spec, resolve_column
from opkit.spec.load import attr_value_problem


@dataclass
class Bound:
    """A call ready to run: the case (shapes, attrs, dims), its dtype column and the device arrays."""

    case: Case
    column: int
    inputs: dict[str, Any]  # input name -> array, list of arrays (dynamic) or None (absent)
    as_torch: bool  # a tensor argument was a torch tensor: the outputs come back as torch tensors


def signature(spec: Spec) -> str:
    """The call's signature as documentation shows it: ``axpy_relu(x, y, *, alpha=1.0)``."""
    parts = []
    for p in spec.inputs:
        text = f"{p.name}: list" if p.param == "dynamic" else p.name
        parts.append(f"{text}=None" if p.param == "optional" else text)
    if spec.attrs:
        parts.append("*")
        parts += [a.name if a.required else f"{a.name}={a.default!r}" for a in spec.attrs]
    return f"{spec.name}({', '.join(parts)})"


def _accepted(p: Param) -> str:
    return ", ".join(dict.fromkeys(p.dtypes))


def _split(spec: Spec, args: tuple, kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Positional inputs (op.yaml order) and keyword inputs and attrs, as {input: value} and {attr: value}."""
    sig = signature(spec)
    if len(args) > len(spec.inputs):
        raise UsageError(f"{spec.name}: {len(args)} positional arguments, but it takes at most {len(spec.inputs)} "
                         f"(its inputs; attrs are keyword arguments): {sig}")
    given: dict[str, Any] = {p.name: v for p, v in zip(spec.inputs, args, strict=False)}
    attrs: dict[str, Any] = {}
    input_names = {p.name for p in spec.inputs}
    attr_names = {a.name for a in spec.attrs}
    for key, value in kwargs.items():
        if key in input_names:
            if key in given:
                raise UsageError(f"{spec.name}: input '{key}' given both by position and by name: {sig}")
            given[key] = value
        elif key in attr_names:
            attrs[key] = value
        else:
            outputs = {o.name for o in spec.outputs}
            extra = " (an output: the call returns it)" if key in outputs else ""
            raise UsageError(f"{spec.name}: no input or attr named '{key}'{extra}; inputs: "
                             f"{', '.join(p.name for p in spec.inputs)}; attrs: "
                             f"{', '.join(a.name for a in spec.attrs) or 'none'}")
    return given, attrs


def _attr_value(spec: Spec, name: str, value: Any) -> Any:
    """An attr's value in the Python types op.yaml's types mean (NumPy scalars and tuples accepted)."""
    a = spec.attr(name)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list):
        value = [list(v) if isinstance(v, tuple) else v.item() if isinstance(v, np.generic) else v for v in value]
    if a.type == "float" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if a.type == "list_float" and isinstance(value, list):
        value = [float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    problem = attr_value_problem(a.type, value, int64=True)
    if problem:
        raise UsageError(f"{spec.name}: attr '{name}': {problem} (op.yaml: {name} is {a.type})")
    return value


def _arrays(spec: Spec, given: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Each input's value as NumPy (a list of them for a dynamic input, None when absent); refuses a missing
    required input, a list for a plain input and anything that is not an array."""
    out: dict[str, Any] = {}
    as_torch = False
    for p in spec.inputs:
        value = given.get(p.name)
        where = f"{spec.name}: input '{p.name}'"
        if value is None:
            if p.param == "required":
                raise UsageError(f"{where} is required: give it as {p.name}=ARRAY ({signature(spec)})")
            if p.param == "dynamic":
                raise UsageError(f"{where} is a dynamic (list) input: give a list of arrays ([] for none)")
            out[p.name] = None
            continue
        if p.param == "dynamic":
            if not isinstance(value, (list, tuple)):
                raise UsageError(f"{where} is a dynamic (list) input: give a list of arrays, not "
                                 f"{tensors.describe(value)}")
            items = []
            for i, v in enumerate(value):
                if not tensors.is_tensor(v):
                    raise UsageError(f"{where}[{i}]: expected an array (NumPy or torch), got {tensors.describe(v)}")
                as_torch |= tensors.is_torch(v)
                items.append(tensors.to_numpy(v, f"{where}[{i}]"))
            out[p.name] = items
            continue
        if isinstance(value, (list, tuple)):
            raise UsageError(f"{where} takes one array, not a {type(value).__name__} (only dynamic inputs take "
                             "lists; convert it with numpy.asarray and choose its dtype)")
        if not tensors.is_tensor(value):
            raise UsageError(f"{where}: expected an array (NumPy or torch), got {tensors.describe(value)}")
        as_torch |= tensors.is_torch(value)
        out[p.name] = tensors.to_numpy(value, where)
    return out, as_torch


def _fits(want: str, have: np.dtype) -> bool:
    return have == np_dtype(want)


def _column(spec: Spec, arrays: dict[str, Any], selector: Any) -> int:
    """The one dtype column the arrays' dtypes match (or that ``selector`` picks, see op.yaml's case ``dtype``)."""
    def dtypes_of(value: Any) -> list[np.dtype]:
        return [a.dtype for a in value] if isinstance(value, list) else [value.dtype]

    present = [(p, dtypes_of(arrays[p.name])) for p in spec.inputs if arrays[p.name] is not None]
    if selector is not None:
        col = resolve_column(selector, spec.inputs, spec.outputs, spec.n_columns)
        if isinstance(col, str):
            raise UsageError(f"{spec.name}: dtype={selector!r}: {col}")
        for p, have in present:
            bits = p.dtypes[col] == "bfloat16"  # a chosen bf16 column also takes uint16 bit patterns, as .npz data
            bad = next((d for d in have if not (_fits(p.dtypes[col], d) or bits and d == np.uint16)), None)
            if bad is not None:
                raise UsageError(f"{spec.name}: input '{p.name}' is {bad}, but dtype column {col} "
                                 f"({spec.column_label(col)}) takes {p.dtypes[col]} there; convert it")
        return col
    for p, have in present:  # a dtype no column accepts, named with its argument
        for d in have:
            if not any(_fits(want, d) for want in p.dtypes):
                hint = " (bfloat16 travels as ml_dtypes.bfloat16 arrays, torch.bfloat16 tensors, or uint16 bit " \
                    f"patterns with {spec.name}.run(..., dtype=COLUMN))" if "bfloat16" in p.dtypes else ""
                raise UsageError(f"{spec.name}: input '{p.name}' is {d}; it takes {_accepted(p)}{hint}")
    fits = [k for k in range(spec.n_columns) if all(_fits(p.dtypes[k], d) for p, have in present for d in have)]
    if len(fits) == 1:
        return fits[0]
    got = ", ".join(f"{p.name}={'/'.join(str(d) for d in dict.fromkeys(have))}" for p, have in present)
    if not fits:  # the columns by the tensors given: what they would have to be
        raise UsageError(f"{spec.name}: the inputs' dtypes ({got}) are no dtype column of op.yaml (columns: "
                         f"{_columns_by(range(spec.n_columns), [p for p, _ in present])}); convert them to one "
                         "column's dtypes")
    # the fitting columns by what tells them apart (the tensors not given, or outputs)
    apart = [p for p in spec.params if len({p.dtypes[k] for k in fits}) > 1] or list(spec.params)
    raise UsageError(f"{spec.name}: the inputs' dtypes ({got or 'none given'}) fit the dtype columns {fits} "
                     f"({_columns_by(fits, apart)}); pick one with {spec.name}.run(..., dtype=COLUMN)")


def _columns_by(columns: Any, params: list[Any]) -> str:
    """``0: x=float16, y=float16; 1: ...``: each column by the dtypes of ``params``."""
    return "; ".join(f"{k}: " + ", ".join(f"{p.name}={p.dtypes[k]}" for p in params) for k in columns)


def bind(spec: Spec, args: tuple, kwargs: dict[str, Any], dtype: Any = None) -> Bound:
    """The call ``op(*args, **kwargs)`` checked against op.yaml and turned into a case; a UsageError naming the
    argument otherwise."""
    if any(isinstance(a, Mapping) for a in args) or (
            len(args) == 1 and isinstance(args[0], (list, tuple)) and args[0]
            and all(isinstance(a, Mapping) for a in args[0])):
        raise UsageError(f"{spec.name}: one mapping per rank is the call of a multi-rank (MC2) operator, which "
                         f"{spec.name} is not; pass its tensors as arguments: {signature(spec)}")
    given, raw_attrs = _split(spec, args, kwargs)
    attrs = {k: _attr_value(spec, k, v) for k, v in raw_attrs.items()}
    for a in spec.attrs:
        if a.required and a.name not in attrs:
            raise UsageError(f"{spec.name}: attr '{a.name}' ({a.type}) is required: give {a.name}=VALUE")
    arrays, as_torch = _arrays(spec, given)
    column = _column(spec, arrays, dtype)
    bf16 = np_dtype("bfloat16")
    for p in spec.inputs:  # uint16 bit patterns for a bf16 tensor (only a chosen column gets here with them)
        if p.dtypes[column] == "bfloat16" and arrays[p.name] is not None:
            value = arrays[p.name]
            arrays[p.name] = [v.view(bf16) for v in value] if isinstance(value, list) else value.view(bf16)
    for p in spec.inputs:
        value = arrays[p.name]
        for i, v in enumerate(value if isinstance(value, list) else [] if value is None else [value]):
            problem = int_range_problem(v, p.dtypes[column])  # int4: one int8 value per element
            if problem:
                at = f"[{i}]" if isinstance(value, list) else ""
                raise UsageError(f"{spec.name}: input '{p.name}'{at}: {problem} (give one value per element)")
    case = case_from_arrays(spec, "call", arrays, column, attrs, lambda name: f"{spec.name}: input '{name}'")
    return Bound(case, column, arrays, as_torch)
