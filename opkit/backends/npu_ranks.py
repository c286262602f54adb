"""A multi-rank (MC2) case on R NPUs through the aclnn API (``opkit verify --backend cann`` of an mc2 package).

One worker process per rank (:mod:`opkit.backends.aclnn_worker`), all started together, rank r on its device
(``--device N``: N + r; ``--device 0,2,4,6``: the r-th). Rank 0 calls ``HcclGetRootInfo`` and writes the root
info to a file in the run's work folder; the other ranks read it there, and every rank calls
``HcclCommInitRootInfo(R, &root, rank, &comm)`` and passes ``HcclGetCommName(comm)`` as the operator's group
attr (the attrs the OpDef names with ``MC2().HcclGroup``), runs the two aclnn phases on its own inputs, copies
its outputs back and calls ``HcclCommDestroy``. Each rank's host step (InferShape, for the output shapes) runs
in opkit's host harness as that rank (OPKIT_SIM_WORLD_SIZE, OPKIT_SIM_RANK_ID). One timeout covers the whole
run: when it passes, or when one rank fails (the others would wait for it in a collective), every rank still
running is ended and the error names each rank's state.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opkit.errors import UsageError
from opkit.run.sim_runner import KernelError
from opkit.run.types import RunOutput
from opkit.spec import Case, Spec

if TYPE_CHECKING:
    from opkit.backends.npu_runner import NpuRunner

ROOT_INFO = "hccl_root_info.bin"
POLL_S = 0.01


def rank_devices(devices: list[int], ranks: int) -> list[int]:
    """The NPU of each rank: ``--device N`` gives N, N+1, ...; a list gives one device per rank."""
    if len(devices) == 1:
        return [devices[0] + r for r in range(ranks)]
    if len(devices) < ranks:
        given = ",".join(map(str, devices))
        raise UsageError(f"--device {given}: {len(devices)} devices for a case of {ranks} ranks: give one device per "
                         f"rank ({','.join(str(devices[0] + r) for r in range(ranks))}) or the first one "
                         f"(--device {devices[0]})")
    return devices[:ranks]


def group_attrs(runner: NpuRunner, spec: Spec, chip: str, column: int) -> list[str]:
    """The attrs that carry the HCCL communicator's name: the OpDef's ``MC2().HcclGroup`` names (else 'group')."""
    from opkit.build.opdef_check import hccl_groups

    names = [a.name for a in spec.attrs if a.type == "string"]
    groups = [g for g in hccl_groups(runner.artifact(spec, chip, column).exe, spec.op_type) if g in names]
    if groups:
        return groups
    if "group" in names:
        return ["group"]
    raise UsageError(f"{spec.name}: a multi-rank operator needs a string attr for its HCCL communicator "
                     "(MC2().HcclGroup(\"group\") in the OpDef and the attr 'group' in op.yaml)")


def run_ranks(runner: NpuRunner, spec: Spec, case: Case, column: int, chip: str,
              inputs: list[dict[str, Any]], profile_dir: Path | None = None) -> list[RunOutput]:
    """Every rank's worker started together; with ``profile_dir`` each runs under ``msprof op`` (its output in
    ``profile_dir/rank<r>``) and its measured kernel time is in ``info["measured_us"]``."""
    from opkit.backends.npu_runner import msprof, runtime_lib, task_duration, worker_error

    world = len(inputs)
    label = f"{spec.name}::{case.name}[{spec.column_label(column)}, {world} ranks] (NPU)"
    if not inputs:
        raise KernelError(f"{label}: a multi-rank run needs the inputs of at least one rank")
    devices = rank_devices(runner.devices, world)
    hccl_lib = runtime_lib(runner.cann, "libhccl.so")
    groups = group_attrs(runner, spec, chip, column)
    lib = runner.library(spec)
    with tempfile.TemporaryDirectory(prefix="opkit-npu-ranks-") as tmp:
        root = Path(tmp)
        prepared = []
        for r, ins in enumerate(inputs):
            work = root / f"rank{r}"
            work.mkdir()
            host_env = {**runner.env, "OPKIT_SIM_WORLD_SIZE": str(world), "OPKIT_SIM_RANK_ID": str(r)}
            hccl = {"lib": str(hccl_lib), "rank": r, "world": world, "root_info": str(root / ROOT_INFO),
                    "group_attrs": groups}
            prepared.append(runner._request(spec, case, column, chip, ins, work, f"{label} rank {r}", devices[r],
                                            host_env, hccl))
        env = {**runner._worker_env(lib), "TMPDIR": str(root)}
        procs = []
        profiler = msprof(runner.cann, runner.env) if profile_dir is not None else None
        for r, (path, _, _) in enumerate(prepared):
            argv = [sys.executable, "-m", "opkit.backends.aclnn_worker", str(path)]
            if profiler is not None:
                argv = [profiler, "op", f"--output={profile_dir / f'rank{r}'}", *argv]
            err = open(path.parent / "worker.stderr", "w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            # each rank in its own process group: a rank ended at the timeout ends with what it started (msprof's
            # child, the worker)
            procs.append((subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                           env=env, start_new_session=True), err))
        try:
            failed = _wait(procs, runner.timeout_s)
        finally:
            for p, _ in procs:
                _end(p)
        stderr = []
        for _, err in procs:
            err.seek(0)
            stderr.append(err.read())
            err.close()
        if failed == "timeout":
            states = [f"  rank {r} (device {devices[r]}): " +
                      ("finished" if p.returncode == 0 and _done(prepared[r][0]) else
                       "no result (still running: it waits in a collective or hangs); ended")
                      for r, (p, _) in enumerate(procs)]
            raise KernelError(f"{label}: no result from every rank after {runner.timeout_s:.0f} s; every rank still "
                              "running was ended:\n" + "\n".join(states))
        if failed is not None:
            r = int(failed)
            others = [str(k) for k in range(world) if k != r]
            raise KernelError(f"{label}: rank {r} (device {devices[r]}): "
                              f"{worker_error(stderr[r], procs[r][0].returncode)}"
                              + (f" (the other ranks were ended: {', '.join(others)})" if others else ""))
        results = []
        for r, (path, outs, result) in enumerate(prepared):
            done = _done(path) or {}
            info = {"workspace_bytes": done.get("workspace_bytes"), "backend": "cann", "device": devices[r],
                    "rank": r, "world_size": world, "library": str(lib), "block_dim": result.get("block_dim"),
                    "tiling_key": result.get("tiling_key")}
            if profile_dir is not None:
                info["measured_us"], info["profile_csv"] = task_duration(profile_dir / f"rank{r}", f"{label} rank {r}")
            results.append(RunOutput(runner._read_outputs(spec, column, outs, f"{label} rank {r}"), info))
        return results


def _end(p: subprocess.Popen[bytes]) -> None:
    """End a rank's process group if the rank still runs (or left children behind), then reap the rank."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    p.wait()


def _wait(procs: list[tuple[subprocess.Popen[bytes], Any]], timeout_s: float) -> str | None:
    """None when every rank exited 0; the rank (as text) of the first that failed; or 'timeout'."""
    deadline = time.monotonic() + timeout_s
    while True:
        codes = [p.poll() for p, _ in procs]
        bad = [r for r, c in enumerate(codes) if c not in (None, 0)]
        if bad:
            return str(bad[0])
        if all(c == 0 for c in codes):
            return None
        if time.monotonic() >= deadline:
            return "timeout"
        time.sleep(POLL_S)


def _done(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.with_name(path.name + ".result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
