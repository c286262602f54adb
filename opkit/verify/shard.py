"""Shards of a verification: ``--shard I/N`` keeps the runs whose id hashes to slice I of N.

A run (a *job*) is one case of op.yaml in one dtype column on one chip, named by its id
``op::case[dtype column@chip]`` — the id of results.json and, after the file's path, of the pytest
plugin's items. The slice of a job is the SHA-256 of its id taken modulo N: the same on every machine
and in every Python process, whatever order the packages, their op.yaml files or their cases come in.
``opkit verify --shard`` and ``pytest --opkit-shard`` both use :func:`in_shard`, so they split alike.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opkit.errors import UsageError

if TYPE_CHECKING:
    from opkit.verify.pipeline import Selection

_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
MAX_SHARDS = 10_000


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, job_id: str) -> bool:
        return in_shard(job_id, self)

    def to_dict(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}


def parse_shard(text: str | None, what: str = "--shard") -> Shard | None:
    """``"2/5"`` -> Shard(2, 5); None for None; a UsageError saying the form otherwise."""
    if text is None:
        return None
    m = _FORM.match(str(text))
    if not m:
        raise UsageError(f"{what} {text!r}: give I/N, the slice I of N equal slices (e.g. {what} 1/4)")
    index, count = int(m.group(1)), int(m.group(2))
    if count < 1 or count > MAX_SHARDS:
        raise UsageError(f"{what} {text}: the number of shards N must be between 1 and {MAX_SHARDS}")
    if not 1 <= index <= count:
        raise UsageError(f"{what} {text}: the slice I must be between 1 and {count} (slices count from 1)")
    return Shard(index, count)


def job_id(op: str, case: str, column_label: str, chip: str) -> str:
    """The id of a run: ``op::case[dtype column@chip]`` (results.json's ``id``)."""
    return f"{op}::{case}[{column_label}@{chip}]"


def slice_of(job: str, count: int) -> int:
    """The 1-based slice of ``count`` that the run ``job`` falls in."""
    value = int.from_bytes(hashlib.sha256(job.encode("utf-8")).digest()[:8], "big")
    return value % count + 1


def in_shard(job: str, shard: Shard | None) -> bool:
    return shard is None or slice_of(job, shard.count) == shard.index


def selection_record(packages: list[str], selection: Selection, profile: str | None, perf: bool, runs: int,
                     shard: Shard | None, shard_runs: int) -> dict[str, Any]:
    """What a verification selected, as results.json records it (``selection``): the packages (by name),
    the filters and options that decide which runs there are and how they are judged, how many runs the
    whole selection has, and the shard taken of it. Shards of one selection differ only in ``shard``.
    Packages and chips keep their order: it is the order of the runs."""
    return {
        "packages": list(packages),
        "tags": sorted(selection.tags),
        "keyword": selection.keyword,
        "socs": list(selection.chips),
        "dtype": selection.dtype,
        "full": selection.full,
        "sweep": selection.sweep,
        "sweep_values": selection.sweep_values,
        "profile": profile,
        "perf": perf,
        "runs": runs,
        "shard": None if shard is None else {**shard.to_dict(), "runs": shard_runs},
    }
