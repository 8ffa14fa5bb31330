"""The cases of a test that compares each emitted file with a snapshot file of its own.

Such a test was parametrized by rendering its bundles at collection time, and
pytest-xdist collects every file in every worker: each worker rendered them
(about 2.6 s of CPU), though only the one that runs the file uses them. The
snapshot files on disk name the same cases without rendering. Under
--snapshot-update the rendered files name them instead, so that a new emitted
file gets its snapshot written and a file no longer emitted loses its own.
Either way the module's own test checks that the two lists are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest


def updating(config: pytest.Config) -> bool:
    """Whether this run writes snapshots (syrupy's --snapshot-update and its -new-only)."""
    return bool(config.option.update_snapshots or config.option.update_new_snapshots_only)


def stored(module: str, test: str) -> list[str]:
    """The ids of `test`'s snapshot files, as syrupy's single-file extensions name them:
    __snapshots__/<module's name>/<test>[<id>].<extension>, beside the module."""
    path = Path(module)
    folder = path.parent / "__snapshots__" / path.stem
    prefix = f"{test}["
    if not folder.is_dir():
        return []
    return sorted(
        file.stem.removeprefix(prefix).removesuffix("]")
        for file in folder.iterdir()
        if file.name.startswith(prefix)
    )


def case_ids(
    config: pytest.Config, module: str, test: str, rendered: Callable[[], Iterable[str]]
) -> list[str]:
    """The ids `test` runs: its snapshot files' ids, or under an update the rendered ones."""
    if updating(config):
        return sorted(rendered())
    return stored(module, test)
