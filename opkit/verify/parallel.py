"""Running verification jobs in parallel worker processes (``opkit verify --workers N``).

The harnesses are compiled before (in the parent, ``-j`` compile jobs); then each job — one case in
one dtype column on one chip — runs in one of N worker processes forked from the parent, so they
inherit the loaded specs and the runner with its built harnesses and nothing is pickled but the job's
place in the plan and its result. Each worker process has its own guarded user-code workers
(opkit.verify.usercode: one golden.py process per package per worker process), stopped when the
worker process ends. The parent hears results as they come (for progress) and returns them by job;
the caller puts them in the plan's order, so reports do not depend on which worker finished first.

Without ``fork`` (Windows) the jobs run one after another in the parent.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from opkit.machine import usable_cpus
from opkit.verify import usercode
from opkit.verify.report import ERROR, CaseResult

RunJob = Callable[[Any], CaseResult]  # runs one task (an item of the plan) in whatever process it is called


@dataclass
class _State:
    run: RunJob | None = None
    parent: int = 0  # the parent's process id


_STATE = _State()  # set in the parent before the workers are forked; the workers inherit it


def default_workers() -> int:
    """One worker per core this process may run on."""
    return usable_cpus()


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _worker_init(timeout_s: float) -> None:
    """In each worker process: Ctrl-C is the parent's to handle; fresh user-code workers (those of the
    parent, if any, stay the parent's), stopped when this process ends. The worker leads a process group
    of its own, so that when the parent stops it (SIGTERM: an interrupt) the kernel run and the golden.py
    process it is waiting on end with it instead of running on."""
    from multiprocessing.util import Finalize

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, _stopped)
    _die_with_parent()
    usercode._WORKERS.clear()
    usercode._TIMEOUT[0] = timeout_s
    Finalize(None, usercode.stop_all, exitpriority=10)


def _die_with_parent() -> None:
    """Linux: SIGTERM (so _stopped) when the parent dies without stopping the workers (killed outright)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if _STATE.parent and os.getppid() != _STATE.parent:  # it died before that
        _stopped(signal.SIGTERM, None)


def _stopped(signum: int, frame: Any) -> None:
    """SIGTERM in a worker: stop its golden.py processes, then everything else of its process group (a kernel
    run in its harness) and itself."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(Exception):
        usercode.stop_all()
    if os.getpgrp() == os.getpid():
        os.killpg(0, signal.SIGKILL)
    os._exit(128 + signum)


def _worker_run(index: int) -> CaseResult:
    assert _STATE.run is not None
    return _STATE.run(index)


def run_jobs(count: int, run: RunJob, workers: int, timeout_s: float, lost: Callable[[int], CaseResult],
             done: Callable[[int, CaseResult], None]) -> dict[int, CaseResult]:
    """Run tasks ``0..count-1`` with ``run(i)``, ``workers`` at a time; ``done(i, result)`` as each finishes.
    A task whose worker process died (killed by a signal, out of memory) gets ``lost(i)``."""
    results: dict[int, CaseResult] = {}

    def finish(i: int, r: CaseResult) -> None:
        results[i] = r
        done(i, r)

    workers = min(workers, count)
    if workers <= 1 or not can_fork():
        for i in range(count):
            finish(i, run(i))
        return results
    _STATE.run, _STATE.parent = run, os.getpid()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_init, initargs=(timeout_s,))
    try:
        pending: dict[Future[CaseResult], int] = {pool.submit(_worker_run, i): i for i in range(count)}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in sorted(finished, key=lambda f: pending[f]):
                i = pending.pop(f)
                try:
                    r = f.result()
                except BrokenProcessPool:
                    r = lost(i)
                finish(i, r)
    except BaseException:
        _terminate(pool)  # never waits without a bound: an interrupt must end the run
        raise
    else:
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        _STATE.run = None
    return results


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the workers now (an interrupt): running cases are abandoned, pending ones never start."""
    processes: Sequence[Any] = list((getattr(pool, "_processes", None) or {}).values())
    for p in processes:
        try:
            p.terminate()
        except (OSError, AttributeError):
            pass
    # The pool's manager thread must be gone before the interpreter exits: concurrent.futures' exit hook would
    # otherwise write to the wakeup pipe the thread is closing (an "Exception ignored ... Bad file descriptor"
    # traceback after the interrupt). With the workers terminated it ends at once; the timeout guards a hang.
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(timeout=10)


def lost_result(template: CaseResult) -> CaseResult:
    """The ERROR of a run whose worker process ended before it returned."""
    template.status = ERROR
    template.message = ("the worker process running this case ended unexpectedly (killed by a signal, for "
                        "example for lack of memory) before the case returned; run it alone with --workers 1 "
                        "to see what happens")
    return template
