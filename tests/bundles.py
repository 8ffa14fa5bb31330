"""The bundles target tests run on: fixture bundles under tests/fixtures.

tests/fixtures/team is the real-shape one: a frozen copy of the repository's
own bundle (16 agents, 3 modes, a skill, fragments with parameters, every
runtime's overrides) with its prose cut short. Unit tests run on it, never on
the repository's bundle, which changes as the team it describes does and is
checked by tests/test_repository_bundle.py alone.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from promptc_compiler import api
from promptc_compiler.core.bundle import load_bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import Config, load_config
from promptc_compiler.core.project import make_project
from promptc_compiler.runtimes import TARGET_NAMES
from promptc_compiler.runtimes.translations import Translated

REPOSITORY = Path(__file__).resolve().parent.parent
FIXTURES = REPOSITORY / "tests" / "fixtures"
TEAM = FIXTURES / "team"


def config(root: Path) -> Config:
    return load_config(cwd=root)


def project(root: Path, target: str) -> Translated:
    """The checked model one target is emitted from, with translations of its own."""
    settings = config(root)
    bundle = load_bundle(settings)
    composition = compose_bundle(bundle, target, TARGET_NAMES)
    return Translated.of(make_project(settings, bundle, composition, target))


def render(root: Path, target: str, *, lint_errors: bool = False) -> dict[str, bytes]:
    """What `promptc build --target <target>` writes under <out>/<target>/, in memory.

    Fails the test when the bundle has an error: a target test never runs on
    output promptc would refuse to write. With `lint_errors`, a bundle made of
    permission mistakes on purpose (tests/fixtures/permissions) may carry lint
    errors, but nothing a pipeline stage (syntax, schema, compose, emit) refuses.

    A fixture bundle, which no test writes, is rendered once a process for each
    target: a worker runs many test files, and a dozen of them render the team.
    """
    if root.resolve().is_relative_to(FIXTURES):
        return dict(_rendered_fixture(root.resolve(), target, lint_errors))
    return _render(root, target, lint_errors)


@functools.cache
def _rendered_fixture(root: Path, target: str, lint_errors: bool) -> Mapping[str, bytes]:
    return MappingProxyType(_render(root, target, lint_errors))


def _render(root: Path, target: str, lint_errors: bool) -> dict[str, bytes]:
    from promptc_compiler import rules
    from promptc_compiler.base.diagnostics import Severity

    result = api.render(config(root), only=[target])
    if lint_errors:
        stages = [
            d
            for d in result.diagnostics
            if d.severity is Severity.ERROR and rules.RULES[d.rule].STAGE
        ]
        assert stages == [], stages
    else:
        assert result.ok, result.diagnostics
    prefix = f"{target}/"
    return {rel.removeprefix(prefix): data for rel, data in result.files.items()}
