"""Holding a runtime's decision model (promptc_compiler.runtimes) to the real CLI, call by call.

The shared half of every runtime's decision tests: the calls of a bundle's
matrix with OpenCode's and the model's decisions, a sample of them spread over
agents, permissions and decisions, the stand-in folders of the matrix turned
into real ones, and the figures each target prints. A runtime's own test
file drives its CLI (tests/oracles/<runtime>.py) and compares.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from promptc_compiler.core.project import Project
from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import RANK, Call
from promptc_compiler.runtimes import MODELS
from tests.oracles import harness

# The figures of this process's decision tests, for the run's summary.
FIGURES: list[str] = []


@dataclass(frozen=True)
class Decided:
    call: Call
    opencode: str
    model: str
    why: str


def decided(project: Project, target: str, files: Mapping[str, str]) -> list[Decided]:
    """Every call of the project's matrix, decided by OpenCode and by the target's model."""
    _, load = MODELS[target]
    model = load(files)
    runtime = calls.runtime_of(project)
    found = []
    for call in calls.matrix(project, runtime):
        verdict = model.decide(call)
        found.append(Decided(call, calls.decide(runtime, call).action, verdict.action, verdict.why))
    return found


def wider(found: Iterable[Decided]) -> list[Decided]:
    return [d for d in found if RANK[d.model] > RANK[d.opencode]]


def sample(found: Sequence[Decided], size: int, seed: int = 0) -> list[Decided]:
    """About `size` calls, every (permission, OpenCode decision, model decision)
    present at least once, the rest drawn at random (a fixed seed: the same
    sample every run, so a failure reproduces)."""
    pick = random.Random(seed)
    groups: dict[tuple[str, str, str], list[Decided]] = {}
    for d in found:
        groups.setdefault((d.call.permission, d.opencode, d.model), []).append(d)
    chosen = {pick.choice(group) for group in groups.values()}
    rest = [d for d in found if d not in chosen]
    pick.shuffle(rest)
    chosen.update(rest[: max(0, size - len(chosen))])
    return sorted(chosen, key=lambda d: d.call)


def concrete(text: str, project: Path, home: Path) -> str:
    """A call's input with the matrix's stand-in folders replaced by the real ones."""
    outside = project.parent / Path(calls.OUTSIDE).name
    return (
        text.replace(calls.OUTSIDE, outside.as_posix())
        .replace(calls.PROJECT, project.as_posix())
        .replace(calls.HOME, home.as_posix())
    )


def project_for(folder: Path, files: Mapping[str, str]) -> Path:
    """A scratch git project holding a target's files (tests/oracles/harness.py, with
    a `.env` holding its SECRET), a source file and README the matrix's paths name,
    and a folder beside it (the matrix's OUTSIDE)."""
    project = folder / "project"
    project.mkdir(parents=True)
    everyday = {"src/app.py": "print('hello')\n", "README.md": "# scratch\n"}
    (folder / Path(calls.OUTSIDE).name).mkdir()
    return harness.scratch_project(project, {**everyday, **files})


def figures(
    target: str, found: Sequence[Decided], real: int, accepted: Collection[str] = ()
) -> str:
    """What a target's decision suite prints: calls, wider, and the usable share
    (of the calls OpenCode allows or asks, the part the runtime still allows or asks).
    Kept in FIGURES too, which the run's summary prints (tests/conftest.py)."""
    usable = [d for d in found if d.opencode != "deny"]
    kept = [d for d in usable if d.model != "deny"]
    share = 100 * len(kept) // len(usable) if usable else 100
    wide = wider(found)
    taken = sorted({d.call.permission for d in wide if d.call.permission in accepted})
    on_purpose = [d for d in wide if d.call.permission in accepted]
    also = f" (and {len(on_purpose)} accepted: {', '.join(taken)})" if on_purpose else ""
    line = (
        f"{target}: {len(found)} calls on the model, {real} on the real CLI, "
        f"{len(wide) - len(on_purpose)} wider{also}, {share}% of {len(usable)} usable calls kept"
    )
    FIGURES.append(line)
    return line
