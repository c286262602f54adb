"""The `opkit` command: a thin typer layer over the library, one module per group of commands (packages,
runs, reports); heavy modules are imported lazily."""

from __future__ import annotations

import importlib
import sys

from opkit.cli.common import app

# Each module's commands register on the app as it is imported, in the order `opkit --help` lists them.
for _group in ("packages", "runs", "backend_cmds", "reports"):
    importlib.import_module(f"opkit.cli.{_group}")

__all__ = ["app", "main"]


def main() -> None:
    """The entry point: anything that escapes the commands' own handling still ends in one message."""
    try:
        app()
    except MemoryError:
        sys.stderr.write("error: out of memory\n")
        sys.exit(2)
    except OSError as exc:
        sys.stderr.write(f"error: {exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
