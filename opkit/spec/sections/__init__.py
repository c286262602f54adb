"""One checker per op.yaml section. ``opkit.spec.load.build`` runs them in order, each reading what the
earlier ones built (attrs before tensors, tensors before SoCs and cases, ...) and adding its problems
to one shared :class:`Checker`, so a spec with several mistakes reports all of them at once."""

from __future__ import annotations

from pathlib import Path

from opkit.spec.yamlio import Document, format_path


class Checker:
    """Collects ``file:line: field: message`` problems for one document."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.problems: list[str] = []

    def err(self, path: tuple, text: str) -> None:
        self.problems.append(f"{self.doc.where(path)}: {format_path(path)}: {text}")


def doc_dir(doc: Document) -> Path:
    return Path(doc.file).parent
