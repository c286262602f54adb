"""`opkit run` of a multi-rank (MC2) operator: one `.npz` per rank in, one `.npz` per rank out.

A path with ``{rank}`` in it names one file per rank (``in.{rank}.npz`` -> ``in.0.npz``, ``in.1.npz``, ...); the
world size is the case's (``--case``), the number of input files found from rank 0 up (``--inputs``), or
``--world-size``. The form is documented in docs/cli.md ("Multi-rank operators").
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from opkit import writes
from opkit.errors import OpkitError, UsageError
from opkit.run.inputs import make_rank_inputs
from opkit.run.limits import check_case
from opkit.run.types import Generators, Runner
from opkit.run.userdata import case_from_npz, parse_attrs, save_run, select_case
from opkit.spec import Case, Spec

RANK = "{rank}"
MAX_WORLD_SIZE = 64  # as op.yaml's world_size


@dataclass
class RankRunSummary:
    outs: list[Path]  # rank r's outputs
    column: int
    chip: str
    outputs: list[dict[str, tuple[int, ...]]]  # rank r's output shapes
    infos: list[dict[str, Any]]  # rank r's run info (block dim, tiling key, warnings)


def world_size(case: Case, ranks: int | None) -> int:
    """The ranks of a multi-rank run: ``ranks`` (``--world-size``) when given, else the case's ``world_size``."""
    if ranks is not None:
        if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
            raise UsageError(f"--world-size {ranks!r}: give a number of ranks >= 1")
        return ranks
    if case.world_size is None:
        raise UsageError(f"case '{case.name}' names no world_size: give --world-size N, the ranks to model")
    return int(case.world_size)


def rank_path(template: Path, rank: int) -> Path:
    return Path(str(template).replace(RANK, str(rank)))


def _template(path: Path, option: str) -> Path:
    if RANK not in str(path):
        raise UsageError(f"{option} {path}: a multi-rank operator reads and writes one .npz per rank; put {RANK} "
                         f"where the rank goes (e.g. {option} {path.with_name(path.stem + '.' + RANK + '.npz')})")
    if path.suffix != ".npz":
        raise UsageError(f"{option} {path}: the file names must end in .npz")
    return path


def input_files(template: Path, world_size: int | None) -> list[Path]:
    """The per-rank input files of a ``{rank}`` template: ranks 0 .. world_size-1 must all exist, and no file of a
    rank beyond them; without ``world_size``, every rank up to the highest numbered file."""
    found = {}
    pattern = re.compile(re.escape(template.name).replace(re.escape(RANK), r"(\d+)") + r"\Z")
    folder = rank_path(template, 0).parent
    if folder.is_dir():
        for f in folder.iterdir():
            m = pattern.match(f.name)
            if m and str(int(m.group(1))) == m.group(1):
                found[int(m.group(1))] = f
    if not found:
        raise UsageError(f"--inputs {template}: no per-rank input file (looked for {rank_path(template, 0)}, "
                         f"{rank_path(template, 1)}, ...)")
    n = world_size if world_size is not None else max(found) + 1
    missing = [r for r in range(n) if r not in found]
    if missing:
        raise UsageError(f"--inputs {template}: no input file for rank {missing[0]} ({rank_path(template, missing[0])})"
                         f" of the {n} ranks; give one .npz per rank, numbered 0 to {n - 1}")
    extra = sorted(r for r in found if r >= n)
    if extra:
        raise UsageError(f"--inputs {template}: {found[extra[0]]} is the input of rank {extra[0]}, but the run has "
                         f"ranks 0 to {n - 1} (--world-size {n}); remove it or give --world-size {max(found) + 1}")
    if n > MAX_WORLD_SIZE:
        raise UsageError(f"--inputs {template}: {n} ranks; a run has at most {MAX_WORLD_SIZE}")
    return [found[r] for r in range(n)]


def run_ranks_on_data(spec: Spec, runner: Runner, chip: str, out: Path, *, case_name: str | None = None,
                      inputs_npz: Path | None = None, world_size: int | None = None,
                      attr_items: list[str] | None = None, dtype: Any | None = None, force: bool = False,
                      notice: Callable[[str], None] | None = None,
                      generators: Generators | None = None) -> RankRunSummary:
    """Run a multi-rank operator once on a case of op.yaml (every rank's inputs as verify makes them) or on the
    user's per-rank .npz files, and save each rank's outputs (and, for a case, its inputs) to ``out`` with the
    rank in place of ``{rank}``."""
    notice = notice or (lambda m: print(m, file=sys.stderr))
    if (case_name is None) == (inputs_npz is None):
        raise UsageError(f"give exactly one of --case NAME and --inputs FILE.{RANK}.npz")
    if world_size is not None and not 1 <= world_size <= MAX_WORLD_SIZE:
        raise UsageError(f"--world-size {world_size}: give a number of ranks from 1 to {MAX_WORLD_SIZE}")
    if not hasattr(runner, "run_ranks"):
        raise UsageError(f"{spec.name} is a multi-rank operator, and this backend runs one device; run it on the "
                         "simulator (--backend sim)")
    _template(out, "--out")
    attrs = parse_attrs(spec, attr_items or [])
    if case_name is not None:
        case, col = select_case(spec, case_name, dtype, attrs)
        n = world_size or case.world_size
        if n is None:
            raise UsageError(f"case '{case.name}' names no world_size: give --world-size N")
        case = replace(case, world_size=n)
        check_case(spec, case, col)
        inputs = make_rank_inputs(spec, case, col, generators)
    else:
        assert inputs_npz is not None
        files = input_files(_template(inputs_npz, "--inputs"), world_size)
        n = len(files)
        inputs, col = [], None
        for r, f in enumerate(files):
            try:
                c, k, ins = case_from_npz(spec, f, dtype, attrs, notice)
            except UsageError as exc:
                msg = exc.message if str(f) in exc.message else f"{f} (rank {r}): {exc.message}"
                raise UsageError(msg) from None
            if col is not None and k != col:
                raise UsageError(f"{f}: rank {r}'s dtypes are those of dtype column {k} ({spec.column_label(k)}), "
                                 f"rank 0's of column {col} ({spec.column_label(col)}): every rank runs one column")
            if col is None:
                case, col = replace(c, name=Path(str(inputs_npz).replace(RANK, "ranks")).stem, world_size=n), k
            inputs.append(ins)
    outs = [rank_path(out, r) for r in range(n)]
    for f in outs:
        writes.check(f, force, "--out")
    results = runner.run_ranks(spec, case, col, chip, inputs)  # type: ignore[attr-defined]
    if len(results) != n:
        raise OpkitError(f"the multi-rank run returned {len(results)} ranks' results for {n} ranks")
    shapes = [save_run(spec, case, col, f, res.outputs, ins if case_name is not None else None)
              for f, res, ins in zip(outs, results, inputs, strict=True)]
    return RankRunSummary(outs, col, chip, shapes, [dict(res.info) for res in results])
