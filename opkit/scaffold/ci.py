"""`opkit ci init`: a GitHub Actions workflow that verifies the packages in shards and joins the reports.

The workflow has two jobs. ``verify`` is a matrix over Python versions and shards: each job installs
opkit, runs ``opkit verify --shard I/N`` (on the chosen chips) and uploads its results.json, JUnit XML and
worst-element CSVs as an artifact. ``report`` runs after every shard (also when some failed), per Python
version: it downloads that version's shard artifacts, runs ``opkit report merge`` into one results.json
and one JUnit file, uploads them, and fails when a run failed or errored — one check to require.
The split is opkit's stable hash of each run's id, so the shards hold the same runs on every machine.
Each shard compiles the harnesses of the packages it touches; the build products are cached between
workflow runs (they are named by a hash of their content, so a restored stale one is never used).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from opkit import writes
from opkit.errors import UsageError

DEFAULT_PATH = Path(".github/workflows/verify.yml")
DEFAULT_SHARDS = 4
DEFAULT_PYTHONS = ("3.11",)
MAX_JOBS = 256  # GitHub Actions: jobs one matrix may generate
SHARD_DIR = "verify-shard"
_PYTHON = re.compile(r"^(3\.\d{1,2}(\.\d{1,2})?|pypy3\.\d{1,2})$")
_SAFE_OP = re.compile(r"^[A-Za-z0-9_./-]+$")


def default_install() -> str:
    from opkit import __version__

    return f'python -m pip install "opkit-ascend=={__version__}"'


@dataclass
class CiOptions:
    shards: int = DEFAULT_SHARDS
    pythons: list[str] = field(default_factory=lambda: list(DEFAULT_PYTHONS))
    socs: list[str] = field(default_factory=list)  # chips or OpDef keys for `verify --soc` (empty: its default)
    ops: list[str] = field(default_factory=list)  # OP arguments of `opkit verify` (empty: every package in ops/)
    install: str | None = None  # the install step's command (None: default_install())
    full: bool = False  # also the cases tagged 'full'


def check(opts: CiOptions) -> None:
    """Refuse options that would make a workflow GitHub rejects or that does not do what was asked."""
    from opkit import soc

    if not 1 <= opts.shards <= MAX_JOBS:
        raise UsageError(f"--shards {opts.shards}: must be between 1 and {MAX_JOBS} (GitHub's limit of jobs per "
                         "matrix)")
    if not opts.pythons:
        raise UsageError("--python: give at least one Python version, e.g. --python 3.11")
    for v in opts.pythons:
        if not _PYTHON.match(v):
            raise UsageError(f"--python {v!r}: not a Python version setup-python takes, such as 3.11 or 3.12.4")
    if len(set(opts.pythons)) != len(opts.pythons):
        raise UsageError(f"--python: each version once ({', '.join(opts.pythons)})")
    if opts.shards * len(opts.pythons) > MAX_JOBS:
        raise UsageError(f"--shards {opts.shards} x {len(opts.pythons)} Python versions = "
                         f"{opts.shards * len(opts.pythons)} jobs, more than GitHub's {MAX_JOBS} per matrix")
    for s in opts.socs:
        try:
            soc.resolve(s)
        except KeyError as exc:
            raise UsageError(f"--soc {s}: {exc.args[0]}") from None
    for op in opts.ops:
        if not _SAFE_OP.match(op):
            raise UsageError(f"OP {op!r}: give a package path or name of letters, digits and ._/- in the workflow")
    if opts.install is not None and (not opts.install.strip() or "\n" in opts.install):
        raise UsageError("--install: give one command line, e.g. --install 'python -m pip install -e .'")


def _q(text: str) -> str:
    """A YAML double-quoted scalar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def command_line(opts: CiOptions) -> str:
    """The `opkit ci init` command that writes this workflow (recorded in its first lines)."""
    parts = ["opkit", "ci", "init", *opts.ops, "--shards", str(opts.shards)]
    for v in opts.pythons:
        parts += ["--python", v]
    for s in opts.socs:
        parts += ["--soc", s]
    if opts.full:
        parts.append("--full")
    if opts.install is not None:
        parts += ["--install", opts.install]
    return shlex.join(parts)


def workflow(opts: CiOptions) -> str:
    """The workflow's text."""
    check(opts)
    n = opts.shards
    install = opts.install if opts.install is not None else default_install()
    verify_args = [*opts.ops, "--shard", f"${{{{ matrix.shard }}}}/{n}"]
    for s in opts.socs:
        verify_args += ["--soc", s]
    if opts.full:
        verify_args.append("--full")
    verify_args += ["--out", SHARD_DIR, "--junit", f"{SHARD_DIR}/junit.xml"]
    pythons = ", ".join(_q(v) for v in opts.pythons)
    shards = ", ".join(str(i) for i in range(1, n + 1))
    cache_key = "opkit-${{ runner.os }}-py${{ matrix.python }}"
    sources = "'**/op.yaml', '**/op_host/**', '**/op_kernel/**'"
    setup = f"""      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{{{ matrix.python }}}}
      - name: Install opkit
        run: |
          {install}
"""
    return f"""# Verify every operator package on the CPU simulator in {n} shard(s), then join the reports.
# Written by: {command_line(opts)}
# Rerun that command with --force to regenerate this file (docs/cli.md, Scaling verification).
name: verify

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

jobs:
  verify:
    name: verify (Python ${{{{ matrix.python }}}}, shard ${{{{ matrix.shard }}}}/{n})
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        python: [{pythons}]
        shard: [{shards}]
    steps:
{setup}      - name: Build cache (harness objects, named by their content)
        uses: actions/cache@v4
        with:
          path: |
            ~/.cache/opkit
            **/.opkit/sim
          key: {cache_key}-${{{{ hashFiles({sources}) }}}}
          restore-keys: {cache_key}-
      - name: Verify shard ${{{{ matrix.shard }}}}/{n}
        run: opkit verify {" ".join(verify_args)}
      - name: Upload the shard's results and JUnit XML
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: verify-py${{{{ matrix.python }}}}-shard${{{{ matrix.shard }}}}
          path: |
            {SHARD_DIR}/results.json
            {SHARD_DIR}/junit.xml
            {SHARD_DIR}/worst/
          if-no-files-found: warn

  report:
    name: report (Python ${{{{ matrix.python }}}})
    needs: verify
    if: always()
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        python: [{pythons}]
    steps:
{setup}      - name: Download the shards' results
        uses: actions/download-artifact@v4
        with:
          pattern: verify-py${{{{ matrix.python }}}}-shard*
          path: shards
      - name: Merge the shards (fails when a run failed or errored)
        run: opkit report merge verify-results.json shards/*/results.json --junit verify-results.xml
      - name: Upload the merged results and JUnit XML
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: verify-py${{{{ matrix.python }}}}
          path: |
            verify-results.json
            verify-results.xml
          if-no-files-found: warn
"""


def write_workflow(opts: CiOptions, path: Path = DEFAULT_PATH, force: bool = False) -> Path:
    """Write the workflow under opkit's write rule (a file changed since opkit wrote it needs ``force``)."""
    text = workflow(opts)
    return writes.write_text(path, text, force, "--out")
