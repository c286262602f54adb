"""op.yaml against the registered OpDef: the package's C++ must declare what its spec says."""

from __future__ import annotations

import json
import math
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from opkit.build.toolchain import BuildError
from opkit.spec import Spec


def describe(exe: Path) -> dict[str, Any]:
    r = subprocess.run([str(exe), "describe"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise BuildError(f"{exe.name} describe failed: {r.stderr.strip() or r.returncode}")
    try:
        return json.loads(r.stdout)
    except ValueError as exc:
        raise BuildError(f"{exe.name} describe printed no JSON ({exc})") from None


def _same_default(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=0.0) or (a == b)
        except (TypeError, ValueError):
            return False
    return a == b


def spec_view(spec: Spec) -> dict[str, Any]:
    """The part of op.yaml that OpDef also declares, in the shape of ``describe``'s output."""
    def params(ps: list) -> list[dict[str, Any]]:
        return [{"name": p.opdef_name, "param_type": p.param, "dtypes": list(p.dtypes), "formats": list(p.formats)}
                for p in ps]
    return {
        "op_type": spec.op_type,
        "inputs": params(spec.inputs), "outputs": params(spec.device_outputs),
        "attrs": [{"name": a.name, "type": a.type, "required": a.required, "default": a.default}
                  for a in spec.attrs],
        "socs": [s.key for s in spec.socs],
    }


def differences(spec: Spec, described: dict[str, Any]) -> list[str]:
    """Lines of a diff between op.yaml (-) and the OpDef (+); empty when they agree."""
    ops = [o for o in described.get("ops", []) if o.get("op_type") == spec.op_type]
    if not ops:
        found = ", ".join(o.get("op_type", "?") for o in described.get("ops", [])) or "none"
        return [f"- OpDef {spec.op_type} (op.yaml)", f"+ OpDefs registered with OP_ADD: {found}"]
    op = ops[0]
    want = spec_view(spec)
    lines: list[str] = []
    for group in ("inputs", "outputs"):
        mine, theirs = want[group], op.get(group, [])
        if [p["name"] for p in mine] != [p["name"] for p in theirs]:
            lines += [f"- {group}: {[p['name'] for p in mine]}", f"+ {group}: {[p['name'] for p in theirs]}"]
            continue
        for a, b in zip(mine, theirs, strict=True):
            for key in ("param_type", "dtypes", "formats"):
                if a[key] != b.get(key):
                    lines += [f"- {group} {a['name']}.{key}: {a[key]}", f"+ {group} {a['name']}.{key}: {b.get(key)}"]
    mine_attrs = {a["name"]: a for a in want["attrs"]}
    their_attrs = {a["name"]: a for a in op.get("attrs", [])}
    if not their_attrs:
        pass  # an OpDef with no attrs takes its graph IR's, which op.yaml states (in IR order) and the harness passes
    elif list(mine_attrs) != list(their_attrs):
        lines += [f"- attrs: {list(mine_attrs)}", f"+ attrs: {list(their_attrs)}"]
    else:
        for name, a in mine_attrs.items():
            b = their_attrs[name]
            for key in ("type", "required"):
                # An OPTIONAL attr registered without a default (OpAttrDef's reference asks for one) has no value
                # to fall back on: op.yaml declares it required, so that every case gives one.
                no_default = key == "required" and a["required"] and b.get("default") is None
                if a[key] != b.get(key) and not no_default:
                    lines += [f"- attr {name}.{key}: {a[key]}", f"+ attr {name}.{key}: {b.get(key)}"]
            if not a["required"] and not _same_default(a["default"], b.get("default")):
                lines += [f"- attr {name}.default: {a['default']!r}", f"+ attr {name}.default: {b.get('default')!r}"]
    if sorted(want["socs"]) != sorted(op.get("socs", [])):
        lines += [f"- socs: {want['socs']}", f"+ socs (AddConfig): {op.get('socs', [])}"]
    if op.get("has_tiling") is False:
        lines.append("+ tiling function: not registered")
    if op.get("has_infershape") is False:
        shapeless = [o.name for o in spec.device_outputs if o.shape is None]
        if shapeless:  # without InferShape, output shapes come from op.yaml
            lines += [f"- outputs {shapeless}: no 'shape' in op.yaml",
                      "+ infershape function: not registered (give each output a symbolic 'shape' in op.yaml, "
                      "or register InferShape)"]
    return lines


@lru_cache(maxsize=256)
def infers_shapes(exe: Path, op_type: str) -> bool:
    """Whether the harness's operator registers an InferShape function (else output shapes come from op.yaml)."""
    ops = [o for o in describe(exe).get("ops", []) if o.get("op_type") == op_type]
    return not ops or ops[0].get("has_infershape") is not False


@lru_cache(maxsize=256)
def hccl_groups(exe: Path, op_type: str) -> tuple[str, ...]:
    """The HCCL groups the harness's operator declares (``MC2().HcclGroup``): a multi-rank operator when any."""
    ops = [o for o in describe(exe).get("ops", []) if o.get("op_type") == op_type]
    return tuple(ops[0].get("hccl_groups", ())) if ops else ()


def check(spec: Spec, exe: Path) -> None:
    diff = differences(spec, describe(exe))
    if diff:
        raise BuildError(f"{spec.path}: op.yaml and the OpDef registered in op_host/ disagree "
                         "(- op.yaml, + OpDef):\n" + "\n".join("  " + d for d in diff))
