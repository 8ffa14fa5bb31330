"""The test suite on every CPython promptc supports, each in a venv of its own.

`make test-pythons` runs it: the Makefile puts pyenv's builds of these versions
on PATH, where nox looks for `python3.X`, and passes pytest the options that
spread the suite over every core. Arguments after `--` go to pytest:
`nox -s tests-3.13 -- tests/test_cli.py`.
"""

from __future__ import annotations

import nox

# requires-python is ">=3.11" (pyproject.toml): every minor version since.
# The Makefile's PYTHONS names the same versions.
PYTHONS = ["3.11", "3.12", "3.13"]

nox.options.sessions = ["tests"]
# A missing interpreter fails the run instead of skipping its session, and is
# never downloaded: the suite runs on the interpreters this machine has.
nox.options.error_on_missing_interpreters = True
nox.options.download_python = "never"


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The whole suite (or what the arguments select), as `make test` runs it."""
    session.install("--quiet", "-e", ".[test]")
    session.run("pytest", *session.posargs)
