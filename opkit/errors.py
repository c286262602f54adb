"""Errors a user can cause. Each carries one clear message; the CLI prints it and exits non-zero."""

from __future__ import annotations


class OpkitError(Exception):
    """An error caused by user input (a spec, a name, a file), never a bug in opkit.

    ``message`` says what is wrong, where, and how to fix it.
    """

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SpecError(OpkitError):
    """One or more problems in an op.yaml (or a file converted into one).

    ``problems`` holds every message, each already prefixed with ``file:line:``.
    """

    exit_code = 2

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class UsageError(OpkitError):
    """A command-line argument that cannot work (bad name, clash with an existing directory...)."""

    exit_code = 2
