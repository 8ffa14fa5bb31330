"""Emit: every target's files, each checked against its format's schema.

The problems of a file whose spec already has errors are not reported, since
those errors explain them.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple, Protocol

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.core.config import Config
from promptc_compiler.core.project import Project, Spec, make_project
from promptc_compiler.core.validate import Schemas, check_emitted, output_schema
from promptc_compiler.permissions.calls import Call
from promptc_compiler.pipeline.proof import Matrix, Proof, Widening, grouped, prove, with_proof
from promptc_compiler.runtimes import TARGETS, compose_as
from promptc_compiler.runtimes.translations import Translated


class Collector(Protocol):
    """What emitting reports to (api._Collector): findings with display paths."""

    config: Config
    schemas: Schemas  # the run's validators

    def display(self, path: Path) -> str: ...

    def add(self, rule: str, path: Path, problem: Problem) -> None: ...

    def failed(self, shown: str | None) -> bool: ...

    def proved(self, proof: Proof) -> None: ...


REPORT = "TRANSLATION.md"  # where a target says what its files could not keep


# What a build holds of its files as they are; past it, each file is held
# compressed. About the files of 1,500 agents for two runtimes.
RAW_BYTES = 32 << 20


class Files(MutableMapping[str, bytes]):
    """Generated files by path, until the all-or-nothing write. The first
    `raw_bytes` of them are held as they are; the rest compressed (zlib at
    level 1: an agent's file to about a tenth), and read back whole.

    Packing every file held a 10,000-agent two-runtime build's 206 MiB of
    files in about 20, for 4.5% of its CPU; a build of 1,000 agents paid as
    much for files it can hold as they are (docs/performance.md, "What a
    build holds")."""

    def __init__(self, raw_bytes: int = RAW_BYTES) -> None:
        self._held: dict[str, bytes] = {}
        self._packed: set[str] = set()  # the paths held compressed
        self._room = raw_bytes  # what is left of raw_bytes

    def __setitem__(self, path: str, data: bytes) -> None:
        self._release(path)  # a file put again keeps its place in the order
        if len(data) <= self._room:
            self._room -= len(data)
            self._held[path] = data
        else:
            self._packed.add(path)
            self._held[path] = zlib.compress(data, 1)

    def __getitem__(self, path: str) -> bytes:
        data = self._held[path]
        return zlib.decompress(data) if path in self._packed else data

    def __delitem__(self, path: str) -> None:
        self._release(path)
        del self._held[path]

    def _release(self, path: str) -> None:
        """Give back the room of the file held at `path`, if any (a packed one took none)."""
        if path in self._packed:
            self._packed.discard(path)
        elif path in self._held:
            self._room += len(self._held[path])

    def __contains__(self, path: object) -> bool:
        return path in self._held

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)


def emit(collector: Collector, lint_project: Translated, names: Iterable[str]) -> Files:
    """Every file of the targets `names`, by `<target>/<path>`, and
    what composing for other targets than the lint target's finds. Each such
    target's project (with the run's translations: each is worked out once for
    all) is dropped after the last target composed for it."""
    ordered = sorted(names)
    projects = {lint_project.target: lint_project}  # by the target composed for
    found: dict[str, _Proved] = {}  # by target
    matrix = Matrix()  # every target's proof decides the same calls of OpenCode's
    files = Files()
    for at, name in enumerate(ordered):
        composed_for = compose_as(name)
        project = projects.get(composed_for)
        if project is None:
            project = projects[composed_for] = _composed(collector, lint_project, name)
        proved = _emit_target(collector, project, name, files, matrix)
        if proved is not None:
            found[name] = proved
        if composed_for not in {compose_as(other) for other in ordered[at + 1 :]}:
            if project is not lint_project:
                _composed_findings(collector, project)
            del projects[composed_for]
        del project  # not held while the next target is composed
    proofs = [found[name] for name in sorted(found)]  # reported in the targets' order
    for proved in proofs:
        collector.proved(proved.proof)
    _report_proofs(collector, proofs)
    return files


def _composed_findings(collector: Collector, project: Translated) -> None:
    """Text that only another runtime's composition sees can hold its own errors."""
    for rule, path, problem in project.composition.findings:
        collector.add(rule, path, problem)


def _composed(collector: Collector, lint_project: Translated, name: str) -> Translated:
    """The lint project's bundle composed for target `name`, with the run's
    translations: the same bundle as the composition it is made from."""
    composed_for = compose_as(name)
    composition = lint_project.composition.for_target(composed_for)
    project = make_project(collector.config, lint_project.bundle, composition, composed_for)
    return Translated.of(project, lint_project.translations)


def _emit_target(
    collector: Collector, project: Translated, name: str, files: Files, matrix: Matrix
) -> _Proved | None:
    """One target's files into `files`, checked and proved."""
    texts = _Texts(files, name)
    _emit_files(collector, project, name, texts)
    proof = prove(project, name, texts, matrix)
    if proof is None:
        return None
    if REPORT in texts:
        files[f"{name}/{REPORT}"] = with_proof(texts[REPORT], proof).encode("utf-8")
    return _proved(project, proof)


def _emit_files(collector: Collector, project: Translated, name: str, texts: _Texts) -> None:
    """Each file of the target, checked, into `texts`. A function of its own:
    the last file's text (the target's report, 6 MiB at 10,000 agents) is
    not held through the proof."""
    config = collector.config
    for rel, text in TARGETS[name].files(project, config.targets.get(name, {})):
        spec = _origin(project, name, rel)
        for problem in _check_emitted(collector, project, name, rel, text, spec):
            collector.add("emit", config.out / name / rel, problem)
        texts.add(rel, text)


class _Texts(Mapping[str, str]):
    """A target's emitted files as text, by path, for its proof: kept as the
    bytes to write (in `files`, by `<target>/<path>`) and decoded when read.
    Holding the text beside the bytes held every emitted file twice, and a
    decision model reads only the files it needs."""

    def __init__(self, files: Files, target: str) -> None:
        self._files = files
        self._prefix = f"{target}/"
        self._paths: list[str] = []

    def add(self, rel: str, text: str) -> None:
        key = self._prefix + rel
        if key not in self._files:
            self._paths.append(rel)
        self._files[key] = text.encode("utf-8")

    def __getitem__(self, rel: str) -> str:
        return self._files[self._prefix + rel].decode("utf-8")

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and self._prefix + rel in self._files

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def _check_emitted(
    collector: Collector, project: Project, target: str, rel: str, text: str, spec: Spec | None
) -> list[Problem]:
    """An emitted file against its format's schema, before anything is written.

    A failure is a promptc bug; for files whose spec already has errors it is
    not reported, since those errors explain it.
    """
    source = spec.source if spec is not None else None
    outputs = TARGETS[target].SCHEMAS
    problems = list(check_emitted(outputs, rel, text, collector.schemas, source))
    if not problems:  # nearly every file: no need to name its spec
        return []
    shown = collector.display(source.path) if source is not None else None
    if source is not None and (project.composition.failed(source.path) or collector.failed(shown)):
        return []
    origin = f"; generated from {shown}" if shown else ""
    return [
        replace(
            problem, message=f"{problem.message}{origin}. This is a promptc bug: please report it"
        )
        for problem in problems
    ]


def _origin(project: Project, target: str, rel: str) -> Spec | None:
    """The spec an emitted agent, command or skill file was generated from."""
    schema = output_schema(TARGETS[target].SCHEMAS, rel) or ""
    if "skill" in schema:
        name = rel.rsplit("/", 2)[-2]
        skill = project.skills.get(name)
        return skill.spec if skill else None
    specs = project.agents if "agent" in schema else project.modes if "command" in schema else {}
    # The longest id the path ends with, at a `/`: `team/reviewer`, else `reviewer`.
    parts = rel.removesuffix(".md").split("/")
    for start in range(len(parts)):
        spec = specs.get("/".join(parts[start:]))
        if spec is not None:
            return spec
    return None


@dataclass(frozen=True)
class Placed:
    """The generated files by their path under Config.base (the project root in
    the root layout, else `out`), the shared files among them (path -> the keys
    managed one level down: promptc_compiler.core.merge), and the target of each."""

    files: Mapping[str, bytes]
    shared: dict[str, tuple[str, ...]] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)


def place(config: Config, files: Mapping[str, bytes]) -> Placed:
    """Where each file (`<target>/<path>`) lands. In the root layout a target's
    project files (its ROOT paths) land at the project root, where the runtime
    reads them, and the rest (TRANSLATION.md, a plugin, an extension) under
    `<out>/<target>/`; two targets writing one path is a config error at
    `layout`."""
    if not config.at_root:
        return Placed(files, {}, {rel: rel.split("/", 1)[0] for rel in files})
    keys: dict[str, str] = {}  # path under Config.base -> `<target>/<path>`
    owners: dict[str, str] = {}
    shared: dict[str, tuple[str, ...]] = {}
    folder = _out_folder(config)
    for key in sorted(files):
        name, rel = key.split("/", 1)
        target = TARGETS[name]
        at_root = target.ROOT is not None and target.ROOT.fullmatch(rel) is not None
        path = rel if at_root else folder + key
        other = owners.get(path)
        if other is not None and other != name:
            raise config.fail(
                ("layout",),
                f"targets `{other}` and `{name}` both write `{path}` in the root layout; "
                'enable one of them, or use `layout = "out"`',
            )
        keys[path] = key
        owners[path] = name
        if at_root and rel in target.SHARED:
            shared[path] = target.SHARED[rel]
    return Placed(_Moved(files, keys), shared, owners)


class _Moved(Mapping[str, bytes]):
    """Files at other paths, read from where they are held (not copied: a
    build's are held packed, emitter.Files)."""

    def __init__(self, files: Mapping[str, bytes], keys: Mapping[str, str]) -> None:
        self._files = files
        self._keys = keys  # new path -> path in `files`

    def __getitem__(self, path: str) -> bytes:
        return self._files[self._keys[path]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _out_folder(config: Config) -> str:
    """`out` from the project root, as a path prefix (`build/`; "" for `out = "."`)."""
    rel = os.path.relpath(config.out, config.root).replace(os.sep, "/")
    return "" if rel == "." else rel + "/"


def owner(config: Config, path: str) -> str:
    """The target a path under Config.base belongs to (one it no longer generates
    too: the manifest's entries are answered for by their target)."""
    if not config.at_root:
        return path.split("/", 1)[0]
    folder = _out_folder(config)
    if path.startswith(folder):
        name = path[len(folder) :].split("/", 1)[0]
        if name in TARGETS:
            return name
    for name, target in TARGETS.items():
        if target.ROOT is not None and target.ROOT.fullmatch(path):
            return name
    return ""


def unmanaged(config: Config, names: Iterable[str], generated: Collection[str]) -> Iterator[str]:
    """Paths (under Config.base, sorted) of files in the output that promptc did not
    generate, where the target's runtime loads files from: the runtime would load them
    as if they were the bundle's. In the root layout a runtime's folders at the
    project root are the project's own too: only the targets written under
    `<out>/<target>/` (a plugin, an extension) are looked at."""
    prefix = _out_folder(config) if config.at_root else ""
    for name in names:
        target = TARGETS[name]
        if config.at_root and target.ROOT is not None:
            continue
        loaded = target.LOADED
        base = config.out / name
        # Each path by its text past `<base>/`, in POSIX form (a Path per file,
        # made relative, cost more than the walk).
        cut = len(os.path.join(base, ""))
        found = []
        for folder, _, files in os.walk(base):
            for file in files:
                rel = os.path.join(folder, file)[cut:].replace(os.sep, "/")
                if loaded.fullmatch(rel) and f"{prefix}{name}/{rel}" not in generated:
                    found.append(f"{prefix}{name}/{rel}")
        yield from sorted(found)


_Place = tuple[str, Path, int, int]  # rule, file, line, column
# The longest lost-tool line, its place and level included: one line per agent,
# whatever the targets; what each runtime takes is its detail (--verbose).
LOST_WIDTH = 120


@dataclass
class _Lost:
    """What the targets take from one agent: its kinds of tool, and each target's
    finding."""

    agent: str
    kinds: dict[str, None] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)


class _Proved(NamedTuple):
    """One target's proof, with the spec lines its findings stand at: worked out
    as the target is proved, so that its project need not be kept for them."""

    proof: Proof
    wider: tuple[tuple[_Place, str], ...]  # each refused permission's place and message
    lost: tuple[tuple[_Place, str, tuple[str, ...]], ...]  # place, agent, kinds


def _proved(project: Project, proof: Proof) -> _Proved:
    wider = tuple(
        (_wider_place(project, found[0]), _wider_message(proof, permission, found))
        for (_, permission), found in grouped(proof.refused).items()
    )
    lost = []
    for agent, kinds in proof.lost.items():
        spec = project.agents[agent]
        pos = spec.where("permission", key=True)
        lost.append((("lost-tool", spec.source.path, pos.line, pos.column), agent, kinds))
    return _Proved(proof, wider, tuple(lost))


def _report_proofs(collector: Collector, proofs: list[_Proved]) -> None:
    """Each refused widening an error, each lost tool a warning, at the spec line that
    says it; what several targets find at one place is one message."""
    found: dict[_Place, list[str]] = {}
    lost: dict[_Place, _Lost] = {}
    for proved in proofs:
        proof = proved.proof
        for place, message in proved.wider:
            found.setdefault(place, []).append(message)
        for place, agent, kinds in proved.lost:
            taken = lost.setdefault(place, _Lost(agent))
            taken.kinds.update(dict.fromkeys(kinds))
            taken.details.append(
                f"{proof.runtime} ({proof.target}): {', '.join(kinds)}: OpenCode lets "
                f"`{agent}` make such calls, the {proof.target} files none"
            )
    for (rule, path, line, column), messages in found.items():
        problem = Problem(line, column, " Also: ".join(messages), path=path)
        collector.add(rule, path, problem)
    for (rule, path, line, column), taken in lost.items():
        head = f"{collector.display(path)}:{line}:{column}: warning [{rule}] "
        message = _lost_message(taken, LOST_WIDTH - len(head))
        detail = "\n".join(taken.details)
        collector.add(rule, path, Problem(line, column, message, path=path, detail=detail))


def _lost_message(taken: _Lost, room: int) -> str:
    """The agent and the tools some target takes from it (which target: the
    detail), or how many when they do not fit in `room` characters."""
    message = f"`{taken.agent}` loses {', '.join(sorted(taken.kinds))}"
    return message if len(message) <= room else f"`{taken.agent}` loses {len(taken.kinds)} tools"


def _wider_place(project: Project, widening: Widening) -> _Place:
    """The OpenCode rule that decided the call, else the agent's `permission` key."""
    rule = next((r for r in widening.opencode.rules if r is not None), None)
    if rule is not None and rule.path is not None:
        return ("wider-translation", rule.path, rule.line, rule.column)
    spec = project.agents[widening.call.agent]
    pos = spec.where("permission", key=True)
    return ("wider-translation", spec.source.path, pos.line, pos.column)


def _wider_message(proof: Proof, permission: str, found: list[Widening]) -> str:
    first = found[0]
    opencode = first.opencode.action
    because = first.opencode.reason()
    more = f" and {len(found) - 1} more such call(s)" if len(found) > 1 else ""
    return (
        f"{proof.runtime} ({proof.target}) would {first.runtime.action} {_shown(first.call)}"
        f"{more}, which OpenCode {_verb(opencode)} ({because}): {first.runtime.why}. "
        f'Accept that on purpose with `accept_wider = ["{permission}"]` in '
        f"[targets.{proof.target}]"
    )


def _shown(call: Call) -> str:
    where = " as a subagent" if call.delegated else ""
    if call.input == "*":
        return f"`{call.agent}`{where} a `{call.permission}` call"
    return f"`{call.agent}`{where} `{call.permission}` `{call.input}`"


def _verb(action: str) -> str:
    return {"deny": "denies", "ask": "asks for", "allow": "allows"}[action]
