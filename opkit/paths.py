"""Where opkit finds the files it ships (templates), in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def templates_dir() -> Path:
    """``op_templates/``: top level in a checkout, ``opkit/_templates`` inside the wheel."""
    installed = _PKG / "_templates"
    if installed.is_dir():
        return installed
    checkout = _PKG.parent / "op_templates"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"opkit's templates are missing: neither {installed} nor {checkout} exists")


# The skeleton `opkit new --spec` renders from a user's op.yaml (compute marked not implemented);
# not a template users pick.
GENERIC_TEMPLATE = "_generic"


def template_names() -> list[str]:
    """The templates `opkit new --template` offers (folders whose name starts with ``_`` are not)."""
    return sorted(p.name for p in templates_dir().iterdir()
                  if (p / "cookiecutter.json").is_file() and not p.name.startswith("_"))
