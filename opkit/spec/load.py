"""Load and check an op.yaml: schema first, then the rules a schema cannot say; build typed objects.

Each section has its own checker in ``opkit.spec.sections``; :func:`build` runs them in order.
"""

from __future__ import annotations

from pathlib import Path

from opkit.dtypes import DTYPES
from opkit.errors import SpecError
from opkit.spec.model import Spec
from opkit.spec.schema import schema_problems
from opkit.spec.sections import Checker, attrs, cases, dims, doc_dir, identity, perf, precision, socs, tensors
from opkit.spec.sections import build as build_section
from opkit.spec.sections.attrs import INT64, attr_value_problem
from opkit.spec.sections.compare import HOOK_ARGS, compare_hook
from opkit.spec.sections.golden import golden_problem
from opkit.spec.sections.shapes import bind_shape, shape_roles
from opkit.spec.sections.tensors import RESERVED_TENSOR_NAMES, resolve_column
from opkit.spec.yamlio import Document, load_file, load_text

# Names other modules import from here.
_bind_shape = bind_shape
__all__ = ["HOOK_ARGS", "INT64", "RESERVED_TENSOR_NAMES", "attr_value_problem", "bind_shape", "build", "doc_dir",
           "load", "load_string", "resolve_column", "shape_roles"]


def build(doc: Document, check_files: bool = True) -> Spec:
    """Check a loaded document and build the Spec; raises SpecError listing every problem."""
    if not isinstance(doc.data, dict):
        raise SpecError([f"{doc.file}:1: (top level): expected a mapping of spec fields, found "
                         f"{'an empty document' if doc.data is None else type(doc.data).__name__}"])
    problems = schema_problems(doc)
    if problems:
        raise SpecError(problems)
    d = doc.data
    c = Checker(doc)

    name, op_type = identity.check(c, d)
    attr_map = attrs.check(c, d)
    params, n_columns = tensors.check(c, d, attr_map)
    inputs = [p for p in params if not p.is_output]
    outputs = [p for p in params if p.is_output]
    if c.problems:
        raise SpecError(c.problems)
    tensors.check_columns(c, params, n_columns)
    targets = socs.check(c, d, inputs, outputs, n_columns)

    spec_dir = doc_dir(doc) if check_files else None
    golden_file, golden_func = d["golden"].rsplit(":", 1)
    if spec_dir is not None:
        gp = golden_problem(spec_dir, golden_file, golden_func)
        if gp:
            c.err(("golden",), gp)
    hook = compare_hook(c, d["compare"], ("compare",), None, outputs, golden_file, spec_dir) \
        if "compare" in d else None
    limits = dims.check(c, d.get("dims", {}), params)
    precision.check(c, d.get("precision", {}), ("precision",), "mixed", [o.name for o in outputs])
    case_list = cases.check(c, d, inputs, outputs, attr_map, n_columns, limits, hook, golden_file, spec_dir)
    perf_list = perf.check(c, d, case_list)
    options = build_section.check(c, d, spec_dir)

    for prm in params:
        for k, dt in enumerate(prm.dtypes):
            if dt not in DTYPES:  # pragma: no cover - the schema already refuses these
                c.err((("outputs" if prm.is_output else "inputs"), prm.index, "dtypes", k), f"unknown dtype {dt}")

    if c.problems:
        raise SpecError(c.problems)
    return Spec(
        path=Path(doc.file), name=name, op_type=op_type, family=d["family"], summary=d.get("summary", ""),
        socs=targets, kernel=d["kernel"], inputs=inputs, outputs=outputs, attrs=list(attr_map.values()),
        golden_file=golden_file, golden_func=golden_func, cases=case_list,
        precision=dict(d.get("precision", {})), perf=perf_list, doc=doc, raw=d, compare=hook, dims=limits,
        build=options)


def load(path: str | Path, check_files: bool = True) -> Spec:
    """Load the op.yaml at ``path`` (a file, or a package folder holding one)."""
    p = Path(path)
    if p.is_dir():
        p = p / "op.yaml"
    if not p.is_file():
        raise SpecError([f"{p}: no such spec file (an operator package is a folder holding op.yaml)"])
    return build(load_file(p), check_files=check_files)


def load_string(text: str, file: str = "op.yaml", check_files: bool = False) -> Spec:
    return build(load_text(text, file), check_files=check_files)
