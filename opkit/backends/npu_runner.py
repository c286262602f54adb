"""Running op.yaml's cases on an Ascend NPU (``opkit verify|run --backend cann``) through the aclnn API.

The package must have been built (``opkit build --backend cann``) and installed (``opkit install``): the
runner loads the installed ``libcust_opapi.so`` (from ``$ASCEND_CUSTOM_OPP_PATH``'s vendor folders, then
``$ASCEND_OPP_PATH/vendors/<vendor>``). For each case the package's InferShape runs in opkit's host
harness (for the output shapes), then a worker process (:mod:`opkit.backends.aclnn_worker`) runs the case
on the device and writes the outputs back; the verify pipeline compares them with the golden.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opkit.backends import cann_env
from opkit.backends.aclnn_worker import ERROR
from opkit.backends.base import BackendUnavailable
from opkit.backends.cann_cpu_runner import host_tiling
from opkit.backends.install import check_library, symbols
from opkit.build import sim_backend
from opkit.dtypes import DTYPES, FORMAT_VALUES
from opkit.errors import UsageError
from opkit.numerics import tensor_bytes
from opkit.run.sim_runner import KernelError, read_tensor
from opkit.run.types import RunOutput
from opkit.spec import Case, Spec

RUNTIME_LIBS = ("libascendcl.so", "libnnopbase.so")


@dataclass
class _Host:
    exe: Path


def runtime_lib(cann: cann_env.Cann, name: str) -> Path:
    found = cann_env.runtime_lib(cann, name)
    if found is None:
        raise BackendUnavailable(f"--backend cann: {name} (CANN's runtime) is not in {cann.root}/lib64: install the "
                                 f"CANN toolkit with its runtime, then {cann.source_fix}")
    return found


def installed_library(spec: Spec, env: Mapping[str, str], cann: cann_env.Cann, vendor: str) -> Path:
    """The installed package's aclnn library: what CANN would load for this operator."""
    tried = []
    for entry in [p for p in env.get("ASCEND_CUSTOM_OPP_PATH", "").split(":") if p]:
        for cand in (Path(entry) / "op_api" / "lib" / "libcust_opapi.so", Path(entry) / "libcust_opapi.so"):
            tried.append(cand)
            if cand.is_file():
                return cand
    opp = env.get("ASCEND_OPP_PATH", "").strip() or (str(cann.opp) if cann.opp else "")
    if opp:
        cand = Path(opp) / "vendors" / vendor / "op_api" / "lib" / "libcust_opapi.so"
        tried.append(cand)
        if cand.is_file():
            return cand
    raise UsageError(f"{spec.name}: no installed aclnn library ({', '.join(map(str, tried)) or 'no ASCEND_OPP_PATH'}"
                     f"): build and install it first: opkit build {spec.dir} --backend cann && opkit install "
                     f"{spec.dir}")


def parse_devices(value: int | str | Sequence[int]) -> list[int]:
    """``--device``: one NPU (``3``: a multi-rank case's ranks on 3, 4, ...) or one per rank (``0,2,4,6``)."""
    items = [value] if isinstance(value, int) else value.split(",") if isinstance(value, str) else list(value)
    try:
        devices = [int(str(d).strip()) for d in items]
    except ValueError:
        devices = []
    if not devices or any(d < 0 for d in devices) or len(set(devices)) != len(devices):
        raise UsageError(f"--device {value}: give an NPU number (0), or one distinct number per rank of a multi-rank "
                         "case (0,1,2,3)")
    return devices


class NpuRunner:
    """The runner of ``opkit verify --backend cann``: same interface as the simulator's runner."""

    def __init__(self, timeout_s: float = 300.0, jobs: int | None = None, env: Mapping[str, str] | None = None,
                 vendor: str = "customize", device: int | str | Sequence[int] = 0,
                 cann_path: Path | str | None = None, sanitize: bool = False) -> None:
        self.timeout_s = timeout_s
        self.jobs = jobs
        self.env = dict(os.environ if env is None else env)
        cann = cann_env.find(self.env, cann_path)
        if cann is None:
            raise BackendUnavailable("--backend cann: no CANN toolkit found: " + cann_env.install_fix())
        self.cann = cann
        self.vendor = vendor
        self.devices = parse_devices(device)
        self.device = self.devices[0]  # a one-device case's NPU; a multi-rank case's rank 0
        self.sanitizer = sanitizer(cann, self.env) if sanitize else None
        self.runtime = {n: runtime_lib(cann, n) for n in RUNTIME_LIBS}
        self._hosts: dict[tuple[str, str], _Host] = {}
        self._libs: dict[str, Path] = {}

    def artifact(self, spec: Spec, chip: str, column: int) -> _Host:
        key = (str(spec.dir), chip)
        if key not in self._hosts:
            self._hosts[key] = _Host(sim_backend.build_host(spec, chip, jobs=self.jobs))
        return self._hosts[key]

    def library(self, spec: Spec) -> Path:
        if str(spec.dir) not in self._libs:
            lib = installed_library(spec, self.env, self.cann, self.vendor)
            env = dict(self.env)
            env["LD_LIBRARY_PATH"] = ":".join([str(lib.parent), *(str(p.parent) for p in self.runtime.values()),
                                               self.env.get("LD_LIBRARY_PATH", "")])
            check_library(lib, symbols(spec), env)
            self._libs[str(spec.dir)] = lib
        return self._libs[str(spec.dir)]

    def prebuild(self, wanted: list[tuple[Spec, str, int]], progress: Callable[[str], None] | None = None) -> None:
        for spec, chip, column in wanted:
            self.artifact(spec, chip, column)
            known = str(spec.dir) in self._libs
            lib = self.library(spec)
            if progress and not known:
                progress(f"{spec.name}: aclnn{spec.op_type} from {lib} on device {self.device}")

    def _request(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any], work: Path,
                 label: str, device: int, host_env: Mapping[str, str] | None = None,
                 hccl: dict[str, Any] | None = None) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
        """The worker's request of one case on ``device`` (in ``work``): the host step's output shapes, every
        tensor's file, ACL dtype and format, the attrs; ``hccl``: a rank's communicator (run_ranks). Returns the
        request's path, the outputs' entries and the host step's result."""
        host = self.artifact(spec, chip, column).exe
        lib = self.library(spec)
        req, result = host_tiling(host, spec, case, column, chip, inputs, work, label, self.timeout_s, env=host_env)
        shapes = result.get("output_shapes", {})
        outs = []
        for o in spec.device_outputs:
            shape = shapes.get(o.opdef_name)
            if shape is None:
                raise KernelError(f"{label}: InferShape gave no shape for output '{o.name}'")
            dt = o.dtypes[column]  # int4: ACL_INT4 of the view shape, its buffer packed two values per byte
            entry = {"name": o.name, "acl_dtype": DTYPES[dt].ge_value, "acl_format": FORMAT_VALUES[o.formats[column]]}
            if o.param == "dynamic":  # a list output: one shape, file and buffer per tensor
                entry.update({"list": True, "shape": [list(s) for s in shape],
                              "file": [str(work / f"out_{o.name}_{i}.bin") for i in range(len(shape))],
                              "bytes": [tensor_bytes(dt, s) for s in shape]})
            else:
                entry.update({"shape": list(shape), "file": str(work / f"out_{o.name}.bin"),
                              "bytes": tensor_bytes(dt, shape)})
            outs.append(entry)
        ins = [{"name": p.name, "shape": e["shape"], "file": e["file"], "list": isinstance(e["file"], list),
                "acl_dtype": DTYPES[p.dtypes[column]].ge_value, "acl_format": FORMAT_VALUES[p.formats[column]]}
               for p, e in zip(spec.inputs, req["inputs"], strict=True)]
        worker_req = {"op_type": spec.op_type, "device": device, "libcust_opapi": str(lib),
                      "libascendcl": str(self.runtime["libascendcl.so"]),
                      "libnnopbase": str(self.runtime["libnnopbase.so"]), "inputs": ins, "outputs": outs,
                      "attrs": [{"name": a.name, "type": a.type, "value": case.attrs.get(a.name)} for a in spec.attrs]}
        if hccl is not None:
            worker_req["hccl"] = hccl
        path = work / "aclnn.json"
        path.write_text(json.dumps(worker_req), encoding="utf-8")
        return path, outs, result

    def _worker_env(self, lib: Path) -> dict[str, str]:
        env = dict(self.env)
        env["LD_LIBRARY_PATH"] = ":".join([str(lib.parent), self.env.get("LD_LIBRARY_PATH", "")])
        return env

    @staticmethod
    def _read_outputs(spec: Spec, column: int, outs: list[dict[str, Any]], label: str) -> dict[str, Any]:
        outputs: dict[str, Any] = {}
        for o, t in zip(spec.device_outputs, outs, strict=True):
            dt, what = o.dtypes[column], f"{label}: output '{o.name}'"
            outputs[o.name] = ([read_tensor(Path(f), dt, s, f"{what}[{i}]")
                                for i, (f, s) in enumerate(zip(t["file"], t["shape"], strict=True))]
                               if t.get("list") else read_tensor(Path(t["file"]), dt, t["shape"], what))
        return outputs

    def run(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any],
            profile_dir: Path | None = None) -> RunOutput:
        """One case on the device; with ``profile_dir`` under ``msprof op`` (its output folder), the measured
        kernel time in ``info["measured_us"]``."""
        label = f"{spec.name}::{case.name}[{spec.column_label(column)}] (NPU device {self.device})"
        lib = self.library(spec)
        with tempfile.TemporaryDirectory(prefix="opkit-npu-") as tmp:
            work = Path(tmp)
            path, outs, result = self._request(spec, case, column, chip, inputs, work, label, self.device)
            argv = [sys.executable, "-m", "opkit.backends.aclnn_worker", str(path)]
            if profile_dir is not None:
                argv = [msprof(self.cann, self.env), "op", f"--output={profile_dir}", *argv]
            elif self.sanitizer is not None:
                argv = [self.sanitizer, "--tool=memcheck", f"--log-file={work / 'sanitizer.log'}", *argv]
            try:
                r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=self.timeout_s,
                                   env=self._worker_env(lib))
            except subprocess.TimeoutExpired:
                raise KernelError(f"{label}: no result from the device after {self.timeout_s:.0f} s") from None
            report = sanitizer_report(work / "sanitizer.log", r.stdout + r.stderr) if self.sanitizer else []
            if report:
                raise KernelError(f"{label}: mssanitizer (memcheck) reports:\n" + "\n".join(report))
            if r.returncode != 0:
                raise KernelError(f"{label}: {worker_error(r.stderr, r.returncode)}")
            done = json.loads(path.with_name(path.name + ".result.json").read_text(encoding="utf-8"))
            outputs = self._read_outputs(spec, column, outs, label)
        # block dim and tiling key: the package's tiling as the host harness ran it for the chip (the same code
        # the aclnn call runs on the host side)
        info = {"workspace_bytes": done.get("workspace_bytes"), "backend": "cann", "device": self.device,
                "library": str(lib), "block_dim": result.get("block_dim"), "tiling_key": result.get("tiling_key")}
        if profile_dir is not None:
            info["measured_us"], info["profile_csv"] = task_duration(profile_dir, label)
        return RunOutput(outputs, info)

    def run_ranks(self, spec: Spec, case: Case, column: int, chip: str,
                  inputs: list[dict[str, Any]], profile_dir: Path | None = None) -> list[RunOutput]:
        """A multi-rank (MC2) case: ``inputs[r]`` are rank r's tensors (:mod:`opkit.backends.npu_ranks`); with
        ``profile_dir`` every rank runs under ``msprof op``."""
        from opkit.backends import npu_ranks

        return npu_ranks.run_ranks(self, spec, case, column, chip, inputs, profile_dir)


def worker_error(stderr: str, returncode: int) -> str:
    """What a worker that failed reports: its ``opkit-aclnn: error:`` lines, else the end of its stderr."""
    lines = [x[len(ERROR):] for x in stderr.splitlines() if x.startswith(ERROR)]
    return "\n".join(lines) or "\n".join(stderr.strip().splitlines()[-8:]) or f"exit code {returncode}"


def sanitizer(cann: cann_env.Cann, env: Mapping[str, str]) -> str:
    found = cann_env.which("mssanitizer", env)
    if found:
        return found
    p = cann.root / "tools" / "mssanitizer" / "bin" / "mssanitizer"
    if p.is_file():
        return str(p)
    raise BackendUnavailable(f"--sanitize: mssanitizer (CANN's memory checker) is not on PATH: {cann.source_fix}")


def sanitizer_report(log: Path, output: str) -> list[str]:
    """mssanitizer's findings: its ``======`` lines that report an ERROR or a WARNING, with the lines under them."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else output
    out: list[str] = []
    keep = False
    for line in text.splitlines():
        if line.startswith("======"):
            keep = "ERROR" in line or "WARNING" in line
            if keep:
                out.append(line.strip())
        elif keep and line.strip():
            out.append("  " + line.strip())
    return out[:40]


def msprof(cann: cann_env.Cann, env: Mapping[str, str]) -> str:
    found = cann_env.which("msprof", env)
    if found:
        return found
    p = cann.root / "tools" / "profiler" / "bin" / "msprof"
    if p.is_file():
        return str(p)
    raise BackendUnavailable(f"--backend cann: msprof (CANN's profiler) is not on PATH: {cann.source_fix}")


DURATION_COLUMNS = ("Task Duration(us)", "Task Duration(μs)")


def task_duration(folder: Path, label: str) -> tuple[float, str]:
    """The kernel's Task Duration (µs) from the CSVs ``msprof op`` wrote under ``folder`` (OPPROF_*/...)."""
    import csv

    for f in sorted(folder.rglob("*.csv")):
        with open(f, newline="", encoding="utf-8", errors="replace") as fh:
            rows = list(csv.reader(fh))
        if not rows:
            continue
        head = [h.strip() for h in rows[0]]
        col = next((head.index(c) for c in DURATION_COLUMNS if c in head), None)
        if col is None:
            continue
        values = [float(r[col]) for r in rows[1:] if len(r) > col and r[col].strip()]
        if values:
            return sum(values), str(f)
    raise KernelError(f"{label}: msprof op wrote no Task Duration under {folder} (its output: the OPPROF_* folder)")


def measure(spec: Spec, case_name: str, dtype: Any | None, soc_name: str | None, device: int | str = 0,
            vendor: str = "customize", timeout_s: float = 300.0, generators: Any | None = None,
            ranks: int | None = None) -> dict[str, Any]:
    """``opkit perf --backend cann``: one case on the NPU under ``msprof op``; its Task Duration in µs.
    ``generators``: golden.py's ``init: {custom: fn}`` lookup (opkit.verify.golden.custom_generators). A
    multi-rank case runs every rank under ``msprof op`` (``ranks``: ``--world-size``, else the case's
    ``world_size``); ``measured_us`` is then the slowest rank's, ``per_rank_us`` every rank's."""
    from dataclasses import replace

    from opkit.run.inputs import make_inputs, make_rank_inputs
    from opkit.run.limits import check_case
    from opkit.run.userdata import select_case

    case, column = select_case(spec, case_name, dtype)
    chip, _ = spec.target(soc_name or spec.socs[0].key)
    check_case(spec, case, column)
    runner = NpuRunner(timeout_s=timeout_s, vendor=vendor, device=device)
    with tempfile.TemporaryDirectory(prefix="opkit-msprof-") as tmp:
        if spec.multi_rank:
            from opkit.run.rankdata import world_size

            case = replace(case, world_size=world_size(case, ranks))
            outs = runner.run_ranks(spec, case, column, chip, make_rank_inputs(spec, case, column, generators),
                                    profile_dir=Path(tmp))
            times = [float(o.info["measured_us"]) for o in outs]
            slowest = max(range(len(times)), key=times.__getitem__)
            return {"measured_us": times[slowest], "per_rank_us": times, "slowest_rank": slowest,
                    "devices": [o.info["device"] for o in outs], "device": outs[0].info["device"],
                    "source": Path(outs[slowest].info["profile_csv"]).name, "library": outs[0].info["library"]}
        out = runner.run(spec, case, column, chip, make_inputs(spec, case, column, generators),
                         profile_dir=Path(tmp))
        return {"measured_us": out.info["measured_us"], "device": out.info["device"],
                "source": Path(out.info["profile_csv"]).name, "library": out.info["library"]}
