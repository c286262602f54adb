"""`opkit ci init --npu`: a GitHub Actions workflow for a self-hosted runner with CANN and an Ascend NPU.

One job on the runner (``runs-on`` its labels, ``self-hosted`` first): it installs opkit in a venv,
sources CANN's ``set_env.sh`` in every step (each step is a new shell), shows ``opkit doctor`` and
``npu-smi info``, builds the packages' custom operator packages with ``opkit build --backend cann``,
installs each into a folder of the job (``opkit install --path``, so the machine's own
``opp/vendors`` is left alone) and checks their aclnn libraries load, verifies the cases on the
simulator, and uploads the build logs, .run packages, results.json and JUnit XML.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from opkit import writes
from opkit.backends.cann_project import DEFAULT_VENDOR, check_vendor
from opkit.errors import UsageError
from opkit.scaffold.ci import _SAFE_OP, _q, default_install

DEFAULT_PATH = Path(".github/workflows/npu.yml")
DEFAULT_LABELS = ("npu",)
DEFAULT_SET_ENV = "/usr/local/Ascend/ascend-toolkit/set_env.sh"
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


@dataclass
class NpuCiOptions:
    ops: list[str] = field(default_factory=list)  # packages (empty: every package under ops/)
    labels: list[str] = field(default_factory=lambda: list(DEFAULT_LABELS))  # runner labels after self-hosted
    set_env: str = DEFAULT_SET_ENV  # CANN's set_env.sh on the runner
    install: str | None = None  # the command that installs opkit in the job's venv
    vendor: str = DEFAULT_VENDOR


def check(opts: NpuCiOptions) -> None:
    for label in opts.labels:
        if not _LABEL.match(label):
            raise UsageError(f"--runner-label {label!r}: a runner label is letters, digits and ._- (as set on the "
                             "self-hosted runner)")
    if not opts.set_env.startswith("/") or not re.fullmatch(r"[A-Za-z0-9_./+-]+", opts.set_env):
        raise UsageError(f"--set-env {opts.set_env!r}: give the absolute path of CANN's set_env.sh on the runner, "
                         f"e.g. {DEFAULT_SET_ENV}")
    for op in opts.ops:
        if not _SAFE_OP.match(op):
            raise UsageError(f"OP {op!r}: give a package path or name of letters, digits and ._/- in the workflow")
    if opts.install is not None and (not opts.install.strip() or "\n" in opts.install):
        raise UsageError("--install: give one command line, e.g. --install 'python -m pip install -e .'")
    check_vendor(opts.vendor)


def command_line(opts: NpuCiOptions) -> str:
    parts = ["opkit", "ci", "init", *opts.ops, "--npu"]
    for label in opts.labels:
        parts += ["--runner-label", label]
    if opts.set_env != DEFAULT_SET_ENV:
        parts += ["--set-env", opts.set_env]
    if opts.vendor != DEFAULT_VENDOR:
        parts += ["--vendor", opts.vendor]
    if opts.install is not None:
        parts += ["--install", opts.install]
    return shlex.join(parts)


def workflow(opts: NpuCiOptions) -> str:
    check(opts)
    install = opts.install if opts.install is not None else default_install()
    labels = ", ".join(_q(v) for v in ["self-hosted", "linux", *opts.labels])
    ops = " ".join(shlex.quote(o) for o in opts.ops)
    vendor = "" if opts.vendor == DEFAULT_VENDOR else f" --vendor {opts.vendor}"
    each = (f"for op in {ops}; do" if opts.ops else
            "for yaml in $(find ops -name op.yaml -not -path '*/.opkit/*' | sort); do op=$(dirname \"$yaml\")")
    env = f"source {opts.set_env} && source .venv/bin/activate"
    return f"""# Build, install and check the operator packages with CANN on a self-hosted runner with an Ascend NPU.
# Written by: {command_line(opts)}
# The runner needs the labels below, CANN installed with {opts.set_env}, cmake >= 3.19 and python3 (docs/backends.md).
name: npu

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: npu-${{{{ github.ref }}}}
  cancel-in-progress: true

jobs:
  npu:
    runs-on: [{labels}]
    timeout-minutes: 180
    defaults:
      run:
        shell: bash
    steps:
      - uses: actions/checkout@v4
      - name: Install opkit
        run: |
          python3 -m venv .venv
          source .venv/bin/activate
          {install}
      - name: Machine
        run: |
          {env}
          opkit doctor
          npu-smi info
      - name: Build with CANN
        run: |
          {env}
          opkit build {ops + ' ' if ops else ''}--backend cann{vendor} -j "$(nproc)"
      - name: Install and load the aclnn libraries
        run: |
          {env}
          {each}
            opkit install "$op" --path "$RUNNER_TEMP/opp"{vendor}
          done
      - name: Verify
        run: |
          {env}
          opkit verify {ops + ' ' if ops else ''}--out npu-verify --junit npu-verify/junit.xml
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: npu-results
          path: |
            npu-verify/
            **/.opkit/cann/project/build_out/*.run
            **/.opkit/cann/project/build_out/opkit-build.log
          if-no-files-found: warn
"""


def write_workflow(opts: NpuCiOptions, path: Path = DEFAULT_PATH, force: bool = False) -> Path:
    return writes.write_text(path, workflow(opts), force, "--out")
