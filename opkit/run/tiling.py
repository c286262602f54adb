"""`opkit tiling`: run an operator's own tiling function on a case, without its kernel.

Only the host side is built (the host-only harness: op_host/ and the harness main, no kernel), so an
operator whose kernel does not compile yet still shows what its tiling decides: the tiling key, the
block dim, the workspaces, the schedule mode and the tiling data, decoded field by field with the
layout ``harness describe`` reports for the TilingData class the op registers (nested structs such as
TCubeTiling included). Inputs the tiling reads the values of (``ValueDepend``,
``TilingInputsDataDependency``) get the case's seeded data, as verify draws it; the others travel as
shapes only.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from opkit.build import opdef_check, sim_backend, struct_layout
from opkit.errors import OpkitError, UsageError
from opkit.run.inputs import make_inputs
from opkit.run.sim_runner import (
    DEFAULT_TIMEOUT_S,
    KernelError,
    SimRunner,
    _relay_op_log,
    failure_message,
    output_shapes_from_spec,
)
from opkit.run.types import Generators
from opkit.run.userdata import parse_attrs, select_case
from opkit.sim.host.tiling_struct import registered_classes
from opkit.spec import Case, Spec

# struct module codes of the TilingData scalar types (little-endian, as the NPU and the simulator store them)
_CODES = {"int8_t": "b", "uint8_t": "B", "char": "b", "bool": "?", "int16_t": "h", "uint16_t": "H",
          "int32_t": "i", "uint32_t": "I", "int64_t": "q", "uint64_t": "Q", "float": "f", "double": "d",
          # the spellings debug information may give (LP64)
          "signed char": "b", "unsigned char": "B", "short": "h", "unsigned short": "H", "int": "i",
          "unsigned int": "I", "long": "q", "unsigned long": "Q", "long long": "q", "unsigned long long": "Q",
          "size_t": "Q"}


@dataclass
class Field:
    """One decoded field: its dotted path (``mm.baseM``, ``dims[1]`` for arrays is one Field with a list)."""

    path: str
    type: str
    offset: int  # from the start of the tiling data
    value: Any


@dataclass
class TilingResult:
    op_type: str
    case: str
    column: int
    column_label: str
    chip: str
    tiling_key: int
    block_dim: int
    workspace_sizes: list[int]
    schedule_mode: int
    tiling_bytes: int
    data: bytes
    tiling_class: str | None  # the TilingData class the layout comes from (None: bytes only)
    fields: list[Field] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the decoding could not do
    output_shapes: dict[str, list[int]] = field(default_factory=dict)
    expected_key: int | None = None  # the case's ``tiling_key`` (what verify checks)

    def as_json(self) -> dict[str, Any]:
        return {
            "op_type": self.op_type, "case": self.case, "column": self.column, "dtypes": self.column_label,
            "chip": self.chip, "tiling_key": self.tiling_key, "block_dim": self.block_dim,
            "workspace_sizes": self.workspace_sizes, "workspace_bytes": sum(self.workspace_sizes),
            "schedule_mode": self.schedule_mode, "tiling_class": self.tiling_class,
            "tiling_bytes": self.tiling_bytes, "tiling_data_hex": self.data.hex(),
            "fields": nested(self.fields), "output_shapes": self.output_shapes, "notes": self.notes,
            "expected_tiling_key": self.expected_key,
        }


def nested(fields: list[Field]) -> dict[str, Any]:
    """The decoded fields as nested objects (``{"mm": {"baseM": 128, ...}, "dims": [1, 2]}``)."""
    out: dict[str, Any] = {}
    for f in fields:
        node = out
        parts = f.path.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = f.value
    return out


def decode(data: bytes, classes: dict[str, dict[str, Any]], cls: str) -> tuple[list[Field], list[str]]:
    """The fields of ``cls`` read from ``data`` with the layouts of ``classes`` (``harness describe``'s
    ``tiling_data_classes`` by class name); notes say what was not decoded (a struct of unknown layout,
    data shorter than the class)."""
    fields: list[Field] = []
    notes: list[str] = []

    def walk(name: str, base: int, prefix: str) -> None:
        for f in classes[name]["fields"]:
            path = prefix + f["name"]
            off = base + int(f["offset"])
            size = int(f["size"])
            if off >= len(data) or (off + size > len(data) and f["kind"] not in ("struct", "struct_array")):
                notes.append(f"{path}: at bytes {off}..{off + size}, past the {len(data)} bytes the tiling wrote")
                continue
            if f["kind"] == "struct_array" and f["type"] in classes and int(f.get("count", 0)) > 0:
                step = size // int(f["count"])
                for i in range(int(f["count"])):
                    walk(f["type"], off + i * step, f"{path}[{i}].")
                continue
            if f["kind"] in ("struct", "struct_array"):
                if f["type"] in classes:
                    walk(f["type"], off, path + ".")
                else:
                    fields.append(Field(path, f["type"], off, data[off:off + size].hex()))
                    notes.append(f"{path}: struct {f['type']} has no layout in describe; shown as hex bytes")
                continue
            code = _CODES.get(f["type"])
            if code is None:
                fields.append(Field(path, f["type"], off, data[off:off + size].hex()))
                notes.append(f"{path}: type {f['type']} is not a TilingData scalar; shown as hex bytes")
                continue
            if f["kind"] == "array":
                count = int(f.get("count", size // struct.calcsize(code)))
                fields.append(Field(path, f["type"], off, list(struct.unpack_from(f"<{count}{code}", data, off))))
            else:
                fields.append(Field(path, f["type"], off, struct.unpack_from(f"<{code}", data, off)[0]))

    walk(cls, 0, "")
    return fields, notes


def _tiling_class(described: dict[str, Any], op_type: str, key: int) -> str | None:
    """The class the tiling data of ``key`` is laid out as: the one registered for that key, else for the op."""
    default, per_key = registered_classes(described, op_type)
    if key in per_key:
        return per_key[key]
    if default is not None:
        return default
    op = next((o for o in described.get("ops", []) if o.get("op_type") == op_type), {})
    return op.get("tiling_data_class")


def _data_inputs(described: dict[str, Any], spec: Spec) -> set[str]:
    """The inputs whose values the tiling reads (ValueDepend, TilingInputsDataDependency)."""
    op = next((o for o in described.get("ops", []) if o.get("op_type") == spec.op_type), {})
    ins = op.get("inputs", [])
    names = {p["name"] for p in ins if p.get("value_depend")}
    names |= {ins[i]["name"] for i in op.get("tiling_data_dependency", []) if 0 <= i < len(ins)}
    return names


def run_tiling(spec: Spec, case_name: str, *, soc: str | None = None, dtype: Any | None = None,
               attr_items: list[str] | None = None, jobs: int | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S, progress: Callable[[str], None] | None = None,
               generators: Generators | None = None) -> TilingResult:
    """Build the package's host side for the chip and run its tiling on a case of op.yaml (``--attr``
    overriding the case's attrs, ``--dtype`` picking the column). ``generators``: golden.py's input
    generators (:func:`opkit.verify.golden.custom_generators`), for a tiling that reads input data."""
    chip, target = spec.target(spec.socs[0].key if soc is None else soc)
    attrs = parse_attrs(spec, attr_items or [])
    case, column = select_case(spec, case_name, dtype, attrs)
    if not target.supports(column):
        raise UsageError(f"{spec.name}: dtype column {column} ({spec.column_label(column)}) is not registered for "
                         f"{target.key} (chip {chip}); pick another --dtype or --soc")
    exe = sim_backend.build_host(spec, chip, jobs=jobs, progress=progress)
    opdef_check.check(spec, exe)  # op.yaml against the OpDef, as every build checks it
    described = opdef_check.describe(exe)
    label = f"{spec.name}::{case.name}[{spec.column_label(column)}@{chip}] (tiling)"
    result = _run(spec, case, column, chip, exe, described, label, timeout_s, generators)
    cls = _tiling_class(described, spec.op_type, int(result["tiling_key"]))
    data = bytes.fromhex(result.get("tiling_data_hex", ""))
    out = TilingResult(spec.op_type, case.name, column, spec.column_label(column), chip, int(result["tiling_key"]),
                       int(result["block_dim"]), [int(w) for w in result.get("workspace_sizes", [])],
                       int(result.get("schedule_mode", 0)), int(result.get("tiling_bytes", len(data))), data, cls,
                       output_shapes=result.get("output_shapes", {}), expected_key=case.tiling_key)
    if case.tiling_key is not None and case.tiling_key != out.tiling_key:
        out.notes.append(f"case {case.name} expects tiling key {case.tiling_key} (op.yaml); the tiling chose "
                         f"{out.tiling_key}: verify fails this case")
    layouts = {c["class"]: c for c in described.get("tiling_data_classes", [])}
    plain_notes: list[str] = []
    if cls is None and data:  # a plain struct shared by host and kernel: its layout from debug information
        cls, layouts, plain_notes = plain_layout(spec, chip, len(data))
        out.tiling_class = cls
        out.notes += plain_notes
    if cls is None:  # shown as bytes; the plain-struct notes, if any, say why
        if data and not plain_notes:
            out.notes.append(f"{spec.op_type} registers no TilingData class (REGISTER_TILING_DATA_CLASS) and no "
                             "plain tiling struct was found (GetTilingData<T>): the tiling data is shown as bytes")
    elif cls not in layouts:
        out.notes.append(f"TilingData class {cls} has no layout in describe: the tiling data is shown as bytes")
    else:
        out.fields, notes = decode(data, layouts, cls)
        out.notes += notes
        size = int(layouts[cls]["size"])
        if size != len(data):
            out.notes.append(f"the tiling wrote {len(data)} bytes; {cls} is {size} bytes")
    return out


def plain_layout(spec: Spec, chip: str, size: int) -> tuple[str | None, dict[str, dict[str, Any]], list[str]]:
    """The plain struct the tiling wrote (``GetTilingData<T>``; of several, the one of the data's size) and the
    layouts of it and what it nests."""
    compiler, flags, host_sources = sim_backend.host_compile_flags(spec, chip)
    names = struct_layout.struct_names(host_sources, spec.src_dir / "op_kernel")
    if not names:
        return None, {}, []
    headers = struct_layout.defining_headers(names, [spec.src_dir / "op_host", spec.src_dir / "op_kernel"])
    layouts, notes = struct_layout.plain_layouts(names, headers, flags, compiler,
                                                 spec.dir / sim_backend.BUILD_DIR / "gen")
    bare = [n.rpartition("::")[2] for n in names if n.rpartition("::")[2] in layouts]
    fits = [n for n in bare if int(layouts[n]["size"]) == size]
    if len(fits) == 1:
        return fits[0], layouts, notes
    if len(bare) == 1:
        return bare[0], layouts, notes
    if bare:
        notes.append(f"the host writes several plain tiling structs ({', '.join(bare)}) and none alone has the "
                     f"data's {size} bytes: the tiling data is shown as bytes")
    return None, layouts, notes


def _run(spec: Spec, case: Case, column: int, chip: str, exe: Path, described: dict[str, Any], label: str,
         timeout_s: float, generators: Generators | None) -> dict[str, Any]:
    """The harness's ``tiling`` result for one case: the request as ``opkit run`` writes it, with data only
    for the inputs whose values the tiling reads."""
    need = _data_inputs(described, spec)
    data_case = replace(case, shapes={k: v for k, v in case.shapes.items() if k in need})
    inputs = make_inputs(spec, data_case, column, generators) if need else {}
    with tempfile.TemporaryDirectory(prefix="opkit-tiling-") as tmp:
        work = Path(tmp)
        req = SimRunner().request(spec, case, column, chip, inputs, work)
        for p, entry in zip(spec.inputs, req["inputs"], strict=True):
            if entry["file"] is None and p.name in case.shapes:  # present, shape only
                entry["shape"] = case.shapes[p.name]
            elif entry["file"] is None and p.param == "dynamic":  # a list input the case leaves out: no tensors
                entry["shape"] = []
        # A dynamic (list) output: as many tensors as the case's first list input has.
        count = next((len(case.shapes[p.name]) for p in spec.inputs if p.param == "dynamic" and p.name in case.shapes),
                     1)
        for o, entry in zip(spec.device_outputs, req["outputs"], strict=True):
            if o.param == "dynamic":
                entry.update({"count": max(count, 1), "file": None})  # a tiling writes no output
        output_shapes_from_spec(spec, case, exe, req, label)
        req_path = work / "request.json"
        req_path.write_text(json.dumps(req), encoding="utf-8")
        try:
            env = dict(os.environ)
            if case.world_size is not None:  # a multi-rank case: the tiling of its rank 0 (hccl/hcom.h)
                env.update({"OPKIT_SIM_WORLD_SIZE": str(case.world_size), "OPKIT_SIM_RANK_ID": "0"})
            r = subprocess.run([str(exe), "tiling", str(req_path)], capture_output=True, text=True, timeout=timeout_s,
                               env=env)
        except subprocess.TimeoutExpired:
            raise KernelError(f"{label}: the tiling gave no result after {timeout_s:.0f} s") from None
        if r.returncode != 0:  # the diagnostic carries what the op logged and the simulator's warnings before it
            raise KernelError(failure_message(r.returncode, r.stderr, label))
        _relay_op_log(r.stderr, label)
        try:
            result = json.loads((work / "request.json.result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise OpkitError(f"{label}: the harness wrote no readable result ({exc})") from None
    if result.get("tiling_only") is not True:
        raise OpkitError(f"{label}: the harness does not know the tiling mode (it predates it: rebuild with "
                         "`opkit build`)")
    return result


def render(res: TilingResult) -> list[str]:
    """The text `opkit tiling` prints."""
    ws = ", ".join(str(w) for w in res.workspace_sizes) or "none"
    lines = [
        f"{res.op_type} case {res.case} [{res.column_label}@{res.chip}]",
        f"  tiling key     {res.tiling_key}",
        f"  block dim      {res.block_dim}",
        f"  workspaces     [{ws}] ({sum(res.workspace_sizes)} bytes)",
        f"  schedule mode  {res.schedule_mode}",
        f"  tiling data    {res.tiling_bytes} bytes" + (f", {res.tiling_class}" if res.tiling_class else ""),
    ]
    width = max((len(f.path) for f in res.fields), default=0)
    for f in res.fields:
        lines.append(f"    {f.path:<{width}}  {_show(f.value)}  ({f.type} @{f.offset})")
    if not res.fields and res.data:
        for i in range(0, len(res.data), 32):
            lines.append(f"    {i:6d}: {res.data[i:i + 32].hex(' ')}")
    lines += [f"  note: {n}" for n in res.notes]
    return lines


def _show(value: Any) -> str:
    """A field's value; an array's trailing run of one value (4 or more) is shown once with its count."""
    if isinstance(value, float):
        return f"{value:.9g}"
    if isinstance(value, list):
        run = 0
        while run < len(value) and value[len(value) - 1 - run] == value[-1]:
            run += 1
        if run >= 4:
            head = [_show(v) for v in value[:len(value) - run]]
            return "[" + ", ".join([*head, f"{_show(value[-1])} x{run}"]) + "]"
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)
