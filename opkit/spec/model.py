"""Typed objects of an operator spec (op.yaml). Built only by ``opkit.spec.load``; read everywhere."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opkit.dtypes import DTYPES, DType
from opkit.spec.yamlio import Document

Dim = int | str  # a size, a symbol ("S") or alternatives ("B|1")


@dataclass(frozen=True)
class Condition:
    """When a conditional output is produced: ``attr``, ``not attr``, ``attr == v``, ``attr != v``."""

    attr: str
    op: str  # "truthy" | "falsy" | "==" | "!="
    value: Any = None
    text: str = ""

    def holds(self, attrs: dict[str, Any]) -> bool:
        current = attrs.get(self.attr)
        if self.op == "truthy":
            return bool(current)
        if self.op == "falsy":
            return not current
        if self.op == "==":
            return current == self.value
        return current != self.value


@dataclass(frozen=True)
class Param:
    """An input or output tensor of the operator."""

    name: str
    dtypes: tuple[str, ...]  # one per dtype column
    formats: tuple[str, ...]  # one per dtype column
    param: str  # "required" | "optional" | "dynamic"
    shape: tuple[Dim, ...] | None
    is_output: bool
    index: int  # position among the inputs, or among the outputs
    description: str = ""
    when: Condition | None = None
    inplace: str | None = None  # an output the kernel writes into this input's buffer (not an OpDef output)
    ref: str | None = None  # GE's reference form: the OpDef output of this input's name, the kernel given its buffer
    untouched: str | None = None  # golden.py function: the mask of elements the operator leaves as they were

    @property
    def opdef_name(self) -> str:
        """The name the OpDef gives this tensor (a reference-form output has its input's name)."""
        return self.ref or self.name

    @property
    def upper(self) -> str:
        """The ``<ARG>`` of the ``DTYPE_<ARG>``/``ORIG_DTYPE_<ARG>``/``FORMAT_<ARG>`` build macros: the OpDef
        name upper-cased, ``_REF`` appended for a reference-form output (as CANN's build names them)."""
        return f"{self.ref.upper()}_REF" if self.ref else self.name.upper()

    def dtype(self, column: int) -> DType:
        return DTYPES[self.dtypes[column]]


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # float | int | bool | string | list_int | list_float | list_bool | list_list_int
    default: Any
    required: bool
    description: str = ""


@dataclass(frozen=True)
class SocTarget:
    """An OpDef SoC key and the dtype columns it supports (all when ``columns`` is None)."""

    key: str
    columns: tuple[int, ...] | None = None
    modelled: bool = True  # False: a SoC key the simulator has no chip data for (built and verified elsewhere)

    def supports(self, column: int) -> bool:
        return self.columns is None or column in self.columns


@dataclass(frozen=True)
class CompareHook:
    """A comparison function of golden.py that judges some outputs instead of the elementwise profile.

    verify calls ``function(actual=, golden=, inputs=, attrs=, dtypes=, check=, **options)`` once per
    case run; ``check(output, actual, expected)`` applies the case's precision profile to arrays the
    hook prepared. The contract is in docs/spec.md ("Comparison hooks").
    """

    function: str
    outputs: tuple[str, ...]  # the outputs it judges; the others go through the profile
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    file: str = "golden.py"  # the golden's file: hooks live beside the golden

    @property
    def where(self) -> str:
        return f"{self.file}:{self.function}"


@dataclass(frozen=True)
class DimLimit:
    """What a shape symbol may be (op.yaml ``dims``): checked on every case; ``--sweep`` stays inside."""

    name: str
    min: int = 1
    max: int | None = None
    multiple_of: int = 1
    sweep: bool = True
    description: str = ""

    def problem(self, value: int) -> str | None:
        if value < self.min or (self.max is not None and value > self.max):
            hi = "" if self.max is None else f", {self.max}"
            return f"{self.name} = {value} is outside [{self.min}{hi or ', ...'}] (op.yaml dims.{self.name})"
        if value % self.multiple_of:
            return f"{self.name} = {value} is not a multiple of {self.multiple_of} (op.yaml dims.{self.name})"
        return None


DEFAULT_HOST_EXCLUDE = ("op_api", "op_graph", "fallback_*.cpp", "tests", "examples")


@dataclass(frozen=True)
class BuildOptions:
    """op.yaml ``build``: how the package's C++ is compiled beyond op_host/ and op_kernel/.

    Paths are as written (relative to the package); ``opkit.spec.sections.build.resolve`` turns them
    into existing files and folders.
    """

    source_dir: str = "."  # the folder holding op_host/ and op_kernel/
    include_dirs: tuple[str, ...] = ()
    include_aliases: tuple[tuple[str, str], ...] = ()  # (prefix, folder)
    sources: tuple[str, ...] = ()  # extra host sources, globs allowed
    host_exclude: tuple[str, ...] = DEFAULT_HOST_EXCLUDE
    defines: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()


@dataclass
class Case:
    name: str
    shapes: dict[str, Any]  # input name -> shape (a list of shapes for dynamic inputs); absent = not given
    columns: tuple[int, ...]  # dtype columns this case runs in
    attrs: dict[str, Any]  # every attr, defaults filled in
    tags: tuple[str, ...] = ()
    init: dict[str, Any] = field(default_factory=dict)
    special: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    precision: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    index: int = 0
    compare: CompareHook | None = None  # the hook in effect for this case (op.yaml's, the case's, or none)
    dims: dict[str, Any] = field(default_factory=dict)  # symbol -> bound value (a tuple for ...R)
    base: str | None = None  # for a generated (--sweep) case: the case it was derived from
    tiling_key: int | None = None  # the tiling key the case expects the tiling to choose
    world_size: int | None = None  # a multi-rank (MC2) case: how many ranks it runs on (None: one device)


@dataclass(frozen=True)
class PerfCase:
    case: str
    soc: str | None


@dataclass
class Spec:
    path: Path  # the op.yaml
    name: str
    op_type: str
    family: str
    summary: str
    socs: list[SocTarget]
    kernel: str
    inputs: list[Param]
    outputs: list[Param]
    attrs: list[Attr]
    golden_file: str
    golden_func: str
    cases: list[Case]
    precision: dict[str, Any]
    perf: list[PerfCase]
    doc: Document | None = None
    compare: CompareHook | None = None
    dims: dict[str, DimLimit] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    build: BuildOptions = field(default_factory=BuildOptions)

    @property
    def dir(self) -> Path:
        """The package folder: op.yaml, golden.py and the build output (``.opkit/``)."""
        return self.path.parent

    @property
    def src_dir(self) -> Path:
        """The folder holding op_host/ and op_kernel/: the package itself unless ``build.source_dir`` says."""
        return self.dir if self.build.source_dir == "." else (self.dir / self.build.source_dir).resolve()

    @property
    def params(self) -> list[Param]:
        return [*self.inputs, *self.outputs]

    @property
    def device_outputs(self) -> list[Param]:
        """The outputs the OpDef declares and the kernel gets a GM parameter for (in-place results excluded; a
        reference-form output is one, its parameter pointing at its input's buffer)."""
        return [o for o in self.outputs if o.inplace is None]

    @property
    def n_columns(self) -> int:
        return len(self.params[0].dtypes)

    def column(self, index: int) -> dict[str, str]:
        """Tensor name -> dtype of one dtype column."""
        return {p.name: p.dtypes[index] for p in self.params}

    def column_label(self, index: int) -> str:
        """A short label for a column: the distinct dtypes in parameter order (``float16``, ``int8-float16``)."""
        seen: list[str] = []
        for p in self.params:
            if p.dtypes[index] not in seen:
                seen.append(p.dtypes[index])
        return "-".join(seen)

    def attr(self, name: str) -> Attr:
        for a in self.attrs:
            if a.name == name:
                return a
        raise KeyError(name)

    def case(self, name: str) -> Case:
        for c in self.cases:
            if c.name == name:
                return c
        raise KeyError(name)

    def produced_outputs(self, attrs: dict[str, Any]) -> list[Param]:
        """The outputs a call with these attrs produces: a conditional output only when its ``when`` holds
        (attrs not given take their defaults)."""
        full = {a.name: a.default for a in self.attrs} | dict(attrs)
        return [o for o in self.outputs if o.when is None or o.when.holds(full)]

    @property
    def modelled_socs(self) -> list[SocTarget]:
        return [s for s in self.socs if s.modelled]

    def target(self, chip: str) -> tuple[str, SocTarget]:
        """The chip's full name (a chip or an OpDef key is accepted) and the SoC entry of this spec it
        belongs to; a UsageError when the chip is unknown or the op does not target its SoC."""
        from opkit import soc as socdata
        from opkit.errors import UsageError

        try:
            name = socdata.resolve(chip)
        except KeyError as exc:
            raise UsageError(str(exc.args[0]) if exc.args else f"unknown chip '{chip}'") from None
        key = socdata.chip(name)["opdef_key"]
        for s in self.socs:
            if s.key == key:
                return name, s
        raise UsageError(f"{self.name} does not target {key} (chip {name}); its socs are "
                         f"{', '.join(s.key for s in self.socs)}")

    @property
    def multi_rank(self) -> bool:
        """A multi-rank (MC2) operator: family ``mc2``, or a case naming its world size."""
        return self.family == "mc2" or any(c.world_size is not None for c in self.cases)

    def dtypes_used(self) -> list[str]:
        out: list[str] = []
        for p in self.params:
            for d in p.dtypes:
                if d not in out:
                    out.append(d)
        return out
