"""How much of an existing operator library builds on opkit's simulator, with its C++ untouched.

    python benchmarks/fidelity_survey.py PATH [--families attention,ffn,...] [-j N] [--json OUT]

PATH is a checkout of an operator library laid out as ops-transformer is (family folders holding
one folder per operator, each with ``op_host/`` and ``op_kernel/``) or any folder of operator
folders. For every operator folder the survey reports:

- **host**: every host source the build would compile (``op_host/`` recursively, less the
  aclnn/graph layers opkit excludes by default) compiles against the simulator's headers;
- **adopt**: ``opkit adopt`` derives an op.yaml from the OpDef the host code registers (given the
  library's include folders and the shared host sources its build links into every operator,
  ``common/src/tiling_base/*.cpp``, as build options);
- **kernel**: the kernel builds through opkit's build (the adopted op.yaml's first dtype column, the
  tiling-data step included); where adopt failed, ``op_kernel/<op>.cpp`` is checked alone with every
  GM parameter as ``half``;
- **verify**: ``opkit verify`` passes, for folders that hold a golden.py and op.yaml.

A stage that fails shows its first compiler error; the totals at the end count operators per stage,
with the folders whose kernels use the high-level Matmul API or HCCL counted apart (the simulator
reaches those through the high-level API work). A folder is classified by what its kernel really
compiles: its ``op_kernel/`` sources and, followed transitively, every library file their quoted
``#include``s resolve to (against the including file's folder, then the include folders the survey
compiles with), so a folder that includes a sibling operator's Matmul kernel counts as Matmul. The
commonest first errors are listed, so the figure says what to build next. Nothing is written into
PATH: every stage works in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

FAMILIES = ("attention", "ffn", "gmm", "mc2", "moe", "posembedding")
SKIP_PARTS = {"common", "3rd", "tests", "examples", "op_api", "op_graph", "docs"}
MATMUL_MARKS = re.compile(r"REGIST_MATMUL_OBJ|matmul_intf\.h|\bMatmulImpl\b|\bMatmulType\s*<|lib/matmul/")
HCCL_MARKS = re.compile(r"\bHccl\s*<|hccl/hccl|GetHcclContext|hccl_kernel")
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SOURCE_SUFFIXES = {".h", ".cpp", ".hpp"}
ERROR_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$", re.M)


@dataclass
class Stage:
    ok: bool | None = None  # None: not tried (an earlier stage failed, or not applicable)
    error: str = ""  # the first error, one line
    blocker: str = ""  # the error's kind, for the totals


@dataclass
class Row:
    folder: str
    kind: str  # plain | matmul | hccl
    host: Stage = field(default_factory=Stage)
    kernel: Stage = field(default_factory=Stage)
    adopt: Stage = field(default_factory=Stage)
    verify: Stage = field(default_factory=Stage)


def operator_folders(root: Path, families: list[str]) -> list[Path]:
    """Folders holding both op_host/ and op_kernel/, under the family folders (or under root)."""
    bases = [root / f for f in families if (root / f).is_dir()] or [root]
    out = []
    for base in bases:
        for kernel_dir in sorted(base.rglob("op_kernel")):
            folder = kernel_dir.parent
            rel = folder.relative_to(root).parts
            if any(p in SKIP_PARTS for p in rel) or not (folder / "op_host").is_dir():
                continue
            out.append(folder)
    return out


def kernel_sources(folder: Path, root: Path) -> list[Path]:
    """The library's own sources a kernel compiles: every file of ``op_kernel/`` and, transitively, the
    files its quoted ``#include``s resolve to (beside the including file, then in the include folders
    the survey compiles with), as long as they lie inside the library; a sibling operator's kernel that
    a folder includes (mla_prolog_v2 including mla_prolog's, fused_infer_attention_score including
    prompt_flash_attention's) is part of what that folder compiles."""
    dirs = [Path(f[2:]) for f in include_flags(folder, root)]
    base = root.resolve()
    todo = [p.resolve() for p in sorted((folder / "op_kernel").rglob("*"))
            if p.is_file() and p.suffix in SOURCE_SUFFIXES]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in QUOTED_INCLUDE.findall(path.read_text(errors="replace")):
            for d in (path.parent, *dirs):
                cand = (d / name).resolve()
                if cand.is_file() and cand.is_relative_to(base):
                    todo.append(cand)
                    break
    return sorted(seen)


def kind_of(folder: Path, root: Path) -> str:
    """hccl or matmul when a source the kernel compiles (kernel_sources) uses HCCL or the high-level
    Matmul API; plain otherwise."""
    text = "\n".join(p.read_text(errors="replace") for p in kernel_sources(folder, root))
    if HCCL_MARKS.search(text):
        return "hccl"
    if MATMUL_MARKS.search(text):
        return "matmul"
    return "plain"


def host_sources(folder: Path) -> list[Path]:
    """The host sources opkit's build compiles by default (see docs/spec.md, build options)."""
    from opkit.build.options import host_sources_in
    from opkit.spec.model import DEFAULT_HOST_EXCLUDE

    return host_sources_in(folder, DEFAULT_HOST_EXCLUDE)[0]


def blocker_of(msg: str) -> str:
    """A short kind for a first error: the missing header or name, else the message's shape."""
    for pat, fmt in (
        (r"^([\w./-]+\.h(?:pp)?): No such file", "missing header {}"),
        (r"'([\w:]+)' (?:was not declared|has not been declared|is not a member of|does not name a type)",
         "missing name {}"),
        (r"'([\w:]+)' is not a (?:namespace|class|template)", "missing name {}"),
        (r"has no member named '(\w+)'", "missing member {}"),
        (r"no matching function for call to '([\w:]+)", "no overload of {}"),
        (r"static assertion failed: (.{0,60})", "static_assert {}"),
    ):
        m = re.search(pat, msg)
        if m:
            return fmt.format(m.group(1))
    return re.sub(r"'[^']*'", "'…'", msg)[:70]


def first_error(stderr: str, root: Path) -> tuple[str, str]:
    m = ERROR_LINE.search(stderr)
    if not m:
        tail = stderr.strip().splitlines()[-1:] or ["(no message)"]
        return tail[0][:200], tail[0][:70]
    file = m.group("file")
    try:
        file = str(Path(file).resolve().relative_to(root))
    except ValueError:
        file = Path(file).name
    return f"{file}:{m.group('line')}: {m.group('msg')}"[:240], blocker_of(m.group("msg"))


def include_flags(folder: Path, root: Path) -> list[str]:
    # The library's shared folders, as ops-transformer's CMake gives them: common/include to host and
    # kernel, common/include/kernel (copied into the kernel include folder by its build), mc2's own.
    dirs = [folder, folder / "op_host", folder / "op_kernel", root / "common" / "include",
            root / "common" / "include" / "kernel", root / "mc2" / "common" / "inc", root / "mc2" / "3rd", root]
    return [f"-I{d}" for d in dirs if d.is_dir()]


def shared_host_sources(root: Path) -> list[Path]:
    """The library's shared host sources that its build compiles into every operator's host library
    (ops-transformer's common/CMakeLists.txt: common/src/tiling_base/*.cpp, e.g. EnsureNotScalar)."""
    return sorted((root / "common" / "src" / "tiling_base").glob("*.cpp"))


def syntax_check(cxx: str, flags: list[str], src: Path, root: Path) -> Stage:
    r = subprocess.run([cxx, *flags, "-fsyntax-only", "-w", str(src)], capture_output=True, text=True,
                       env={**os.environ, "LC_ALL": "C"})
    if r.returncode == 0:
        return Stage(ok=True)
    err, kind = first_error(r.stderr, root)
    return Stage(ok=False, error=err, blocker=kind)


def entry_dtype_defines(entry: Path) -> list[str]:
    """``DTYPE_<ARG>=half`` for every GM parameter of the kernel entry (no op.yaml to take columns from)."""
    m = re.search(r"__global__\s+__aicore__\s+void\s+\w+\s*\(([^)]*)\)", entry.read_text(errors="replace"))
    names = re.findall(r"(\w+)\s*(?:,|$)", m.group(1)) if m else []
    return [f for n in names for f in (f"-DDTYPE_{n.upper()}=half", f"-DORIG_DTYPE_{n.upper()}=1")]


def survey_one(folder: Path, root: Path, cxx: str, base_flags: list[str], stages: set[str], chip: str,
               goldens: Path | None) -> Row:
    row = Row(str(folder.relative_to(root)), kind_of(folder, root))
    inc = include_flags(folder, root)
    srcs = host_sources(folder)
    row.host = Stage(ok=False, error="no host sources", blocker="no host sources") if not srcs else Stage(ok=True)
    for src in srcs:
        st = syntax_check(cxx, [*base_flags, *inc], src, root)
        if not st.ok:
            row.host = st
            break
    with tempfile.TemporaryDirectory(prefix="opkit-survey-") as tmp:
        pkg = Path(tmp) / folder.name
        if "adopt" in stages and row.host.ok:
            extra = [a for d in inc[3:] for a in ("--include-dir", d[2:])]
            extra += [a for src in shared_host_sources(root) for a in ("--source", str(src))]
            row.adopt = run_opkit(["adopt", str(folder), "--dir", str(pkg), "--soc", chip, *extra], root)
        if row.adopt.ok:  # the kernel through opkit's own build, in the first dtype column of the first case
            row.kernel = build_kernel(pkg, chip, root)
        else:
            row.kernel = syntax_kernel(folder, cxx, [*base_flags, *inc], root)
        golden = goldens / folder.name / "golden.py" if goldens is not None else folder / "golden.py"
        if "verify" in stages and row.adopt.ok and row.kernel.ok and golden.is_file():
            shutil.copyfile(golden, pkg / "golden.py")
            row.verify = run_opkit(["verify", str(pkg), "--soc", chip, "-j", "1", "--out", str(Path(tmp) / "v")],
                                   root)
    return row


def syntax_kernel(folder: Path, cxx: str, flags: list[str], root: Path) -> Stage:
    """The kernel entry checked alone (no op.yaml to take dtype columns from: every GM parameter as half)."""
    entry = folder / "op_kernel" / f"{folder.name}.cpp"
    if not entry.is_file():
        cands = sorted((folder / "op_kernel").glob("*.cpp"))
        entry = cands[0] if cands else entry
    if not entry.is_file():
        return Stage(ok=False, error="no kernel entry in op_kernel/", blocker="no kernel entry")
    return syntax_check(cxx, [*flags, *entry_dtype_defines(entry)], entry, root)


def build_kernel(pkg: Path, chip: str, root: Path) -> Stage:
    from opkit.build import sim_backend
    from opkit.errors import OpkitError
    from opkit.spec import load

    try:
        spec = load(pkg, check_files=False)
        column = spec.cases[0].columns[0] if spec.cases else 0
        sim_backend.build([sim_backend.plan(spec, chip, column)], jobs=1)
    except OpkitError as exc:
        err, kind = first_error(exc.message, root)
        return Stage(ok=False, error=err, blocker=kind)
    return Stage(ok=True)


def run_opkit(args: list[str], root: Path, timeout: int = 900) -> Stage:
    try:
        r = subprocess.run([sys.executable, "-m", "opkit", *args], capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        return Stage(ok=False, error=f"timed out after {timeout} s", blocker="timeout")
    if r.returncode == 0:
        return Stage(ok=True)
    err, kind = first_error(r.stderr + r.stdout, root)
    return Stage(ok=False, error=err, blocker=kind)


def mark(st: Stage) -> str:
    return {True: "ok", False: "FAIL", None: "-"}[st.ok]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--families", default=",".join(FAMILIES), help="family folders to survey (comma-separated)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--soc", default="ascend910b2", help="chip to build and verify for")
    ap.add_argument("--goldens", type=Path, help="folder of <op>/golden.py to verify adopted operators with")
    ap.add_argument("--stages", default="host,kernel,adopt,verify", help="stages to run (comma-separated)")
    ap.add_argument("--json", type=Path, help="write the rows as JSON")
    ap.add_argument("-k", default="", help="only folders whose path contains this text")
    args = ap.parse_args(argv)

    from opkit import sim
    from opkit.build.toolchain import find_compiler

    root = args.path.resolve()
    if not root.is_dir():
        print(f"{root}: not a folder", file=sys.stderr)
        return 2
    folders = [f for f in operator_folders(root, args.families.split(",")) if args.k in str(f)]
    if not folders:
        print(f"{root}: no operator folders (op_host/ + op_kernel/) under {args.families}", file=sys.stderr)
        return 2
    cc = find_compiler()
    base = [f for f in sim.cxx_flags(args.soc, opt="-O0", f16c="-mf16c" in cc.features) if f != "-pthread"]
    stages = set(args.stages.split(","))
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(lambda f: survey_one(f, root, cc.path, base, stages, args.soc, args.goldens), folders))
    took = time.perf_counter() - t0

    width = max(len(r.folder) for r in rows)
    print(f"{'operator folder':<{width}}  kind    host  kernel adopt verify  first error")
    for r in rows:
        err = next((s.error for s in (r.host, r.kernel, r.adopt, r.verify) if s.ok is False), "")
        print(f"{r.folder:<{width}}  {r.kind:<6}  {mark(r.host):<4}  {mark(r.kernel):<6} {mark(r.adopt):<5} "
              f"{mark(r.verify):<6}  {err}")
    print()
    for kind in ("plain", "matmul", "hccl"):
        sel = [r for r in rows if r.kind == kind]
        if not sel:
            continue
        both = sum(1 for r in sel if r.host.ok and r.kernel.ok)
        print(f"{kind:<6}: {len(sel):3d} folders; host compiles {sum(1 for r in sel if r.host.ok):3d}; "
              f"kernel compiles {sum(1 for r in sel if r.kernel.ok):3d}; host and kernel {both:3d}; "
              f"adopt {sum(1 for r in sel if r.adopt.ok):3d}; verify {sum(1 for r in sel if r.verify.ok):3d}")
    blockers = Counter(s.blocker for r in rows for s in (r.host, r.kernel) if s.ok is False)
    print("\ncommonest first errors (host and kernel):")
    for what, n in blockers.most_common(15):
        print(f"  {n:3d}  {what}")
    print(f"\n{len(rows)} folders in {took:.0f} s with {args.jobs} job(s)")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
