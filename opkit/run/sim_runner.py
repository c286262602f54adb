"""Run a package's kernel on the simulator: one harness process per batch of requests.

A run is isolated in its own process, so a kernel that trips a simulator check, segfaults, aborts
or hangs ends as a clean error for that case while opkit carries on. Requests and data travel as
files (the contract is in ``opkit/sim/host/README.md``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from opkit import soc as socdata
from opkit.build import opdef_check, sim_backend
from opkit.dtypes import DTYPES
from opkit.errors import OpkitError, UsageError
from opkit.numerics import from_device, np_dtype, to_device
from opkit.run.types import RunOutput
from opkit.spec import Case, Spec
from opkit.spec.sections.shapes import concrete_shape

DEFAULT_TIMEOUT_S = 300.0
ERROR_PREFIX = "opkit-sim: error: "
WARNING_PREFIX = "opkit-sim: warning: "
LOG_PREFIX = "opkit-sim: log: "  # the op's own log lines, printed live when OPKIT_LOG_LEVEL is set


class KernelError(OpkitError):
    """The kernel (or its tiling/InferShape) failed on the simulator; the message is the diagnostic."""


def chip_request(chip: str) -> dict[str, Any]:
    c = {k: v for k, v in socdata.chip(chip).items() if k != "sources"}
    return c


def _diagnostics(stderr: str, prefix: str = ERROR_PREFIX) -> list[str]:
    """The simulator's error (or warning) lines, each with its indented continuation lines
    (``  at file:line``)."""
    out: list[str] = []
    current = False
    for line in stderr.splitlines():
        if line.startswith(prefix):
            out.append(line[len(prefix):])
            current = True
        elif current and line.startswith((" ", "\t")) and line.strip():
            out[-1] += "\n" + line.rstrip()
        else:
            current = False
    return out


def failure_message(returncode: int, stderr: str, label: str) -> str:
    """One clear message for a failed harness process."""
    diags = _diagnostics(stderr)
    if diags:  # the warnings the run gave first belong to the story (an error may point back at one)
        warned = [f"(earlier warning) {w}" for w in _diagnostics(stderr, WARNING_PREFIX)]
        return f"{label}: " + "\n".join(diags + warned)
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        tail = "\n".join(stderr.strip().splitlines()[-5:])
        return f"{label}: the kernel process died with {name}" + (f":\n{tail}" if tail else "")
    tail = "\n".join(stderr.strip().splitlines()[-8:])
    return f"{label}: the harness exited with code {returncode}" + (f":\n{tail}" if tail else "")


def _relay_op_log(stderr: str, label: str) -> None:
    """With OPKIT_LOG_LEVEL set, the harness prints the op's log lines (OP_LOGD/I/W/E of its tiling and
    InferShape) as they happen; after a successful run they reach the user's stderr, labelled with the run.
    A failing run shows them under its error instead (the harness attaches them to its diagnostic)."""
    lines = [line[len(LOG_PREFIX):] for line in stderr.splitlines() if line.startswith(LOG_PREFIX)]
    for line in lines:
        print(f"{label}: {line}", file=sys.stderr)


def _write_input(value: Any, dtype: str, path: Path, what: str) -> None:
    """An input's device bytes (int4 packed two per byte) into its request file."""
    try:
        to_device(value, dtype).tofile(path)
    except ValueError as exc:  # a value the packed type cannot hold
        raise KernelError(f"{what}: {exc}") from None


def _read_output(path: Path, dtype: Any, spec_dtype: str | None = None, count: int | None = None) -> np.ndarray:
    """An output file's elements. Large files are mapped copy-on-write instead of read: the array
    then uses the file's cached pages (no allocation, no copy) and stays valid after the file is
    removed (POSIX keeps a mapped file's pages until the mapping goes). A packed type (``spec_dtype``
    int4) is unpacked into ``count`` values."""
    if spec_dtype is not None and count is not None and DTYPES[spec_dtype].packed:
        return from_device(np.fromfile(path, dtype=np.uint8), spec_dtype, count)
    size = path.stat().st_size
    if os.name == "posix" and size >= (1 << 20) and size % np.dtype(dtype).itemsize == 0:
        return np.asarray(np.memmap(path, dtype=dtype, mode="c"))
    return np.fromfile(path, dtype=dtype)


def read_tensor(path: Path, dtype: str, shape: list[int], what: str) -> np.ndarray:
    """An output tensor of op.yaml ``dtype`` and ``shape`` from its file (:func:`_read_output`); a file of
    another element count is an error naming ``what``."""
    count = int(np.prod(shape, dtype=np.int64))
    data = _read_output(path, np_dtype(dtype), dtype, count)
    if data.size != count:
        raise KernelError(f"{what} has {data.size} elements; InferShape said {shape}")
    return data.reshape(shape)


def output_shapes_from_spec(spec: Spec, case: Case, exe: Path, req: dict[str, Any], label: str) -> None:
    """Without an InferShape registered, a request's output shapes come from op.yaml's symbolic ``shape``."""
    if opdef_check.infers_shapes(exe, spec.op_type):
        return
    for o, entry in zip(spec.device_outputs, req["outputs"], strict=True):
        entry["shape"] = concrete_shape(o.shape, case.dims) if o.shape is not None else None
        if entry["shape"] is None:
            raise KernelError(f"{label}: {spec.op_type} registers no InferShape, so output '{o.name}' "
                              "takes its shape from op.yaml; give it a 'shape' whose symbols the inputs "
                              f"bind (now: {list(o.shape) if o.shape else 'none'})")


def poison_option(value: str | None = None) -> bool | dict[str, Any] | None:
    """The request's ``poison`` from OPKIT_SIM_POISON: unset -> the default (outputs poisoned, NaN for floats,
    0xA5 bytes otherwise); ``off`` -> not poisoned; ``0xNN`` or ``N`` -> that byte pattern; ``,bytes`` after
    it -> floats get the byte pattern too instead of a NaN."""
    text = os.environ.get("OPKIT_SIM_POISON") if value is None else value
    if text is None or not text.strip():
        return None
    text = text.strip().lower()
    if text in ("off", "no", "false"):
        return False
    if text in ("on", "yes", "true"):
        return True
    byte, _, mode = text.partition(",")
    try:
        n = int(byte, 0)
    except ValueError:
        n = -1
    if not 0 <= n <= 255 or mode not in ("", "nan", "bytes"):
        raise UsageError(f"OPKIT_SIM_POISON={text!r}: give 'off', a byte 0..255 (e.g. 0xA5) or a byte and ',bytes' "
                         "(floats poisoned with the byte pattern instead of a NaN)")
    return {"byte": n, "float": mode or "nan"}


class SimRunner:
    """Builds (or reuses) the harness of each op × chip × column and runs cases in it."""

    takes_untouched = True  # run(untouched=...): the elements of outputs left as they were, not poisoned

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S, trace_dir: Path | None = None, jobs: int | None = None):
        self.timeout_s = timeout_s
        self.trace_dir = trace_dir
        self.jobs = jobs
        self._artifacts: dict[tuple[str, str, int], sim_backend.Artifact] = {}

    def artifact(self, spec: Spec, chip: str, column: int) -> sim_backend.Artifact:
        key = (str(spec.dir), chip, column)
        if key not in self._artifacts:
            a = sim_backend.plan(spec, chip, column)
            sim_backend.build([a], jobs=self.jobs)
            self._artifacts[key] = a
        return self._artifacts[key]

    def prebuild(self, wanted: list[tuple[Spec, str, int]], progress: Callable[[str], None] | None = None) -> None:
        """Build every (spec, chip, column) harness in one parallel batch; raises the first package's errors.
        ``progress`` hears what is being compiled (nothing when all is cached)."""
        todo = []
        for spec, chip, column in wanted:
            key = (str(spec.dir), chip, column)
            if key not in self._artifacts:
                self._artifacts[key] = sim_backend.plan(spec, chip, column)
                todo.append(self._artifacts[key])
        try:
            sim_backend.build(todo, jobs=self.jobs, progress=progress)
        except OpkitError:
            for a in todo:
                if not a.exe.is_file():
                    del self._artifacts[(str(a.spec.dir), a.chip, a.column)]
            raise

    def trace_path(self, spec: Spec, case: Case, column: int, chip: str, trace_only: bool = False) -> Path | None:
        """Where a run's trace goes: under ``trace_dir`` when set; a trace-only run without one writes
        it under the package's ``.opkit/traces/`` (its trace is the only thing it produces)."""
        name = f"{spec.name}.{case.name}.{spec.column_label(column)}.{chip}.trace.json"
        if self.trace_dir:
            return self.trace_dir / name
        if trace_only:
            return spec.dir / ".opkit" / "traces" / name
        return None

    def request(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any],
                work: Path, trace_only: bool = False, untouched: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
        ins = []
        for p in spec.inputs:
            value = inputs.get(p.name)
            entry: dict[str, Any] = {"name": p.name, "dtype": p.dtypes[column], "format": p.formats[column]}
            if value is None:
                entry.update({"shape": None, "file": None})
            elif isinstance(value, list):
                files = []
                for i, v in enumerate(value):
                    f = work / f"in_{p.name}_{i}.bin"
                    _write_input(v, p.dtypes[column], f, f"input '{p.name}'[{i}]")
                    files.append(str(f))
                entry.update({"shape": [list(np.shape(v)) for v in value], "file": files})
            else:
                f = work / f"in_{p.name}.bin"
                _write_input(value, p.dtypes[column], f, f"input '{p.name}'")
                entry.update({"shape": list(np.shape(value)), "file": str(f)})
                if any(o.inplace == p.name for o in spec.outputs):  # the kernel writes its result here
                    entry["result_file"] = str(work / f"inplace_{p.name}.bin")
            ins.append(entry)
        # A reference-form output is the OpDef output of its input's name; the harness gives the kernel the
        # input's buffer for it and writes that buffer back as the output.
        # A dynamic (list) output: one file per tensor, as many tensors as the first list input has.
        count = next((len(inputs[p.name]) for p in spec.inputs if p.param == "dynamic"
                      and isinstance(inputs.get(p.name), list)), 1)
        outs = [{"name": o.opdef_name, "dtype": o.dtypes[column], "format": o.formats[column],
                 "file": ([str(work / f"out_{o.name}_{i}.bin") for i in range(max(count, 1))] if o.param == "dynamic"
                          else str(work / f"out_{o.name}.bin")), **({"ref": o.ref} if o.ref else {})}
                for o in spec.device_outputs]
        attrs = [{"name": a.name, "type": a.type, "value": case.attrs.get(a.name)} for a in spec.attrs]
        tp = self.trace_path(spec, case, column, chip, trace_only)
        req = {"op_type": spec.op_type, "chip": chip_request(chip), "inputs": ins, "outputs": outs,
               "attrs": attrs, "trace": str(tp) if tp else None}
        if trace_only:
            req["trace_only"] = True
        poison = poison_option()
        if poison is not None:
            req["poison"] = poison
        produced = {o.name for o in spec.produced_outputs(case.attrs)}
        for o, entry in zip(spec.device_outputs, outs, strict=True):
            if o.name not in produced:  # a conditional output this call does not produce: the kernel need not write it
                entry["poison"] = False
            if untouched and o.name in untouched:
                f = work / f"untouched_{o.name}.bin"
                np.ascontiguousarray(untouched[o.name], dtype=np.uint8).tofile(f)
                entry["untouched"] = str(f)
        return req

    def run(self, spec: Spec, case: Case, column: int, chip: str, inputs: dict[str, Any],
            trace_only: bool = False, untouched: dict[str, np.ndarray] | None = None) -> RunOutput:
        """Run one case. ``untouched``: per output, the mask of elements the operator leaves as they were
        (op.yaml ``untouched``): not poisoned, not reported when unwritten.
        With ``trace_only`` the kernel runs without arithmetic or data bytes (see
        docs/simulator.md): the RunOutput has no outputs, ``info["trace_only"]`` is True and
        ``info["trace_file"]`` names the trace."""
        art = self.artifact(spec, chip, column)
        label = f"{spec.name}::{case.name}[{spec.column_label(column)}@{chip}]"
        if trace_only:
            label += " (trace-only)"
        groups = opdef_check.hccl_groups(art.exe, spec.op_type)
        if groups:
            raise UsageError(f"{label}: {spec.op_type}'s OpDef declares the HCCL group '{groups[0]}' "
                             "(MC2().HcclGroup): it is a multi-rank operator and runs on several ranks, one set of "
                             "tensors each (op.yaml: give the case a world_size; opkit run: --world-size; Python: "
                             "one mapping of tensors per rank)")
        with tempfile.TemporaryDirectory(prefix="opkit-run-") as tmp:
            work = Path(tmp)
            req = self.request(spec, case, column, chip, inputs, work, trace_only=trace_only, untouched=untouched)
            output_shapes_from_spec(spec, case, art.exe, req, label)
            if req["trace"]:
                Path(req["trace"]).parent.mkdir(parents=True, exist_ok=True)
                Path(req["trace"]).unlink(missing_ok=True)  # never report a previous run's trace
            req_path = work / "request.json"
            req_path.write_text(json.dumps(req), encoding="utf-8")
            env = dict(os.environ)
            if req["trace"]:
                env["OPKIT_SIM_TRACE"] = req["trace"]
            try:
                r = subprocess.run([str(art.exe), "run", str(req_path)], capture_output=True, text=True,
                                   timeout=self.timeout_s, env=env)
            except subprocess.TimeoutExpired:
                raise KernelError(f"{label}: no result after {self.timeout_s:.0f} s: the kernel hangs (a SyncAll or "
                                  "WaitFlag that is never satisfied?) or the case is too large") from None
            if r.returncode != 0:  # the diagnostic carries the op's log records
                raise KernelError(failure_message(r.returncode, r.stderr, label))
            _relay_op_log(r.stderr, label)
            result_path = req_path.with_name(req_path.name + ".result.json")
            try:
                result = json.loads(result_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise KernelError(f"{label}: the harness wrote no readable result ({exc})") from None
            outputs = {}
            for o in ([] if trace_only else spec.outputs):  # a trace-only run has no results
                if o.inplace is not None:
                    src = np.shape(inputs[o.inplace])
                    outputs[o.name] = _read_output(work / f"inplace_{o.inplace}.bin", np_dtype(o.dtypes[column]),
                                                   o.dtypes[column], int(np.prod(src, dtype=np.int64)))
                    outputs[o.name] = outputs[o.name].reshape(src)
                    continue
                shape = result.get("output_shapes", {}).get(o.opdef_name)
                if shape is None:
                    continue
                if o.param == "dynamic":  # a list output: one shape and one file per tensor
                    outputs[o.name] = [read_tensor(work / f"out_{o.name}_{i}.bin", o.dtypes[column], s,
                                                   f"{label}: output '{o.name}'[{i}]") for i, s in enumerate(shape)]
                    continue
                outputs[o.name] = read_tensor(work / f"out_{o.name}.bin", o.dtypes[column], shape,
                                              f"{label}: output '{o.name}'")
            info = {k: result[k] for k in ("block_dim", "tiling_key", "workspace_bytes", "tiling_bytes")
                    if k in result}
            if req["trace"] and Path(req["trace"]).is_file():
                info["trace_file"] = req["trace"]  # read only by those who need it (the perf model)
            warnings = _diagnostics(r.stderr, WARNING_PREFIX)
            if warnings:  # a run that passed may still have done something the NPU would not like
                info["warnings"] = warnings
            if trace_only:
                if result.get("trace_only") is not True:
                    raise KernelError(f"{label}: the harness ran a full run instead of a trace-only one "
                                      "(it predates trace-only mode: rebuild it with `opkit build`)")
                info["trace_only"] = True
                info["output_shapes"] = result.get("output_shapes", {})
                if "trace_file" not in info:
                    raise KernelError(f"{label}: the harness wrote no trace")
            return RunOutput(outputs, info)

    def run_ranks(self, spec: Spec, case: Case, column: int, chip: str, inputs: list[dict[str, Any]],
                  trace_only: bool = False,
                  untouched: list[dict[str, np.ndarray]] | None = None) -> list[RunOutput]:
        """Run one case of a multi-rank (MC2) operator: ``inputs[r]`` are rank r's tensors, the world size is
        their number; every rank is a device of one harness process (``harness run-ranks``, one request per
        rank). Returns each rank's RunOutput in rank order; a trace, when one is written, goes per rank to
        the trace path with ``.rank<r>`` before ``.trace.json``. Every rank's outputs are poisoned as in
        :meth:`run` (the bytes the collectives land count as written); ``untouched[r]``: rank r's masks of
        elements left as they were (op.yaml ``untouched``)."""
        art = self.artifact(spec, chip, column)
        label = f"{spec.name}::{case.name}[{spec.column_label(column)}@{chip}, {len(inputs)} ranks]"
        if not inputs:
            raise KernelError(f"{label}: a multi-rank run needs the inputs of at least one rank")
        with tempfile.TemporaryDirectory(prefix="opkit-ranks-") as tmp:
            paths, reqs = [], []
            for r, ins in enumerate(inputs):
                work = Path(tmp) / f"rank{r}"
                work.mkdir()
                masks = untouched[r] if untouched and r < len(untouched) else None
                req = self.request(spec, case, column, chip, ins, work, trace_only=trace_only, untouched=masks)
                if req["trace"]:
                    tp = Path(req["trace"])
                    req["trace"] = str(tp.with_name(tp.name.removesuffix(".trace.json") + f".rank{r}.trace.json"))
                    tp.parent.mkdir(parents=True, exist_ok=True)
                    Path(req["trace"]).unlink(missing_ok=True)
                req_path = work / "request.json"
                req_path.write_text(json.dumps(req), encoding="utf-8")
                paths.append(req_path)
                reqs.append(req)
            env = {k: v for k, v in os.environ.items() if k != "OPKIT_SIM_TRACE"}
            try:
                r = subprocess.run([str(art.exe), "run-ranks", *map(str, paths)], capture_output=True, text=True,
                                   timeout=self.timeout_s, env=env)
            except subprocess.TimeoutExpired:
                raise KernelError(f"{label}: no result after {self.timeout_s:.0f} s: the kernel hangs or the case is "
                                  "too large") from None
            if r.returncode != 0:
                raise KernelError(failure_message(r.returncode, r.stderr, label))
            _relay_op_log(r.stderr, label)
            return [self._rank_output(spec, column, req, path, trace_only, label)
                    for req, path in zip(reqs, paths, strict=True)]

    def _rank_output(self, spec: Spec, column: int, req: dict[str, Any], req_path: Path, trace_only: bool,
                     label: str) -> RunOutput:
        try:
            result = json.loads(req_path.with_name(req_path.name + ".result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise KernelError(f"{label}: the harness wrote no readable result for {req_path.parent.name} "
                              f"({exc})") from None
        outputs = {}
        for o in ([] if trace_only else spec.outputs):
            shape = result.get("output_shapes", {}).get(o.opdef_name)
            if shape is None:
                continue
            outputs[o.name] = read_tensor(req_path.parent / f"out_{o.name}.bin", o.dtypes[column], shape,
                                          f"{label}: {req_path.parent.name}: output '{o.name}'")
        info = {k: result[k] for k in ("block_dim", "tiling_key", "workspace_bytes", "tiling_bytes") if k in result}
        if req["trace"] and Path(req["trace"]).is_file():
            info["trace_file"] = req["trace"]
        if trace_only:
            info["trace_only"] = True
        return RunOutput(outputs, info)
