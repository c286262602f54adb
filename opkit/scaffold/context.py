"""The template context: everything a package template needs, computed once from a Spec.

Templates stay readable because the C++ fragments that depend on the spec (OpDef calls, attr
getters, InferShape sources) are prepared here rather than spelled out in Jinja.
"""

from __future__ import annotations

import json
from typing import Any

from opkit.dtypes import DTYPES
from opkit.errors import SpecError
from opkit.spec import Attr, Case, Param, Spec

_ATTR_CPP = {
    "float": ("float", "Float"), "int": ("int64_t", "Int"), "bool": ("bool", "Bool"),
    "string": ("const char*", "String"), "list_int": ("gert::ContinuousVector", "ListInt"),
    "list_float": ("gert::ContinuousVector", "ListFloat"), "list_bool": ("gert::ContinuousVector", "ListBool"),
    "list_list_int": ("gert::ContinuousVector", "ListListInt"),
}


def _cpp_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        return text if ("." in text or "e" in text or "inf" in text or "nan" in text) else text + ".0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "{" + ", ".join(_cpp_literal(v) for v in value) + "}"
    raise TypeError(value)  # pragma: no cover - attr types are checked by the spec loader


def _py_literal(value: Any) -> str:
    """A Python default value for the golden's signature (lists become tuples: no mutable defaults)."""
    if isinstance(value, list):
        inner = ", ".join(_py_literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _attr_ctx(a: Attr, index: int) -> dict[str, Any]:
    cpp, method = _ATTR_CPP[a.type]
    if a.required:
        opdef = f".AttrType(REQUIRED).{method}()"
    else:
        opdef = f".AttrType(OPTIONAL).{method}({_cpp_literal(a.default)})"
    scalar = not a.type.startswith("list")
    return {
        "name": a.name, "type": a.type, "index": index, "cpp_type": cpp, "opdef": opdef, "scalar": scalar,
        "default": a.default, "required": a.required,
        "default_cpp": _cpp_literal(a.default) if a.default is not None else "",
        "tiling_type": {"float": "float", "int": "int64_t", "bool": "uint32_t"}.get(a.type, ""),
        # the type RuntimeAttrs::GetAttrPointer<T> reads for a scalar attr ("" for lists and strings)
        "getter_type": {"float": "float", "int": "int64_t", "bool": "bool"}.get(a.type, ""),
        "default_py": _py_literal(a.default) if a.default is not None else "",
    }


def _param_ctx(p: Param) -> dict[str, Any]:
    return {
        "name": p.name, "upper": p.upper, "index": p.index, "param": p.param.upper(),
        "dtypes": list(p.dtypes), "ge_dtypes": [f"ge::{DTYPES[d].ge}" for d in p.dtypes],
        "cpp_types": [DTYPES[d].cpp for d in p.dtypes], "ge_formats": [f"ge::FORMAT_{f}" for f in p.formats],
        "formats": list(p.formats), "shape": list(p.shape) if p.shape is not None else None,
        "when": p.when.text if p.when else None,
    }


def _infer(out: Param, spec: Spec, compute: str) -> dict[str, Any]:
    """How InferShape computes an output's shape: a copy of an input's, or dim by dim.

    A template's own spec (``compute == "template"``) may declare shapes that only its hand-written
    InferShape computes (``[...R, 1]``): those are marked ``hand_written``; a user's spec must be
    inferable, since opkit generates its InferShape.
    """
    try:
        return _infer_rule(out, spec)
    except SpecError:
        if compute == "template":
            return {"same_as": None, "dims": [], "hand_written": True}
        raise


def _infer_rule(out: Param, spec: Spec) -> dict[str, Any]:
    if out.shape is None:
        if not spec.inputs:
            raise SpecError([f"{spec.path}: outputs[{out.index}].shape: give the output a shape "
                             "(the operator has no input to copy it from)"])
        return {"same_as": 0, "dims": []}
    for p in spec.inputs:
        if p.shape is not None and list(p.shape) == list(out.shape) and p.param != "dynamic":
            return {"same_as": p.index, "dims": []}
    dims: list[dict[str, Any]] = []
    for k, dim in enumerate(out.shape):
        if isinstance(dim, int):
            dims.append({"value": dim})
            continue
        if dim.startswith("..."):
            raise SpecError([f"{spec.path}: outputs[{out.index}].shape: '{dim}' can only be inferred when the "
                             "output's whole shape equals an input's; write the InferShape function by hand"])
        symbol = dim.split("|")[0]
        source = None
        for p in spec.inputs:
            if p.shape is None or p.param == "dynamic" or any(isinstance(s, str) and s.startswith("...")
                                                               for s in p.shape):
                continue
            for j, s in enumerate(p.shape):
                if isinstance(s, str) and symbol in s.split("|"):
                    source = {"input": p.index, "dim": j}
                    break
            if source:
                break
        if source is None:
            raise SpecError([f"{spec.path}: outputs[{out.index}].shape[{k}]: symbol '{symbol}' appears in no "
                             "input's shape, so InferShape cannot be generated (name it in an input's shape)"])
        dims.append(source)
    return {"same_as": None, "dims": dims}


def _dtype_rule(out: Param, spec: Spec) -> dict[str, Any]:
    """How InferDataType sets an output's dtype: copy a required input's, a constant, or a lookup."""
    for p in spec.inputs:
        if p.param == "required" and p.dtypes == out.dtypes:
            return {"kind": "input", "input": p.index}
    if len(set(out.dtypes)) == 1:
        return {"kind": "const", "ge": f"ge::{DTYPES[out.dtypes[0]].ge}"}
    for p in spec.inputs:
        if p.param != "required":
            continue
        mapping: dict[str, str] = {}
        if all(mapping.setdefault(i, o) == o for i, o in zip(p.dtypes, out.dtypes, strict=True)):
            pairs = [[f"ge::{DTYPES[i].ge}", f"ge::{DTYPES[o].ge}"] for i, o in mapping.items()]
            return {"kind": "map", "input": p.index, "pairs": pairs}
    return {"kind": "unknown", "ge": f"ge::{DTYPES[out.dtypes[0]].ge}"}


def _case_ctx(case: Case, spec: Spec) -> dict[str, Any]:
    """A test case as the package README lists it."""
    shapes = ", ".join(f"{k}: {list(v) if isinstance(v, (list, tuple)) else v}" for k, v in case.shapes.items())
    return {
        "name": case.name, "tags": list(case.tags), "description": case.description, "shapes": shapes,
        "columns": [spec.column_label(k) for k in case.columns],
    }


def template_context(spec: Spec, op_yaml: str, compute: str) -> dict[str, Any]:
    """The cookiecutter context for one package. ``compute`` is ``template`` or ``generic``."""
    outputs = []
    for o in spec.outputs:
        ctx = _param_ctx(o)
        ctx["infer"] = _infer(o, spec, compute)
        ctx["dtype_rule"] = _dtype_rule(o, spec)
        outputs.append(ctx)
    attrs = [_attr_ctx(a, i) for i, a in enumerate(spec.attrs)]
    return {
        "op_name": spec.name,
        "op_type": spec.op_type,
        "family": spec.family,
        "summary": spec.summary,
        "_op_yaml": op_yaml,
        "_spec": {
            "kernel": spec.kernel,
            "socs": [s.key for s in spec.socs],
            "soc_columns": [{"key": s.key, "columns": list(s.columns) if s.columns is not None else None}
                            for s in spec.socs],
            "n_columns": spec.n_columns,
            "inputs": [_param_ctx(p) for p in spec.inputs],
            "outputs": outputs,
            "attrs": attrs,
            # scalar attrs copied into the TilingData, 8-byte fields first so the struct has no holes
            "tiling_attrs": sorted((a for a in attrs if a["tiling_type"]),
                                   key=lambda a: (a["tiling_type"] != "int64_t", a["index"])),
            "cases": [_case_ctx(c, spec) for c in spec.cases],
            "columns": [spec.column_label(k) for k in range(spec.n_columns)],
            "golden_func": spec.golden_func,
            "golden_file": spec.golden_file,
        },
    }
