"""The CANN backends on the command line: build --backend cann|cann-cpu, install."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from opkit.cli.common import _console, _one_spec, _user_errors, app


def build_cann(backend: str, specs: list[Any], soc: list[str] | None, jobs: int | None, vendor: str,
               cann_path: Path | None, out: Any, t0: float) -> None:
    """`opkit build --backend cann|cann-cpu` (the backend is ready: checked by the caller)."""
    from rich.markup import escape

    def say(m: str) -> None:
        out.print(f"  {escape(m)}")

    if backend == "cann":
        from opkit.backends import cann

        built = cann.build(specs, soc, jobs, say, vendor=vendor, cann_path=cann_path)
        for b in built:
            out.print(f"[green]built[/] {b.spec.op_type}: {b.run_file} ({b.seconds:.1f} s; log {b.log})")
        out.print(f"next: opkit install {built[0].spec.dir if len(built) == 1 else 'OP'}"
                  f"{' --vendor ' + vendor if vendor != 'customize' else ''} (or --path DIR)")
        return
    from opkit.errors import UsageError

    raise UsageError("opkit build --backend cann-cpu: CANN's CPU-debug build of a package's kernel is not in this "
                     "opkit release (the toolkit is ready: see opkit doctor); build and verify on opkit's simulator "
                     "(the default backend), or build the NPU package with --backend cann")


def runs_not_on(backend: str, command: str) -> None:
    """verify / run / perf on a backend that this opkit does not run cases on."""
    from opkit.errors import UsageError

    if backend == "cann":
        raise UsageError(f"opkit {command} --backend cann (cases on an NPU through aclnn) is not in this opkit "
                         "release: build and install the package (opkit build --backend cann, opkit install) and call "
                         f"its aclnn API; opkit {command} runs on the simulator (the default)"
                         + (" or on CANN's CPU model (--backend cann-cpu)" if command == "verify" else ""))
    hint = "use the default backend sim" if command == "verify" else \
        "opkit verify --backend cann-cpu runs op.yaml's cases on CANN's CPU model"
    raise UsageError(f"opkit {command} --backend {backend}: not supported; {hint}")


@app.command()
@_user_errors
def install(
    op: Annotated[str | None, typer.Argument(metavar="OP", help="Package: a path or an op name (default: the "
                                             "package containing the current directory).")] = None,
    path: Annotated[Path | None, typer.Option("--path", metavar="DIR", help="Install into DIR/vendors/<vendor> "
                                              "(default: $ASCEND_OPP_PATH/vendors/<vendor>).")] = None,
    vendor: Annotated[str, typer.Option("--vendor", metavar="NAME", help="The vendor it was built for.")] =
        "customize",
    cann_path: Annotated[Path | None, typer.Option("--cann-path", metavar="DIR", help="The CANN toolkit (default: "
                                                   "$ASCEND_HOME_PATH, then the default install folders).")] = None,
) -> None:
    """Install the package built by `opkit build --backend cann` and check that its aclnn API loads."""
    from opkit.backends import install as installer

    t0 = time.perf_counter()
    spec = _one_spec(op, "install")
    res = installer.install(spec, path=path, vendor=vendor, cann_path=cann_path)
    out = _console()
    out.print(f"[green]installed[/] {spec.op_type} into {res.vendor_dir} ({time.perf_counter() - t0:.1f} s)")
    out.print(f"  aclnn library: {res.library}: {', '.join(res.symbols)} load")
    out.print("  to use it:")
    for line in res.env_lines:
        out.print(f"    {line}", markup=False)
