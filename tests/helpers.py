"""Helpers shared by test modules (import as ``from helpers import ...``)."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

BUILD_PRODUCTS = (".opkit", "__pycache__")


def own_files(path: Path) -> set[str]:
    """A package's own files: not build artifacts (.opkit/, design §9) nor Python caches."""
    files = set()
    for p in path.rglob("*"):
        rel = p.relative_to(path)
        if p.is_file() and rel.parts[0] != ".opkit" and "__pycache__" not in rel.parts:
            files.add(rel.as_posix())
    return files


def package_files(op: str) -> set[str]:
    """The file set of design.md §3 for an operator package."""
    return {
        "op.yaml", "golden.py", "CMakeLists.txt", "README.md",
        f"op_host/{op}_def.cpp", f"op_host/{op}_infershape.cpp", f"op_host/{op}_tiling.cpp",
        f"op_kernel/{op}_tiling_data.h", f"op_kernel/{op}.h", f"op_kernel/{op}.cpp",
    }


def fresh_copy(src: Path, dst: Path) -> Path:
    """A copy of a package or fixture tree at ``dst`` without what builds and runs left in it (.opkit/, caches).

    A package of a family with a common folder (``ops/<family>/common``, on the include path of its packages)
    takes that folder along, beside ``dst``. ``dst`` may exist (a pytest ``mktemp`` folder). Returns ``dst``."""
    shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*BUILD_PRODUCTS))
    common = src.parent / "common"
    if (src / "op.yaml").is_file() and common.is_dir() and src.name != "common":
        shutil.copytree(common, dst.parent / "common", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(*BUILD_PRODUCTS))
    return dst


def syntax_check(pkg: Path, source: Path, chip: str, column: int | None = None):
    """``source`` of package ``pkg`` compiled without output, with the flags the package build gives it (the chip's
    simulator flags, the package's include folders and, for the kernel, one dtype column's macros)."""
    from opkit.build import program, sim_backend
    from opkit.spec import load

    spec = load(pkg)
    flags = [f"-I{spec.src_dir / 'op_kernel'}", f"-I{spec.src_dir / 'op_host'}"]
    if column is not None:
        flags += sim_backend.dtype_defines(spec, column)
    return program.check_syntax(source, chip=chip, flags=flags)


def load_golden(pkg: Path):
    spec = importlib.util.spec_from_file_location(f"golden_{pkg.name}_{id(pkg)}", pkg / "golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry_params(cpp: str, op: str) -> list[str]:
    m = re.search(r'extern "C" __global__ __aicore__ void ' + op + r"\(([^)]*)\)", cpp)
    assert m, "no kernel entry found"
    params = [p.strip() for p in m.group(1).split(",")]
    assert all(p.startswith("GM_ADDR ") for p in params)
    return [p.split()[1] for p in params]


def opdef_lists(def_cpp: str, kind: str, name: str) -> tuple[str, list[str], list[str]]:
    """ParamType, DataType list and Format list of one Input/Output in the OpDef constructor."""
    m = re.search(r"this->" + kind + r'\("' + name + r'"\)\s*\.ParamType\((\w+)\)\s*\.DataType\(\{([^}]*)\}\)'
                  r"\s*\.Format\(\{([^}]*)\}\)", def_cpp)
    assert m, f"{kind} {name} not registered"
    return m.group(1), [s.strip() for s in m.group(2).split(",")], [s.strip() for s in m.group(3).split(",")]


def struct_fields(header: str) -> list[str]:
    body = re.search(r"struct \w+TilingData \{(.*?)\};", header, re.S).group(1)
    return re.findall(r"^\s*(?:u?int\d+_t|float)\s+(\w+);", body, re.M)


def assert_rendered_text_clean(pkg: Path) -> None:
    """A rendered package: no Jinja left, no tabs, one final newline, no runs of blank lines, no trailing
    whitespace, C++ indented by multiples of four."""
    for path in sorted(p for p in pkg.rglob("*") if p.is_file()):
        text = path.read_text()
        rel = path.relative_to(pkg)
        if rel.name != "op.yaml":
            assert "{{" not in text and "{%" not in text and "cookiecutter" not in text, rel
        assert "\t" not in text, rel
        assert text.endswith("\n") and not text.endswith("\n\n"), rel
        blank_run = "\n\n\n\n" if path.suffix == ".py" else "\n\n\n"  # PEP 8 keeps two between functions
        assert blank_run not in text, f"{rel}: runs of blank lines"
        for n, line in enumerate(text.splitlines(), 1):
            assert line == line.rstrip(), f"{rel}:{n}: trailing whitespace"
            if path.suffix in (".cpp", ".h") and line.strip():
                indent = len(line) - len(line.lstrip(" "))
                assert indent % 4 == 0, f"{rel}:{n}: indentation of {indent}"
