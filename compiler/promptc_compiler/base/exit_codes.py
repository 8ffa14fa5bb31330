"""promptc's exit codes, in one place for the command line and the library API.

A checking run's code follows from its diagnostics (and the files `--fix`
changed); `promptc can`'s from the decision. The table is the one in
docs/reference/cli.md ("Exit codes").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from promptc_compiler.base.diagnostics import Diagnostic, Severity

OK = 0
PROBLEMS = 1  # an error, a warning under strict, files --fix changed, a stale build
USAGE = 2  # also a bad config: promptc_compiler.base.errors.ConfigError.exit_code
INTERNAL = 3

# `promptc can`: the decision itself, far from 1 (the bundle has errors) and 2
# (usage), so a script never takes a decision for a failure of promptc.
DECISIONS: Mapping[str, int] = {"allow": 0, "ask": 10, "deny": 20}
# With an expected decision (`--expect`): the answer is the one expected, or it is not.
EXPECTED = 0
UNEXPECTED = 1


def failing(strict: bool) -> frozenset[Severity]:
    """The severities that fail a run: errors, and warnings too under `strict`."""
    if strict:
        return frozenset((Severity.ERROR, Severity.WARNING))
    return frozenset((Severity.ERROR,))


def failed(diagnostics: Iterable[Diagnostic], *, strict: bool = False) -> bool:
    found = failing(strict)
    return any(d.severity in found for d in diagnostics)


def of_run(
    diagnostics: Iterable[Diagnostic], *, fixed: Sequence[str] = (), strict: bool = False
) -> int:
    """A lint, build or check: PROBLEMS when a diagnostic fails the run or `--fix`
    changed files (pre-commit then shows the change), else OK."""
    return PROBLEMS if fixed or failed(diagnostics, strict=strict) else OK


def of_decision(action: str, expect: str | None = None) -> int:
    """`promptc can`: the decision's code, or with `expect` whether it is that one."""
    if expect is None:
        return DECISIONS[action]
    return EXPECTED if action == expect else UNEXPECTED
