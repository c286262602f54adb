"""pytest plugin: `pytest ops/` collects every case of every op.yaml as a test item.

Registered as the ``opkit`` entry point of ``pytest11``, so it is loaded only by pytest. Items
are named ``<op>::<case>[<dtype column>@<chip>]``; ``-k``, ``-x``, ``--junitxml`` and pytest-xdist
work as usual (each xdist worker builds what it runs; builds are cached by content, so workers
share objects). Cases tagged ``full`` are collected but skipped unless ``--opkit-full`` is given.
``--opkit-shard I/N`` keeps the items of slice I of N, split as ``opkit verify --shard I/N`` splits
(opkit.verify.shard: the same runs in the same shard); the others are reported as deselected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("opkit", "opkit operator cases")
    group.addoption("--opkit-full", action="store_true", help="also run op.yaml cases tagged 'full'")
    group.addoption("--opkit-soc", action="append", default=[], help="chip(s) to verify on (repeatable)")
    group.addoption("--opkit-profile", default=None, help="precision profile for every case")
    group.addoption("--opkit-shard", default=None, metavar="I/N",
                    help="only the op.yaml cases of slice I of N, as `opkit verify --shard I/N` splits them")


def pytest_configure(config: Any) -> None:
    from opkit.errors import UsageError
    from opkit.verify.shard import parse_shard

    try:
        config._opkit_shard = parse_shard(config.getoption("opkit_shard"), "--opkit-shard")
    except UsageError as exc:
        raise pytest.UsageError(exc.message) from None


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """With --opkit-shard, deselect the op.yaml cases of the other slices. An op.yaml that does not load stays
    in every shard (as `opkit verify --shard` refuses it in every shard), and so do tests that are not
    op.yaml cases."""
    shard = getattr(config, "_opkit_shard", None)
    if shard is None:
        return
    kept, dropped = [], []
    for item in items:
        run = item.run_id if isinstance(item, OpCaseItem) else None
        (dropped if run is not None and not shard.holds(run) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_collect_file(file_path: Path, parent: Any) -> Any:
    if file_path.name == "op.yaml":
        return OpSpecFile.from_parent(parent, path=file_path)
    return None


_RUNNER: dict[str, Any] = {}


def _runner() -> Any:
    if "sim" not in _RUNNER:
        from opkit.run.sim_runner import SimRunner

        _RUNNER["sim"] = SimRunner()
    return _RUNNER["sim"]


class OpSpecFile(pytest.File):
    def collect(self) -> Any:
        from opkit.errors import OpkitError
        from opkit.spec import load
        from opkit.verify.pipeline import Selection, select

        try:
            spec = load(self.path.parent)
            jobs = select(spec, Selection(chips=self.config.getoption("opkit_soc") or [], full=True))
        except OpkitError as exc:
            yield SpecErrorItem.from_parent(self, name="spec", message=exc.message)
            return
        for job in jobs:
            name = f"{job.case.name}[{spec.column_label(job.column)}@{job.chip}]"
            item = OpCaseItem.from_parent(self, name=name, spec=spec, job=job)
            for tag in job.case.tags:
                if tag.isidentifier():
                    self.config.addinivalue_line("markers", f"{tag}: op.yaml case tag")
                    item.add_marker(getattr(pytest.mark, tag))
            yield item


class SpecErrorItem(pytest.Item):
    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def runtest(self) -> None:
        raise OpCaseFailure(self.message)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.path}: spec"


class OpCaseFailure(Exception):
    pass


class OpCaseItem(pytest.Item):
    def __init__(self, *, spec: Any, job: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.job = job

    @property
    def run_id(self) -> str:
        """The run's id, ``op::case[dtype column@chip]``, as opkit verify names it (and --opkit-shard hashes)."""
        from opkit.verify.pipeline import run_id

        return run_id(self.spec, self.job)

    def runtest(self) -> None:
        from opkit.verify.pipeline import verify_job

        if "full" in self.job.case.tags and not self.config.getoption("opkit_full"):
            pytest.skip("case tagged 'full' (run with --opkit-full)")
        result = verify_job(self.spec, self.job, _runner(), self.config.getoption("opkit_profile"))
        self.user_properties.append(("profile", result.profile))
        if result.status != "pass":
            raise OpCaseFailure(f"{result.status}: {result.message}")

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, OpCaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, self.job.case.index, f"{self.spec.name}::{self.name}"
