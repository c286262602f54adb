"""A package's own Python, run guarded: golden.py's golden, comparison hooks, input generators, cost hooks.

golden.py is imported once in a worker process per package (started on first use, kept for the whole
run) and every call into it travels over a pipe as pickled data. Whatever the code does — raise,
``sys.exit()``, ``os._exit()``, ``KeyboardInterrupt``, crash in native code, loop for ever — the caller
gets a :class:`UserCodeError` naming the file, line and what happened, and the next call gets a
fresh worker. A call that has not returned after the run's timeout (``--timeout``) is stopped, and the
error names the line it was executing.

The protocol: each frame is an 8-byte big-endian length and a pickle (array buffers of 1 MiB or
more travel as files of a shared in-memory folder, mapped by the reader, so large goldens cost no
pipe copy). The parent sends ``(op, name, args, kwargs)``; the worker answers ``("ok", value)`` or
``("err", kind, detail)``. A callable argument (a comparison hook's ``check``) stays in the parent: the
worker calls it back with
``("cb", index, args, kwargs)`` and gets ``("ok", value)`` or ``("err", token)``. The worker's own
standard output is the user's print()s, sent to standard error; its protocol channel is a copy of the
original standard output.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import mmap
import os
import pickle
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT_S = 300.0
_HEADER = struct.Struct(">Q")
_CHUNK = 1 << 20
_STOP_GRACE_S = 0.5  # after a timeout: time for the worker to dump where it was before it is killed
_OOB_MIN = 1 << 20  # bytes: an array buffer this large travels through a shared file, not the pipe
_oob_dir: str | None = None  # that files' folder (the parent's, made on first use; the worker is told it)


class UserCodeError(Exception):
    """The package's code failed; ``detail`` says where and what (``golden.py:12: ValueError: ...``)."""

    def __init__(self, detail: str, kind: str = "raised") -> None:
        super().__init__(detail)
        self.detail = detail
        self.kind = kind  # raised | exit | interrupt | crash | timeout | import | unpicklable


class _Callback:
    """Stands in, on the worker's side, for a callable argument that stays in the parent."""

    def __init__(self, index: int) -> None:
        self.index = index


class _Died(Exception):
    pass


class _TimedOut(Exception):
    pass


def _shared_dir() -> str:
    """The folder large buffers travel through: in memory (/dev/shm) where there is one, removed at exit."""
    global _oob_dir
    if _oob_dir is None:
        shm = "/dev/shm"
        base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None
        _oob_dir = tempfile.mkdtemp(prefix="opkit-usercode-", dir=base)
        atexit.register(shutil.rmtree, _oob_dir, True)
    return _oob_dir


def _dumps(obj: Any) -> bytes:
    """A frame: the pickle (protocol 5) of ``obj``, with every array buffer of _OOB_MIN bytes or more written
    to a file of the shared folder instead of into the pipe (the reader maps and removes it)."""
    big: list[pickle.PickleBuffer] = []

    def out_of_band(pb: pickle.PickleBuffer) -> bool:
        if pb.raw().nbytes < _OOB_MIN:
            return True  # small: in the pickle itself
        big.append(pb)
        return False

    body = pickle.dumps(obj, protocol=5, buffer_callback=out_of_band)
    if not big:
        return b"\0" + body
    paths: list[str] = []
    try:
        for pb in big:
            fd, path = tempfile.mkstemp(prefix="buf-", dir=_shared_dir())
            paths.append(path)
            with os.fdopen(fd, "wb") as f:
                f.write(pb.raw())
    except OSError:  # no room for the files: everything through the pipe
        for path in paths:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return b"\0" + pickle.dumps(obj, protocol=5)
    return b"\1" + pickle.dumps((body, paths), protocol=5)


def _loads(data: bytes | bytearray) -> Any:
    view = memoryview(data)
    if view[0] == 0:
        return pickle.loads(view[1:])
    body, paths = pickle.loads(view[1:])
    buffers: list[Any] = []
    try:
        for path in paths:
            with open(path, "rb") as f:
                n = os.fstat(f.fileno()).st_size
                buffers.append(mmap.mmap(f.fileno(), n, access=mmap.ACCESS_COPY) if n else bytearray())
    finally:
        for path in paths:
            with contextlib.suppress(OSError):
                os.unlink(path)
    return pickle.loads(body, buffers=buffers)


def _send(fd: int, obj: Any) -> None:
    _write_frame(fd, _dumps(obj))


def _write_frame(fd: int, data: bytes) -> None:
    if len(data) < 1 << 16:  # small: one write
        data = _HEADER.pack(len(data)) + data
    else:
        os.write(fd, _HEADER.pack(len(data)))
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:_CHUNK]):]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytearray:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise _TimedOut
        k = os.readv(fd, [view[got:got + _CHUNK]])
        if not k:
            raise _Died
        got += k
    return buf


def _wide_pipe(fd: int) -> None:
    """A larger pipe buffer (Linux): fewer system calls for large arrays."""
    import fcntl

    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), _CHUNK)


def _recv(fd: int, deadline: float | None = None) -> Any:
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    return _loads(_read_exact(fd, size, deadline))


# --- the worker's side ------------------------------------------------------------------------------------

class _HardExit(BaseException):
    """``os._exit()`` called by the package's code (trapped, so the line can be named)."""

    def __init__(self, code: Any) -> None:
        super().__init__(code)
        self.code = code


class _CallbackFailed(Exception):
    """A parent-side callback (``check``) raised; the parent re-raises its own exception."""

    def __init__(self, token: int) -> None:
        super().__init__(f"the callback failed (token {token})")
        self.token = token


def _describe(exc: BaseException, path: str) -> tuple[str, str]:
    """(kind, ``golden.py:LINE: what``) of an exception raised by the package's code."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if f.filename == path]
    at = f"{Path(path).name}:{own[-1].lineno}: " if own else ""
    if isinstance(exc, SystemExit):
        return "exit", f"{at}called sys.exit({exc.code!r}) (SystemExit) instead of returning"
    if isinstance(exc, _HardExit):
        return "exit", f"{at}called os._exit({exc.code!r}) instead of returning"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupt", f"{at}raised KeyboardInterrupt"
    if own:
        return "raised", f"{at}{type(exc).__name__}: {exc}"
    last = frames[-1] if frames else None
    where = f"{Path(last.filename).name}:{last.lineno}: " if last else ""
    return "raised", f"{where}{type(exc).__name__}: {exc}"


def _worker_main() -> None:
    """Entry of the worker process: ``python -c ... PATH PKG_DIR DUMP_FILE``."""
    import faulthandler
    import importlib.util

    global _oob_dir
    path, pkg_dir, dump, _oob_dir = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    proto_out = os.dup(1)
    proto_in = os.dup(0)
    os.dup2(2, 1)  # the package's print()s go to standard error, never into the protocol
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = sys.stderr
    dump_file = open(dump, "w")  # noqa: SIM115 - open for the life of the process
    faulthandler.enable(file=dump_file, all_threads=False)
    faulthandler.register(signal.SIGUSR1, file=dump_file, all_threads=False)

    def hard_exit(code: int = 0) -> None:
        raise _HardExit(code)

    os._exit = hard_exit  # type: ignore[assignment]
    sys.path.insert(0, pkg_dir)
    try:
        spec = importlib.util.spec_from_file_location("opkit_user_golden", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["opkit_user_golden"] = module
        spec.loader.exec_module(module)
        names = {k: callable(v) for k, v in vars(module).items() if not k.startswith("__")}
        _send(proto_out, ("ok", names))
    except BaseException as exc:  # noqa: BLE001 - whatever the import does becomes a message
        _send(proto_out, ("err", "import", _describe(exc, path)[1]))
        return

    def callback(index: int) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            _send(proto_out, ("cb", index, args, kwargs))
            reply = _recv(proto_in)
            if reply[0] == "ok":
                return reply[1]
            raise _CallbackFailed(reply[1])
        return call

    def resolve(v: Any) -> Any:
        return callback(v.index) if isinstance(v, _Callback) else v

    while True:
        try:
            op, name, args, kwargs = _recv(proto_in)
        except (_Died, EOFError):
            return
        try:
            fn = getattr(module, name)
            args = [resolve(a) for a in args]
            kwargs = {k: resolve(v) for k, v in kwargs.items()}
            if op == "gen":  # an input generator: the parent's rng must continue where the worker's stopped
                value = (fn(*args, **kwargs), args[2].bit_generator.state)
            else:
                value = fn(*args, **kwargs)
            try:
                reply = _dumps(("ok", value))
            except Exception as exc:  # noqa: BLE001
                reply = _dumps(("err", "unpicklable", f"{name}() returned a {type(value).__name__} that "
                                      f"cannot be passed back ({type(exc).__name__}: {exc}); return arrays, "
                                      "numbers, strings, lists and dicts"))
        except _CallbackFailed as exc:
            reply = _dumps(("cbfail", exc.token))
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
            from opkit.golden import ComputeNotImplemented

            kind, detail = ("not-implemented", "") if isinstance(exc, ComputeNotImplemented) else \
                _describe(exc, path)
            reply = _dumps(("err", kind, detail))
        _write_frame(proto_out, reply)


# --- the parent's side ------------------------------------------------------------------------------------

class Worker:
    """One package's golden.py, imported in its own process; restarted after a crash or a timeout."""

    def __init__(self, path: Path, digest: str) -> None:
        self.path = path
        self.digest = digest
        self.proc: subprocess.Popen[bytes] | None = None
        self.names: dict[str, bool] | None = None
        self.import_error: str | None = None
        self._dump: str | None = None

    def _start(self, timeout_s: float) -> None:
        fd, self._dump = tempfile.mkstemp(prefix="opkit-usercode-", suffix=".txt")
        os.close(fd)
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from opkit.verify.usercode import _worker_main; _worker_main()",
             str(self.path), str(self.path.parent), self._dump, _shared_dir()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        _wide_pipe(self.proc.stdin.fileno())
        _wide_pipe(self.proc.stdout.fileno())
        try:
            reply = self._exchange(None, timeout_s, "importing it")
        except UserCodeError as exc:
            self.import_error = exc.detail
            self.stop()
            return
        if reply[0] == "ok":
            self.names = reply[1]
        else:
            self.import_error = reply[2]
            self.stop()

    def ensure(self, timeout_s: float) -> dict[str, bool]:
        """The module's top-level names (True: callable); a UserCodeError when importing it failed."""
        if self.import_error is None and (self.proc is None or self.proc.poll() is not None):
            self._start(timeout_s)
        if self.import_error is not None:
            raise UserCodeError(self.import_error, "import")
        assert self.names is not None
        return self.names

    def call(self, name: str, args: tuple, kwargs: dict, timeout_s: float, op: str = "call") -> Any:
        self.ensure(timeout_s)
        callbacks: list[Any] = []

        def stand_in(v: Any) -> Any:
            if callable(v) and not isinstance(v, type):
                callbacks.append(v)
                return _Callback(len(callbacks) - 1)
            return v

        request = (op, name, [stand_in(a) for a in args], {k: stand_in(v) for k, v in kwargs.items()})
        return self._exchange(request, timeout_s, f"{name}()", callbacks)

    def _exchange(self, request: Any, timeout_s: float, what: str, callbacks: list[Any] | None = None) -> Any:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        out_fd, in_fd = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        failures: dict[int, BaseException] = {}
        deadline = time.monotonic() + timeout_s
        try:
            if request is not None:
                _send(out_fd, request)
            while True:
                reply = _recv(in_fd, deadline)
                if reply[0] != "cb":
                    break
                _, index, args, kwargs = reply
                try:
                    value = (callbacks or [])[index](*args, **kwargs)
                    _send(out_fd, ("ok", value))
                except Exception as exc:  # re-raised below if the package's code lets it through
                    failures[len(failures)] = exc
                    _send(out_fd, ("err", len(failures) - 1))
        except _TimedOut:
            line = self._stop_and_locate(hung=True)
            raise UserCodeError(f"{line}{what} did not return within {timeout_s:g} s (--timeout); it was "
                                "stopped", "timeout") from None
        except (_Died, BrokenPipeError, EOFError):
            raise UserCodeError(self._death(what), "crash") from None
        except BaseException:  # interrupted mid-call: the worker's reply would arrive out of turn
            self.stop()
            raise
        if reply[0] == "cbfail":
            raise failures[reply[1]]
        if reply[0] == "err" and request is not None:
            if reply[1] == "not-implemented":
                from opkit.golden import ComputeNotImplemented

                raise ComputeNotImplemented()
            raise UserCodeError(reply[2], reply[1])
        return reply if request is None else reply[1]

    def _located(self) -> str:
        """``golden.py:LINE: `` of the innermost frame in golden.py that faulthandler dumped, or ''."""
        try:
            text = Path(self._dump or "").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        lines = re.findall(r'File "([^"]+)", line (\d+)', text)
        own = [ln for f, ln in lines if Path(f) == self.path]
        return f"{self.path.name}:{own[0]}: " if own else ""  # faulthandler lists the innermost frame first

    def _stop_and_locate(self, hung: bool) -> str:
        assert self.proc is not None
        if hung and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGUSR1)
            end = time.monotonic() + _STOP_GRACE_S
            while time.monotonic() < end and not self._located():
                time.sleep(0.02)
        line = self._located()
        self.stop()
        return line

    def _death(self, what: str) -> str:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        line = self._stop_and_locate(hung=False)
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"crashed ({name}) in {what}" + (": a fault in native code (an extension, ctypes)"
                                                   if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE") else "")
        else:
            how = f"ended (exit code {code}) in {what}"
        return f"{line}the process running {self.path.name} {how}"

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
            if proc.poll() is None:
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        if self._dump:
            with contextlib.suppress(OSError):
                os.unlink(self._dump)
            self._dump = None


class GuardedFunction:
    """A function of golden.py, called in the package's worker."""

    def __init__(self, module: UserModule, name: str) -> None:
        self._module = module
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._module.worker.call(self.__name__, args, kwargs, self._module.timeout_s)

    def generate(self, shape: Any, dtype: Any, rng: Any, attrs: Any) -> Any:
        """Call an input generator; ``rng`` continues from where the generator left it."""
        value, state = self._module.worker.call(self.__name__, (shape, dtype, rng, attrs), {},
                                                self._module.timeout_s, op="gen")
        rng.bit_generator.state = state
        return value


class UserModule:
    """golden.py as seen from opkit: its callables are :class:`GuardedFunction`; other names are absent."""

    def __init__(self, worker: Worker, timeout_s: float) -> None:
        self.worker = worker
        self.timeout_s = timeout_s
        self.names = worker.ensure(timeout_s)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or not self.names.get(name):
            raise AttributeError(name)
        return GuardedFunction(self, name)


_WORKERS: dict[Path, Worker] = {}
_TIMEOUT = [DEFAULT_TIMEOUT_S]


def module(path: Path) -> UserModule:
    """The guarded golden.py at ``path`` (one worker per file, replaced when the file changes);
    a UserCodeError (kind ``import``) when importing it fails."""
    path = path.resolve()
    content = path.read_bytes()
    digest = hashlib.sha256(content).hexdigest()
    worker = _WORKERS.get(path)
    if worker is None or worker.digest != digest:
        if worker is not None:
            worker.stop()
        worker = _WORKERS[path] = Worker(path, digest)
    return UserModule(worker, _TIMEOUT[0])


def stop_all() -> None:
    for w in list(_WORKERS.values()):
        w.stop()
    _WORKERS.clear()


@contextlib.contextmanager
def guarded(timeout_s: float | None = None) -> Iterator[None]:
    """Calls into packages' code inside this block time out after ``timeout_s``; their workers stop at the end."""
    old = _TIMEOUT[0]
    _TIMEOUT[0] = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
    try:
        yield
    finally:
        _TIMEOUT[0] = old
        stop_all()


atexit.register(stop_all)
