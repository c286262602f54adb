"""`opkit adopt PATH`: an existing operator folder becomes an opkit package, its C++ untouched.

The folder is laid out as ops-transformer's operators or msOpGen's projects are: ``op_host/`` (OpDef,
InferShape, tiling, maybe under ``op_tiling/``) and ``op_kernel/``. opkit compiles the host code on
the simulator (with the build options given), runs it to read the OpDef it registers — inputs,
outputs, attrs with defaults, dtype and format columns, SoCs — and writes:

- ``op.yaml``: that interface, the build options, and cases: one per successful case of the
  folder's own tiling unit tests (``tests/ut/op_host/*tiling*.cpp``: shapes, dtypes, attrs), or one
  smoke case with placeholder shapes when there are none;
- ``golden.py``: the golden's signature, its body left for the user (verify says so per case); an
  existing golden.py is the user's math and is never replaced, not even with ``--force``.

``--dir D`` writes both into ``D`` with ``build.source_dir`` pointing back at the folder, so a
checkout is adopted without writing into it. Nothing existing is overwritten without ``--force``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from opkit import naming
from opkit.build.interface_check import entry_params_in
from opkit.build.kernel_entry import declared_kernel_types
from opkit.errors import SpecError, UsageError
from opkit.paths import GENERIC_TEMPLATE, templates_dir
from opkit.scaffold.context import template_context
from opkit.scaffold.msopgen import PLACEHOLDER_VALUES, tensor_yaml
from opkit.scaffold.new import install
from opkit.scaffold.ut_cases import UtCase, UtScan, UtTensor, find_ut_cases
from opkit.spec import Spec, load_string
from opkit.spec.model import BuildOptions
from opkit.spec.yamlio import dump

# A UT case larger than this (elements over all inputs) becomes a `full` case, outside the default run.
FULL_ELEMENTS = 1 << 22
_PLACEHOLDER_SHAPE = [8, 64]
_CASE_NAME = re.compile(r"[^a-z0-9_]+")


@dataclass
class AdoptResult:
    path: Path  # the package folder (where op.yaml is)
    source_dir: Path  # the folder holding op_host/ and op_kernel/
    spec: Spec
    written: list[Path] = field(default_factory=list)
    cases: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the user should know: skipped UT cases, placeholders
    backup: Path | None = None  # where the files replaced under --force were copied


def _kernel_kind(source_dir: Path) -> str:
    """vector | cube | mix, from the kernel's own declarations (KERNEL_TASK_TYPE_DEFAULT, Matmul API use)."""
    files = [p for p in sorted((source_dir / "op_kernel").rglob("*")) if p.suffix in {".cpp", ".h", ".hpp"}]
    declared = []  # every file's declarations (a folder may hold the entries of several architectures)
    for types in map(declared_kernel_types, ([f] for f in files)):
        declared += [t for t in [types.default, *(t for _, t in types.per_key)] if t]
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)
    if any("MIX" in d for d in declared) or re.search(r"REGIST_MATMUL_OBJ|\bMatmulImpl\b", text):
        return "mix"
    if declared and all(d == "KERNEL_TYPE_AIC_ONLY" for d in declared):
        return "cube"
    return "vector"


def _pick_op(described: dict[str, Any], folder: Path, op_type: str | None) -> dict[str, Any]:
    ops = described.get("ops", [])
    names = [o.get("op_type", "?") for o in ops]
    if not ops:
        raise UsageError(f"{folder / 'op_host'}: the host code registers no OpDef (OP_ADD); "
                         "opkit adopt needs the operator's OpDef to derive op.yaml")
    if op_type is not None:
        for o in ops:
            if o.get("op_type") == op_type:
                return o
        raise UsageError(f"{folder}: no OpDef {op_type} registered (found: {', '.join(names)}); "
                         "pick one with --op")
    if len(ops) == 1:
        return ops[0]
    for o in ops:
        if naming.snake_of(o["op_type"]) == folder.name:
            return o
    raise UsageError(f"{folder}: the host code registers {len(ops)} OpDefs ({', '.join(names)}); "
                     "pick one with --op")


def _tensor_entry(p: dict[str, Any], ref_name: str | None = None) -> dict[str, Any]:
    """op.yaml's entry of a tensor as ``describe`` reports it; ``ref_name`` names an output in GE's
    reference form (the OpDef output of an input's name) in op.yaml."""
    formats = p.get("formats") or ["ND"] * len(p["dtypes"])
    entry = tensor_yaml({"name": ref_name or p["name"], "dtypes": p["dtypes"], "formats": formats,
                         "param": p.get("param_type", "required")})
    if ref_name is not None:
        entry["ref"] = p["name"]
    return entry


def ref_names(op: dict[str, Any], entry: list[str] | None) -> dict[str, str]:
    """op.yaml names of the outputs that share an input's name (GE's reference form: one tensor, its buffer
    given to the kernel as an input and as an output): the kernel entry's parameter at the output's
    position where it is a free name (``k_cache_out``), else ``<name>_ref``."""
    inputs = [p["name"] for p in op["inputs"]]
    taken = {*inputs, *(p["name"] for p in op["outputs"]), *(a["name"] for a in op.get("attrs", []))}
    out: dict[str, str] = {}
    for j, p in enumerate(op["outputs"]):
        if p["name"] not in inputs:
            continue
        pos = len(inputs) + j
        cand = entry[pos] if entry is not None and pos < len(entry) else None
        if cand is None or cand in taken or naming.name_problem(cand) is not None:
            cand = f"{p['name']}_ref"
            while cand in taken:
                cand += "_"
        taken.add(cand)
        out[p["name"]] = cand
    return out


def _attr_entry(a: dict[str, Any]) -> dict[str, Any]:
    out = {"name": a["name"], "type": a["type"]}
    if not a.get("required") and a.get("default") is not None:
        out["default"] = a["default"]
    return out


def _column_of(op: dict[str, Any], case: UtCase) -> dict[str, str] | str | None:
    """The dtype selector matching the UT case's dtypes to exactly one column (a bare dtype name where that is
    unambiguous, else a {tensor: dtype} map), or None."""
    tensors = op["inputs"] + op["outputs"]
    given = [(p["name"], t.dtype) for p, t in zip(tensors, case.inputs + case.outputs, strict=False)
             if t.dtype is not None and t.shape is not None]
    if not given:
        return None
    n = len(op["inputs"][0]["dtypes"]) if op["inputs"] else len(op["outputs"][0]["dtypes"])
    by_name = {p["name"]: p for p in tensors}
    matches = [c for c in range(n) if all(by_name[name]["dtypes"][c] == dt for name, dt in given)]
    if len(matches) != 1:
        return None
    first = op["inputs"][0] if op["inputs"] else op["outputs"][0]
    if sum(1 for dt in first["dtypes"] if dt == first["dtypes"][matches[0]]) == 1:
        return first["dtypes"][matches[0]]  # a bare name: the one column whose first tensor has that dtype
    names = [p["name"] for p in op["inputs"]]
    pick = {name: dt for name, dt in given if name in names}
    if sum(1 for c in range(n) if all(by_name[k]["dtypes"][c] == v for k, v in pick.items())) > 1:
        pick = dict(given)  # the inputs alone leave a choice (an absent optional input): the outputs settle it
    return pick


def _attr_value(atype: str, value: Any) -> Any:
    if atype == "bool":
        return bool(value)
    if atype == "int":
        return int(value) if isinstance(value, (int, float, bool)) else value
    if atype == "float":
        return float(value) if isinstance(value, (int, float)) else value
    return value


def ut_case_entries(op: dict[str, Any], scan: UtScan) -> tuple[list[dict[str, Any]], list[str]]:
    """op.yaml cases from the successful UT cases (duplicates folded), and a note per case left out."""
    cases: list[dict[str, Any]] = []
    notes: list[str] = []
    seen: set[str] = set()
    attrs = {a["name"]: a["type"] for a in op.get("attrs", [])}
    for c in scan.cases:
        if not c.success:
            continue
        missing_tail = op["inputs"][len(c.inputs):]
        if len(c.inputs) < len(op["inputs"]) and all(p.get("param_type") == "optional" for p in missing_tail):
            # A test that lists fewer inputs leaves the trailing optional ones out (absent), as the context does.
            c = dataclasses.replace(c, inputs=[*c.inputs, *(UtTensor(None, None, "ND") for _ in missing_tail)])
        if len(c.inputs) != len(op["inputs"]):
            notes.append(f"{c.file.name}:{c.line}: {c.name}: {len(c.inputs)} inputs, the OpDef has "
                         f"{len(op['inputs'])}; left out")
            continue
        shapes = {p["name"]: t.shape for p, t in zip(op["inputs"], c.inputs, strict=True) if t.shape is not None}
        missing = [p["name"] for p, t in zip(op["inputs"], c.inputs, strict=True)
                   if t.shape is None and p.get("param_type", "required") == "required"]
        if missing:
            notes.append(f"{c.file.name}:{c.line}: {c.name}: no shape for required input(s) {', '.join(missing)}; "
                         "left out")
            continue
        entry: dict[str, Any] = {"name": "", "shapes": shapes}
        column = _column_of(op, c)
        if column is not None:
            entry["dtype"] = column
        unknown = [k for k in c.attrs if k not in attrs]
        if unknown:
            notes.append(f"{c.file.name}:{c.line}: {c.name}: attrs {', '.join(unknown)} are not in the OpDef; "
                         "ignored")
        case_attrs = {k: _attr_value(attrs[k], v) for k, v in c.attrs.items() if k in attrs}
        if case_attrs:
            entry["attrs"] = case_attrs
        key = repr((shapes, entry.get("dtype"), case_attrs))
        if key in seen:
            continue
        seen.add(key)
        elements = sum(_prod(s) for s in shapes.values())
        name = _CASE_NAME.sub("_", c.name.lower()).strip("_") or f"ut_{len(cases)}"
        entry["name"] = name if name not in {e["name"] for e in cases} else f"{name}_{len(cases)}"
        if elements > FULL_ELEMENTS:
            entry["tags"] = ["full"]
        if c.tiling_key is not None:
            entry["tiling_key"] = c.tiling_key
        cases.append(entry)
    for e in cases:
        if "full" not in e.get("tags", []):
            e["tags"] = ["smoke"]
            break
    return cases, notes + scan.skipped


def _prod(shape: list[int]) -> int:
    out = 1
    for d in shape:
        out *= max(int(d), 0)
    return out


def spec_text(op: dict[str, Any], *, name: str, family: str, kernel: str, build: dict[str, Any],
              cases: list[dict[str, Any]], summary: str, header: list[str], entry: list[str] | None = None) -> str:
    """op.yaml text for an adopted operator, checked by the spec loader before it is returned. ``entry``: the
    kernel entry's parameter names (they name the reference-form outputs)."""
    if not cases:
        shapes = {p["name"]: list(_PLACEHOLDER_SHAPE) if p.get("param_type", "required") == "required"
                  else [list(_PLACEHOLDER_SHAPE)] for p in op["inputs"]
                  if p.get("param_type", "required") in ("required", "dynamic")}  # a list input: one tensor
        cases = [{"name": "smoke", "tags": ["smoke"], "shapes": shapes}]
        header = [*header, "# No tiling unit test to take cases from: the smoke case has placeholder shapes."]
    refs = ref_names(op, entry)
    spec: dict[str, Any] = {
        "name": name, "op_type": op["op_type"], "family": family, "summary": summary,
        "socs": list(op.get("socs") or ["ascend910b"]), "kernel": kernel,
        "inputs": [_tensor_entry(p) for p in op["inputs"]],
        "outputs": [_tensor_entry(p, refs.get(p["name"])) for p in op["outputs"]],
        "attrs": [_attr_entry(a) for a in op.get("attrs", [])],
        "golden": f"golden.py:{name}", "build": build, "cases": cases,
    }
    if not spec["build"]:
        del spec["build"]
    # A required attr, or an OPTIONAL one registered without a default (which OpAttrDef's reference asks for):
    # either way op.yaml has no value for it, so each case needs one.
    required = [a for a in op.get("attrs", []) if a.get("required") or a.get("default") is None]
    filled: set[str] = set()
    for case in cases:
        for a in required:
            if a["name"] not in case.get("attrs", {}):
                case.setdefault("attrs", {})[a["name"]] = PLACEHOLDER_VALUES.get(a["type"], 0)
                filled.add(a["name"])
    if filled:
        header = [*header, f"# Placeholder values for attrs with no default that the unit tests do not give: "
                  f"{', '.join(sorted(filled))}."]
    text = "\n".join(header) + "\n" + dump(spec)
    try:
        load_string(text, file=f"op.yaml adopted from {op['op_type']}")
    except SpecError as exc:
        raise SpecError([f"{op['op_type']}: the op.yaml derived from its OpDef is not valid: {m}"
                         for m in exc.problems]) from None
    return text


def golden_text(spec: Spec, op_yaml: str) -> str:
    """The generic skeleton's golden.py for this spec: the signature, the math left to the user."""
    src = templates_dir() / GENERIC_TEMPLATE / "{{cookiecutter.op_name}}" / "golden.py"
    env = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    context = template_context(spec, op_yaml, "generic")
    return env.from_string(src.read_text(encoding="utf-8")).render(cookiecutter=context)


def _rel(target: Path, base: Path) -> str:
    """``target`` relative to ``base`` when they share a folder below the root, else absolute."""
    if len(Path(os.path.commonpath([target, base])).parts) <= 1:
        return target.as_posix()
    return Path(os.path.relpath(target, base)).as_posix()


def _source_entry(source: str, here: Path, package: Path) -> str:
    """A --source as op.yaml keeps it, relative to the package: the command line's path is relative to ``here``;
    a glob's folders up to its first wildcard are resolved, the wildcard part kept."""
    parts = Path(source).parts
    k = next((i for i, part in enumerate(parts) if any(ch in part for ch in "*?[")), len(parts))
    base = _rel((here / Path(*parts[:k])).resolve() if k else here.resolve(), package)
    return "/".join([base, *parts[k:]]) if k < len(parts) else base


def build_section(package: Path, source_dir: Path, include_dirs: list[Path], aliases: dict[str, Path],
                  sources: list[str], defines: list[str]) -> dict[str, Any]:
    """op.yaml's ``build:`` with every path relative to the package folder."""
    out: dict[str, Any] = {}
    if source_dir.resolve() != package.resolve():
        out["source_dir"] = _rel(source_dir, package)
    if include_dirs:
        out["include_dirs"] = [_rel(d, package) for d in include_dirs]
    if aliases:
        out["include_aliases"] = {k: _rel(v, package) for k, v in aliases.items()}
    if sources:
        out["sources"] = list(sources)
    if defines:
        out["defines"] = list(defines)
    return out


def adopt(path: str | Path, *, directory: str | Path | None = None, op_type: str | None = None,
          family: str | None = None, include_dirs: list[str | Path] = (), aliases: dict[str, str | Path] | None = None,
          sources: list[str] = (), defines: list[str] = (), chip: str = "ascend910b", force: bool = False,
          cwd: str | Path | None = None, describe: Any = None) -> AdoptResult:
    """Derive op.yaml and a golden.py skeleton for the operator folder ``path``; see the module doc."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    source_dir = (here / path).resolve()
    if not source_dir.is_dir():
        raise UsageError(f"{source_dir}: no such folder (opkit adopt takes an operator folder with op_host/ "
                         "and op_kernel/)")
    for part in ("op_host", "op_kernel"):
        if not (source_dir / part).is_dir():
            raise UsageError(f"{source_dir}: no {part}/ folder; opkit adopt takes an operator folder laid out as "
                             "ops-transformer's or msOpGen's (op_host/ with the OpDef, op_kernel/ with the kernel)")
    package = (here / directory).resolve() if directory is not None else source_dir
    if package.exists() and not package.is_dir():
        raise UsageError(f"{package}: exists and is not a folder; give --dir a folder")
    incs = [(here / d).resolve() for d in include_dirs]
    for d in incs:
        if not d.is_dir():
            raise UsageError(f"--include-dir {d}: no such folder")
    als = {k: (here / v).resolve() for k, v in (aliases or {}).items()}
    for k, v in als.items():
        if not v.is_dir():
            raise UsageError(f"--alias {k}={v}: no such folder")
    srcs = [_source_entry(s, here, package) for s in sources]
    build = build_section(package, source_dir, incs, als, srcs, list(defines))

    options = BuildOptions(
        source_dir=build.get("source_dir", "."), include_dirs=tuple(build.get("include_dirs", ())),
        include_aliases=tuple(build.get("include_aliases", {}).items()), sources=tuple(build.get("sources", ())),
        defines=tuple(build.get("defines", ())))
    created = not package.exists()
    package.mkdir(parents=True, exist_ok=True)  # the build options' relative paths start here
    try:
        return _adopt_into(package, source_dir, options, build, op_type, family, chip, force, describe)
    except BaseException:
        if created:
            shutil.rmtree(package, ignore_errors=True)
        raise


def _adopt_into(package: Path, source_dir: Path, options: BuildOptions, build: dict[str, Any], op_type: str | None,
                family: str | None, chip: str, force: bool, describe: Any) -> AdoptResult:
    if describe is None:
        from opkit.build.sim_backend import describe_folder

        described = describe_folder(source_dir, package, options, chip)
    else:
        described = describe(source_dir, package, options, chip)
    op = _pick_op(described, source_dir, op_type)
    name = naming.snake_of(op["op_type"])
    problem = naming.name_problem(name)
    if problem:
        raise UsageError(f"OpType {op['op_type']} gives the op name '{name}', which opkit refuses: {problem}")
    fam = family or (source_dir.parent.name if naming.name_problem(source_dir.parent.name) is None else "custom")
    scan = find_ut_cases(source_dir, op["op_type"])
    cases, notes = ut_case_entries(op, scan)
    header = [
        "# yaml-language-server: $schema=https://opkit.dev/schemas/op.schema.json",
        f"# Adopted by opkit from {source_dir.name}/ (OpDef {op['op_type']}); the C++ is used as it is.",
        "# The interface comes from the OpDef the host code registers; the cases from the folder's tiling",
        "# unit tests. golden.py still needs the math.",
    ]
    found = entry_params_in(source_dir / "op_kernel" / f"{name}.cpp", name)
    text = spec_text(op, name=name, family=fam, kernel=_kernel_kind(source_dir), build=build, cases=cases,
                     summary=f"{op['op_type']}, adopted from {source_dir.name}/.", header=header,
                     entry=found[0] if found else None)
    load_string(text, file=str(package / "op.yaml"))
    with tempfile.TemporaryDirectory(prefix="opkit-adopt-") as tmp:
        staged = Path(tmp)
        (staged / "op.yaml").write_text(text, encoding="utf-8")
        if not (package / "golden.py").exists():  # the user's math: never replaced, not even with --force
            spec = load_string(text, file=str(package / "op.yaml"))
            (staged / "golden.py").write_text(golden_text(spec, text), encoding="utf-8")
        written, _, backup = install(staged, package, force, tool="opkit adopt", into_existing=True)
    from opkit.spec import load

    spec = load(package / "op.yaml", check_files=False)  # a golden of the user's may still lack the function
    return AdoptResult(package, source_dir, spec, written, [c["name"] for c in cases], notes, backup)
