"""Running op.yaml's cases on CANN's CPU model (``--backend cann-cpu``).

The host side runs as it does for the simulator: the package's own tiling and InferShape in opkit's
host harness (``harness tiling``) give the tiling key, block dim, workspace size, tiling data and output
shapes. The kernel then runs in the CPU-debug executable built against CANN's tikicpulib
(:mod:`opkit.backends.cann_cpu`), which reads the inputs and the tiling data from files and writes the
outputs back; the verify pipeline compares them with the golden as it does the simulator's.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from opkit.backends import cann_cpu, cann_env
from opkit.build import sim_backend
from opkit.errors import OpkitError
from opkit.numerics import tensor_bytes
from opkit.run.sim_runner import KernelError, SimRunner, failure_message, output_shapes_from_spec, read_tensor
from opkit.run.types import RunOutput
from opkit.spec import Case, Spec

LOG_LINES = 20  # lines of CANN's CPU-debug output kept with a run


@dataclass
class _Host:
    exe: Path  # the host harness: describe (OpDef check) and tiling


def host_tiling(host: Path, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any], work: Path,
                label: str, timeout_s: float, env: Mapping[str, str] | None = None) -> tuple[dict[str, Any],
                                                                                           dict[str, Any]]:
    """The simulator-style request of a case (its input files written into ``work``) and the host harness's
    ``tiling`` result for it: tiling key, block dim, workspace sizes, tiling data, output shapes. ``env``: the
    harness's environment (a rank of a multi-rank case: OPKIT_SIM_WORLD_SIZE and OPKIT_SIM_RANK_ID)."""
    req = SimRunner().request(spec, case, column, chip, inputs, work)
    output_shapes_from_spec(spec, case, host, req, label)
    req_path = work / "request.json"
    req_path.write_text(json.dumps(req), encoding="utf-8")
    try:
        r = subprocess.run([str(host), "tiling", str(req_path)], capture_output=True, text=True, timeout=timeout_s,
                           env=None if env is None else dict(env))
    except subprocess.TimeoutExpired:
        raise KernelError(f"{label}: the tiling gave no result after {timeout_s:.0f} s") from None
    if r.returncode != 0:
        raise KernelError(failure_message(r.returncode, r.stderr, label))
    try:
        result = json.loads((work / "request.json.result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OpkitError(f"{label}: the host harness wrote no readable tiling result ({exc})") from None
    return req, result


def list_word(manifest: Path, kind: str, files: list[str], shapes: list[list[int]], sizes: list[int]) -> str:
    """The launcher's word of a dynamic (list) parameter: ``L:MANIFEST``, one line per tensor (``r`` read in or
    ``w`` written back, its bytes, rank, dims and file); the launcher builds the list's ListTensorDesc block."""
    lines = [" ".join([kind, str(n), str(len(s)), *map(str, s), f])
             for f, s, n in zip(files, shapes, sizes, strict=True)]
    manifest.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return f"L:{manifest}"


class CannCpuRunner:
    """The runner of ``opkit verify --backend cann-cpu``: same interface as the simulator's runner."""

    def __init__(self, timeout_s: float = 300.0, jobs: int | None = None, env: Mapping[str, str] | None = None,
                 cann_path: Path | str | None = None) -> None:
        self.timeout_s = timeout_s
        self.jobs = jobs
        self.env = dict(os.environ if env is None else env)
        cann = cann_env.find(self.env, cann_path)
        if cann is None:
            cann_cpu.readiness(self.env, cann_path).require("opkit verify")
        assert cann is not None
        self.cann = cann
        self._hosts: dict[tuple[str, str], _Host] = {}
        self._exes: dict[tuple[str, str, int], cann_cpu.CpuExe] = {}

    def artifact(self, spec: Spec, chip: str, column: int) -> _Host:
        key = (str(spec.dir), chip)
        if key not in self._hosts:
            self._hosts[key] = _Host(sim_backend.build_host(spec, chip, jobs=self.jobs))
        return self._hosts[key]

    def cpu_exe(self, spec: Spec, chip: str, column: int) -> cann_cpu.CpuExe:
        key = (str(spec.dir), chip, column)
        if key not in self._exes:
            target = cann_cpu.write_project(spec, self.cann, chip, column, self.jobs)
            cann_cpu.build_exe(target, self.cann, self.jobs, self.env)
            self._exes[key] = target
        return self._exes[key]

    def prebuild(self, wanted: list[tuple[Spec, str, int]], progress: Callable[[str], None] | None = None) -> None:
        for spec, chip, column in wanted:
            if (str(spec.dir), chip, column) not in self._exes and progress:
                progress(f"{spec.name}[{spec.column_label(column)}@{chip}]: CPU-debug build with tikicpulib::"
                         f"{cann_cpu.tikicpulib_chip(chip)}")
            self.artifact(spec, chip, column)
            self.cpu_exe(spec, chip, column)

    def run(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any]) -> RunOutput:
        label = f"{spec.name}::{case.name}[{spec.column_label(column)}@{chip}] (cann-cpu)"
        host = self.artifact(spec, chip, column).exe
        target = self.cpu_exe(spec, chip, column)
        with tempfile.TemporaryDirectory(prefix="opkit-cann-cpu-") as tmp:
            work = Path(tmp)
            req, result = host_tiling(host, spec, case, column, chip, inputs, work, label, self.timeout_s)
            tiling = bytes.fromhex(result.get("tiling_data_hex", ""))
            (work / "tiling.bin").write_bytes(tiling)
            # An input that an in-place or reference-form output writes into is read in and written back; a
            # reference-form output is given its input's buffer, as CANN's runtime does.
            written = {o.inplace or o.ref for o in spec.outputs} - {None}
            index = {p.name: i for i, p in enumerate(spec.inputs)}
            words: list[str] = []
            for p, entry in zip(spec.inputs, req["inputs"], strict=True):
                f = entry["file"]
                if f is None:
                    words.append("n")
                elif isinstance(f, list):  # a dynamic input: its tensors and their ListTensorDesc block
                    words.append(list_word(work / f"list_{p.name}.txt", "r", f, entry["shape"],
                                           [Path(x).stat().st_size for x in f]))
                else:
                    words.append(f"{'m' if p.name in written else 'r'}:{f}:{Path(f).stat().st_size}")
            shapes = result.get("output_shapes", {})
            outs: dict[str, Any] = {}  # per output: (file, shape), or a list of them for a list output
            for o in spec.outputs:
                source = o.inplace or o.ref
                if source and req["inputs"][index[source]]["file"] is None:
                    raise KernelError(f"{label}: output '{o.name}' is written into input '{source}', which the case "
                                      "does not give")
            for o in spec.device_outputs:
                if o.ref:  # the input's buffer: read in, written back, read as the output
                    outs[o.name] = (Path(req["inputs"][index[o.ref]]["file"]), list(np.shape(inputs[o.ref])))
                    words.append(f"={index[o.ref]}")
                    continue
                shape = shapes.get(o.opdef_name)
                if shape is None:
                    raise KernelError(f"{label}: InferShape gave no shape for output '{o.name}'")
                if o.param == "dynamic":  # a list output: one file per tensor, of the shapes InferShape gives
                    files = [work / f"out_{o.name}_{i}.bin" for i in range(len(shape))]
                    outs[o.name] = [(f, list(s)) for f, s in zip(files, shape, strict=True)]
                    words.append(list_word(work / f"list_{o.name}.txt", "w", [str(f) for f in files], shape,
                                           [tensor_bytes(o.dtypes[column], s) for s in shape]))
                    continue
                path = work / f"out_{o.name}.bin"
                outs[o.name] = (path, list(shape))
                words.append(f"w:{path}:{tensor_bytes(o.dtypes[column], shape)}")
            for o in spec.outputs:
                if o.inplace:  # no kernel parameter: read from its input's buffer
                    outs[o.name] = (Path(req["inputs"][index[o.inplace]]["file"]), list(np.shape(inputs[o.inplace])))
            workspace = sum(int(w) for w in result.get("workspace_sizes", []))
            words += [f"z:{workspace}", f"r:{work / 'tiling.bin'}:{len(tiling)}"]
            argv = [str(target.exe), str(int(result["tiling_key"])), str(int(result["block_dim"])), *words]
            try:
                r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=self.timeout_s,
                                   cwd=work, env=self.env)
            except subprocess.TimeoutExpired:
                raise KernelError(f"{label}: no result after {self.timeout_s:.0f} s on CANN's CPU model") from None
            log = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()][-LOG_LINES:]
            if r.returncode != 0:
                how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
                raise KernelError(f"{label}: the kernel failed on CANN's CPU model ({how}):\n" + "\n".join(log))
            outputs = {}
            for o in spec.outputs:
                got, dt, what = outs[o.name], o.dtypes[column], f"{label}: output '{o.name}'"
                outputs[o.name] = ([read_tensor(f, dt, s, f"{what}[{i}]") for i, (f, s) in enumerate(got)]
                                   if isinstance(got, list) else read_tensor(got[0], dt, got[1], what))
        info: dict[str, Any] = {"block_dim": result.get("block_dim"), "tiling_key": result.get("tiling_key"),
                                "workspace_bytes": workspace, "tiling_bytes": len(tiling), "backend": "cann-cpu"}
        if log:
            info["cann_cpu_log"] = log
        return RunOutput(outputs, info)


def compare_outputs(mine: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Per output: elements, how many differ (bit for bit, NaN equal to NaN), the largest absolute difference."""
    rows = []
    for name in sorted(set(mine) | set(theirs)):
        a, b = mine.get(name), theirs.get(name)
        if a is None or b is None or a.shape != b.shape:
            rows.append({"output": name, "elements": None, "differ": None, "max_abs_diff": None,
                         "note": f"shapes {None if a is None else list(a.shape)} (cann-cpu) and "
                                 f"{None if b is None else list(b.shape)} (sim)"})
            continue
        x, y = a.astype(np.float64), b.astype(np.float64)
        same = (x == y) | (np.isnan(x) & np.isnan(y))
        finite = np.isfinite(x) & np.isfinite(y)
        diff = float(np.max(np.abs(x[finite] - y[finite]))) if finite.any() else 0.0
        rows.append({"output": name, "elements": int(a.size), "differ": int((~same).sum()), "max_abs_diff": diff,
                     "note": ""})
    return rows


class BesideSim:
    """Runs each case on CANN's CPU model and on opkit's simulator: the CPU model's outputs, with the two
    compared and both sides' diagnostics in ``info["beside_sim"]``."""

    def __init__(self, cpu: CannCpuRunner, sim: SimRunner) -> None:
        self.cpu, self.sim = cpu, sim

    def run(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any]) -> RunOutput:
        mine = self.cpu.run(spec, case, column, chip, inputs)
        side: dict[str, Any] = {"cann_cpu_log": mine.info.get("cann_cpu_log", [])}
        try:
            theirs = self.sim.run(spec, case, column, chip, inputs)
        except OpkitError as exc:
            side.update({"sim_error": exc.message, "outputs": []})
        else:
            side.update({"outputs": compare_outputs(mine.outputs, theirs.outputs),
                         "sim_warnings": theirs.info.get("warnings", []),
                         "sim_block_dim": theirs.info.get("block_dim")})
        mine.info["beside_sim"] = side
        return mine
