"""The replay's task graph as columns: one row per task, one per dependency edge, one per ordering edge.

A task is its core (``-1``: a chip-wide task such as a SyncAll join) and its *spec*: the pipe it occupies, its
fixed cycles, the GM bytes it moves and their per-pipe cap, its instruction class and its name (the traced API
or sync event). Specs recur (the same instruction on the same pipe, millions of times), so each distinct one is
stored once and a task holds its index. Dependency edges (``dep_src`` -> ``dep_dst``) are what the timed run
honours; ordering edges between pipes or cores (``link_*``, a subset kept with their kind) are what timelines
draw. :class:`GraphBuilder` grows the columns; :class:`Graph` holds them, the timed run's ``start`` and ``end``
and, for timelines and tests, :attr:`Graph.tasks`: :class:`Task` views made on demand.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from .costs import PIPES

PIPE_INDEX = {q: i for i, q in enumerate(PIPES)}  # a spec's pipe: this index, or -1 for none (a drain, a join)
LINK_KINDS = ("flag", "queue", "buffer", "sync_all", "cross", "matmul", "hccl")


@dataclass(slots=True)
class Task:
    """One task of a graph, as a plain record (a view: changing it does not change the graph)."""

    core: int
    pipe: str
    fixed: float
    gm_bytes: float = 0.0
    cap: float = 0.0
    klass: str = ""
    deps: list[int] = field(default_factory=list)
    start: float = 0.0
    end: float = 0.0
    name: str = ""  # the traced API or sync event, for timelines


def _np(a: array, dtype: type) -> np.ndarray:
    return np.frombuffer(a, dtype=dtype) if len(a) else np.zeros(0, dtype=dtype)


class GraphBuilder:
    """The growing columns of a graph (appends to ``array`` buffers, no object per task)."""

    def __init__(self) -> None:
        self.core = array("i")
        self.spec = array("i")
        self.dep_src = array("i")
        self.dep_dst = array("i")
        self.link_src = array("i")
        self.link_dst = array("i")
        self.link_kind = array("b")
        self._specs: dict[tuple[str, float, float, float, str, str], int] = {}
        self.spec_pipe = array("b")
        self.spec_fixed = array("d")
        self.spec_gm = array("d")
        self.spec_cap = array("d")
        self.spec_klass = array("i")
        self.spec_name = array("i")
        self._text: dict[str, int] = {"": 0}
        self.text: list[str] = [""]  # the names and classes of the specs

    def intern(self, s: str) -> int:
        i = self._text.get(s)
        if i is None:
            i = self._text[s] = len(self.text)
            self.text.append(s)
        return i

    def spec_of(self, pipe: str, fixed: float, gm_bytes: float = 0.0, cap: float = 0.0, klass: str = "",
                name: str = "") -> int:
        """The index of a spec (added when new)."""
        key = (pipe, fixed, gm_bytes, cap, klass, name)
        s = self._specs.get(key)
        if s is None:
            s = self._specs[key] = len(self.spec_fixed)
            self.spec_pipe.append(PIPE_INDEX.get(pipe, -1))
            self.spec_fixed.append(fixed)
            self.spec_gm.append(gm_bytes)
            self.spec_cap.append(cap)
            self.spec_klass.append(self.intern(klass))
            self.spec_name.append(self.intern(name))
        return s

    def __len__(self) -> int:
        return len(self.core)

    def add(self, core: int, spec: int, deps: Sequence[int] = ()) -> int:
        """A new task (its index); ``deps``: the tasks it waits for (negative ones ignored)."""
        t = len(self.core)
        self.core.append(core)
        self.spec.append(spec)
        for d in deps:
            if d >= 0:
                self.dep_src.append(d)
                self.dep_dst.append(t)
        return t

    def dep(self, src: int, dst: int) -> None:
        if src >= 0:
            self.dep_src.append(src)
            self.dep_dst.append(dst)

    def link(self, src: int, dst: int, kind: str) -> None:
        """An ordering edge between pipes or cores (for timelines); ``src`` < 0: none."""
        if src >= 0:
            self.link_src.append(src)
            self.link_dst.append(dst)
            self.link_kind.append(LINK_KINDS.index(kind))

    def graph(self, n_cores: int, unknown_apis: set[str]) -> Graph:
        n = len(self.core)
        return Graph(
            core=_np(self.core, np.int32), spec=_np(self.spec, np.int32),
            spec_pipe=_np(self.spec_pipe, np.int8), spec_fixed=_np(self.spec_fixed, np.float64),
            spec_gm=_np(self.spec_gm, np.float64), spec_cap=_np(self.spec_cap, np.float64),
            spec_klass=_np(self.spec_klass, np.int32), spec_name=_np(self.spec_name, np.int32), text=self.text,
            dep_src=_np(self.dep_src, np.int32), dep_dst=_np(self.dep_dst, np.int32),
            link_src=_np(self.link_src, np.int32), link_dst=_np(self.link_dst, np.int32),
            link_kind=_np(self.link_kind, np.int8), n_cores=n_cores, unknown_apis=unknown_apis,
            start=np.zeros(n), end=np.zeros(n))


@dataclass(eq=False)
class Graph:
    """A replay's tasks and edges as columns (module docstring); ``start``/``end`` in cycles once run."""

    core: np.ndarray
    spec: np.ndarray
    spec_pipe: np.ndarray
    spec_fixed: np.ndarray
    spec_gm: np.ndarray
    spec_cap: np.ndarray
    spec_klass: np.ndarray
    spec_name: np.ndarray
    text: list[str]
    dep_src: np.ndarray
    dep_dst: np.ndarray
    link_src: np.ndarray
    link_dst: np.ndarray
    link_kind: np.ndarray
    n_cores: int
    unknown_apis: set[str]
    start: np.ndarray
    end: np.ndarray

    def __len__(self) -> int:
        return len(self.core)

    @property
    def fixed(self) -> np.ndarray:
        return self.spec_fixed[self.spec]

    @property
    def gm_bytes(self) -> np.ndarray:
        return self.spec_gm[self.spec]

    @property
    def cap(self) -> np.ndarray:
        return self.spec_cap[self.spec]

    @property
    def pipe(self) -> np.ndarray:
        """Each task's pipe index into :data:`opkit.perf.costs.PIPES` (-1: none)."""
        return self.spec_pipe[self.spec]

    @property
    def edges(self) -> list[tuple[int, int, str]]:
        """The ordering edges between pipes or cores: (src task, dst task, kind: flag / queue / cross / ...)."""
        return [(s, d, LINK_KINDS[k]) for s, d, k in zip(self.link_src.tolist(), self.link_dst.tolist(),
                                                          self.link_kind.tolist(), strict=True)]

    @property
    def tasks(self) -> TaskList:
        """The tasks as :class:`Task` views (made as they are read)."""
        return TaskList(self)

    def task(self, i: int, deps: list[int] | None = None) -> Task:
        s = int(self.spec[i])
        p = int(self.spec_pipe[s])
        return Task(int(self.core[i]), PIPES[p] if p >= 0 else "", float(self.spec_fixed[s]), float(self.spec_gm[s]),
                    float(self.spec_cap[s]), self.text[int(self.spec_klass[s])], deps if deps is not None else [],
                    float(self.start[i]), float(self.end[i]), self.text[int(self.spec_name[s])])


class TaskList(Sequence[Task]):
    """A graph's tasks as a sequence of :class:`Task` views (with their dependencies)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        order = np.argsort(graph.dep_dst, kind="stable")
        self._src = graph.dep_src[order]
        self._at = np.searchsorted(graph.dep_dst[order], np.arange(len(graph) + 1))

    def __len__(self) -> int:
        return len(self.graph)

    def _one(self, i: int) -> Task:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.graph.task(i, self._src[self._at[i]:self._at[i + 1]].tolist())

    @overload
    def __getitem__(self, i: int) -> Task: ...

    @overload
    def __getitem__(self, i: slice) -> list[Task]: ...

    def __getitem__(self, i: int | slice) -> Task | list[Task]:
        if isinstance(i, slice):
            return [self._one(k) for k in range(*i.indices(len(self)))]
        return self._one(i)

    def __iter__(self) -> Iterator[Task]:
        for i in range(len(self)):
            yield self._one(i)


__all__ = ["LINK_KINDS", "PIPE_INDEX", "Graph", "GraphBuilder", "Task", "TaskList"]
