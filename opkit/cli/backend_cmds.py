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
    from opkit.backends import cann_cpu

    exes = cann_cpu.build(specs, soc, jobs, say, cann_path=cann_path)
    out.print(f"[green]built[/] {len(exes)} CPU-debug executable(s) with CANN's tikicpulib "
              f"({time.perf_counter() - t0:.1f} s)")
    for e in exes:
        out.print(f"  {escape(e.label)}: {e.exe}")
    out.print("next: opkit verify --backend cann-cpu (the cases on CANN's CPU model)")


def print_beside_sim(info: dict[str, Any], err: Any, out: Any) -> None:
    """CANN's CPU-model log, and with --beside-sim the comparison with the simulator, side by side."""
    from rich.markup import escape
    from rich.table import Table

    for line in info.get("cann_cpu_log", []):
        err.print(f"[cyan]cann-cpu:[/] {escape(line)}")
    side = info.get("beside_sim")
    if side is None:
        return
    if side.get("sim_error"):
        out.print(f"[red]the simulator failed where CANN's CPU model ran:[/] {escape(side['sim_error'])}")
    for w in side.get("sim_warnings", []):
        err.print(f"[yellow]simulator warning:[/] {escape(w)}")
    if side.get("outputs"):
        table = Table(title="CANN's CPU model beside opkit's simulator")
        for col in ("output", "elements", "differ", "max |diff|", "note"):
            table.add_column(col)
        for r in side["outputs"]:
            table.add_row(r["output"], str(r["elements"]), str(r["differ"]),
                          "" if r["max_abs_diff"] is None else f"{r['max_abs_diff']:.6g}", escape(r["note"]))
        out.print(table)


def runs_not_on(backend: str, command: str) -> None:
    """verify / run / perf on a backend that this opkit does not run cases on."""
    from opkit.errors import UsageError

    raise UsageError(f"opkit {command} --backend {backend}: not supported (the performance model reads the "
                     "simulator's traces); opkit verify --backend cann-cpu runs op.yaml's cases on CANN's CPU model")


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
