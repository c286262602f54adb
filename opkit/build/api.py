"""`opkit build`: every harness of the given packages, then op.yaml checked against the OpDef."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from opkit import soc as socdata
from opkit.build import opdef_check, sim_backend
from opkit.errors import UsageError
from opkit.spec import Spec


@dataclass
class BuildReport:
    artifacts: list[sim_backend.Artifact] = field(default_factory=list)

    @property
    def built(self) -> int:
        return sum(a.built for a in self.artifacts)

    @property
    def cached(self) -> int:
        return len(self.artifacts) - self.built


def default_chips(spec: Spec) -> list[str]:
    """The default chip of every SoC the package targets that the simulator models."""
    chips = [socdata.default_chip(s.key) for s in spec.modelled_socs]
    if not chips:
        raise UsageError(f"{spec.path}: socs {[s.key for s in spec.socs]}: the simulator models none of them "
                         f"(it models {', '.join(socdata.opdef_keys())}); add one to build and verify with opkit")
    return chips


def build_packages(specs: list[Spec], chips: list[str] | None = None, jobs: int | None = None,
                   progress: Callable[[str], None] | None = None) -> BuildReport:
    """Build (or find in the cache) every harness; check each package's OpDef against its op.yaml."""
    report = BuildReport()
    for spec in specs:
        wanted = chips or default_chips(spec)
        skipped = [s.key for s in spec.socs if not s.modelled]
        if skipped and not chips and progress:
            progress(f"{spec.name}: skipping {', '.join(skipped)} (registered, not modelled by the simulator)")
        report.artifacts += sim_backend.artifacts_for(spec, wanted)
    sim_backend.build(report.artifacts, jobs=jobs, progress=progress)
    checked: set[str] = set()
    for a in report.artifacts:
        if str(a.spec.dir) not in checked:
            opdef_check.check(a.spec, a.exe)
            checked.add(str(a.spec.dir))
            for w in a.warnings if progress else ():
                progress(f"warning: {w}")
    return report
