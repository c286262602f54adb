"""opkit's packages import one way: every import in opkit/ against the layering table of docs/architecture.md.

The graph is read with ``ast`` from the sources (imports inside functions count: a lazy import is
still a dependency), at the level of opkit's packages and top-level modules.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "opkit"
DOC = ROOT / "docs" / "architecture.md"
# The one edge against the table that is allowed for now (docs/architecture.md, "Layering").
EXCEPTIONS = {("sim", "build")}


def unit_of(module: str) -> str:
    """The package or top-level module of opkit that a dotted module name belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "opkit"


def _imported(node: ast.AST, module: str, is_pkg: bool, pkg: Path) -> list[str]:
    """Dotted opkit module names an import statement in ``module`` refers to."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_pkg else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        mod = ".".join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    if mod != "opkit":
        return [mod]
    # `from opkit import soc` imports the module opkit.soc, not the package's __init__
    return [f"opkit.{a.name}" if (pkg / a.name).is_dir() or (pkg / f"{a.name}.py").is_file() else "opkit"
            for a in node.names]


def import_graph(pkg: Path = PKG) -> dict[tuple[str, str], list[str]]:
    """(from unit, to unit) -> the file:line of each import making that edge."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in sorted(pkg.rglob("*.py")):
        rel = f.relative_to(pkg.parent).with_suffix("")
        is_pkg = rel.name == "__init__"
        module = ".".join(rel.parts[:-1] if is_pkg else rel.parts)
        src = unit_of(module)
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"), str(f))):
            for name in _imported(node, module, is_pkg, pkg):
                if name.split(".")[0] != "opkit":
                    continue
                dst = unit_of(name)
                if dst != src:
                    edges[(src, dst)].append(f"{f.relative_to(pkg.parent)}:{node.lineno}")
    return edges


def doc_layers(text: str) -> dict[str, int]:
    """unit -> layer, from the table under "## Layering"."""
    section = text.split("## Layering", 1)[1].split("\n## ", 1)[0]
    layers: dict[str, int] = {}
    for m in re.finditer(r"^\|\s*(\d+)\s*\|(.*)\|\s*$", section, re.M):
        for name in re.findall(r"`([\w]+)`", m.group(2)):
            layers[name] = int(m.group(1))
    return layers


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """Every elementary cycle's nodes, one list per strongly connected component of two or more units."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted({x for e in edges for x in e}):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph() -> dict[tuple[str, str], list[str]]:
    return import_graph()


@pytest.fixture(scope="module")
def layers() -> dict[str, int]:
    return doc_layers(DOC.read_text(encoding="utf-8"))


def test_every_unit_has_a_layer(layers: dict[str, int]) -> None:
    units = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    units |= {p.stem for p in PKG.glob("*.py") if p.stem != "__init__"} | {"opkit"}
    missing = sorted(units - set(layers))
    assert not missing, f"docs/architecture.md's layering table has no layer for {missing}"
    assert not sorted(set(layers) - units), "the layering table names units opkit does not have"


def test_imports_follow_the_layering_table(graph: dict[tuple[str, str], list[str]], layers: dict[str, int]) -> None:
    wrong = [f"{a} (layer {layers[a]}) imports {b} (layer {layers[b]}): {', '.join(where)}"
             for (a, b), where in sorted(graph.items())
             if layers[b] >= layers[a] and (a, b) not in EXCEPTIONS]
    assert not wrong, "imports against docs/architecture.md's layering:\n" + "\n".join(wrong)


def test_exceptions_are_still_needed(graph: dict[tuple[str, str], list[str]]) -> None:
    gone = sorted(EXCEPTIONS - set(graph))
    assert not gone, f"no longer imported, remove from EXCEPTIONS and docs/architecture.md: {gone}"


def test_run_imports_neither_verify_nor_perf(graph: dict[tuple[str, str], list[str]]) -> None:
    for dst in ("verify", "perf"):
        assert ("run", dst) not in graph, f"run imports {dst}: {graph[('run', dst)]}"
    assert ("verify", "perf") not in graph, f"verify imports perf: {graph[('verify', 'perf')]}"


def test_no_cycle_beyond_the_exceptions(graph: dict[tuple[str, str], list[str]]) -> None:
    found = cycles(set(graph) - EXCEPTIONS)
    assert not found, f"import cycles among opkit's units: {found}"


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A package where run imports verify lazily and verify imports run: the edge and the cycle are found."""
    (tmp_path / "opkit" / "run").mkdir(parents=True)
    (tmp_path / "opkit" / "verify").mkdir()
    (tmp_path / "opkit" / "__init__.py").write_text("")
    (tmp_path / "opkit" / "run" / "__init__.py").write_text("")
    (tmp_path / "opkit" / "verify" / "__init__.py").write_text("from ..run import x\n")
    (tmp_path / "opkit" / "run" / "x.py").write_text("def f():\n    from opkit.verify import pipeline\n")
    g = import_graph(tmp_path / "opkit")
    assert set(g) == {("run", "verify"), ("verify", "run")}
    assert cycles(set(g)) == [["run", "verify"]]
    assert doc_layers("## Layering\n| 0 | `a`, `b` |\n| 3 | `c` |\n## Next\n| 9 | `d` |\n") == {"a": 0, "b": 0, "c": 3}


def test_profile_options_name_every_profile() -> None:
    """PROFILE_OPTIONS moved beside the spec loader; it must still cover exactly verify's profiles."""
    from opkit.spec.sections.precision import PROFILE_OPTIONS
    from opkit.verify.profiles import PROFILES

    assert set(PROFILE_OPTIONS) == set(PROFILES)
