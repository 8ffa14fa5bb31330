"""The translation proves itself: every call of the matrix, OpenCode against the runtime.

For a target whose runtime has a decision model (promptc_compiler.runtimes.adapter), the files
the target emitted are read back by that model, and each call of the matrix
(promptc_compiler.permissions.calls) is decided twice: by OpenCode from the specs, by the runtime
from the files. A call the runtime decides more permissively (deny < ask <
allow) is a widening: an error (`wider-translation`), unless the target's
`accept_wider` lists its permission, and then an accepted widening that every
build shows first. A tool the agent can use in OpenCode (some call allowed or
asked) and cannot use at all in the runtime is lost (`lost-tool`, a warning).
The usable share is, of the calls OpenCode lets an agent make, the part the
runtime still lets it make.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from promptc_compiler.permissions import calls
from promptc_compiler.permissions.calls import RANK, Asked, Call, Decided, Model, Verdict
from promptc_compiler.runtimes import MODELS
from promptc_compiler.runtimes.translations import Translated

# What an agent can do, by the permissions whose calls do it; named as the
# build summary names them.
KINDS = {
    "bash": "shell",
    "edit": "edit",
    "read": "read",
    "glob": "search",
    "grep": "search",
    "list": "search",
    "webfetch": "web",
    "websearch": "web",
    "task": "delegation",
    "skill": "skills",
}


class Widening(NamedTuple):
    call: Call
    opencode: Decided
    runtime: Verdict
    accepted: bool


@dataclass(frozen=True)
class Proof:
    target: str
    runtime: str
    agents: int
    calls: int
    usable: int  # calls OpenCode allows or asks
    kept: int  # of those, the calls the runtime still allows or asks
    wider: tuple[Widening, ...] = ()
    lost: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # agent -> kinds

    @property
    def refused(self) -> tuple[Widening, ...]:
        return tuple(w for w in self.wider if not w.accepted)

    @property
    def accepted(self) -> tuple[Widening, ...]:
        return tuple(w for w in self.wider if w.accepted)

    def summary(self) -> str:
        """One line: `gemini: 14 agents; 8 lost shell, 7 lost edit; 61% usable`."""
        counts: dict[str, int] = {}
        for kinds in self.lost.values():
            for kind in kinds:
                counts[kind] = counts.get(kind, 0) + 1
        parts = [f"{self.agents} agents"]
        losses = ", ".join(f"{n} lost {kind}" for kind, n in sorted(counts.items()))
        parts.append(losses or "no tool lost")
        share = 100 * self.kept // self.usable if self.usable else 100
        parts.append(f"{share}% of {self.usable} usable calls kept")
        if self.accepted:
            parts.append(f"{len(self.accepted)} ACCEPTED WIDER calls")
        if self.refused:
            parts.append(f"{len(self.refused)} wider calls refused")
        return f"{self.target}: " + "; ".join(parts)


class Matrix:
    """A run's call matrix with OpenCode's decisions, for the proofs of every target.

    Agents whose rules deciding a permission have one value are asked the same
    calls of it and decided alike (promptc_compiler.permissions.calls.grouped): each
    distinct (rules, call) is decided once, by the first such agent, and a widening
    shows the rules of the agent it is about. The agents and their groups are the
    run's (its Translations), as every target's proof reads the same OpenCode agents.
    """

    def __init__(self) -> None:
        self._decided: dict[Asked, tuple[Decided, ...]] = {}
        self._lines: dict[str, calls.Line] = {}  # command lines split, for every agent

    def agents(self, project: Translated) -> tuple[tuple[str, tuple[Asked, ...]], ...]:
        return project.translations.grouped

    def decided(self, project: Translated, asked: Asked) -> tuple[Decided, ...]:
        """OpenCode's decision of each of the group's calls, for its first agent."""
        found = self._decided.get(asked)
        if found is None:
            runtime = project.translations.call_agents
            found = self._decided[asked] = tuple(
                calls.decide(runtime, self.call(asked, asked.agent, text), self._lines)
                for text in asked.inputs
            )
        return found

    @staticmethod
    def call(asked: Asked, agent: str, text: str) -> Call:
        return Call(agent, asked.permission, text, asked.delegated)

    def own(self, project: Translated, asked: Asked, agent: str) -> Callable[[Decided], Decided]:
        """The group's first agent's decisions as `agent`'s: with its own rules, at
        the same places in its rules deciding the permission (their values are
        equal)."""
        if agent == asked.agent:
            return lambda decided: decided
        agents = project.translations.call_agents.agents
        first, mine = (
            calls.deciding(agents[name].effective(asked.delegated), asked.permission)
            for name in (asked.agent, agent)
        )
        # The last place of a rule: evaluate reads the list from its end.
        place = {id(rule): i for i, rule in enumerate(first)}
        return lambda decided: replace(
            decided, rules=tuple(None if r is None else mine[place[id(r)]] for r in decided.rules)
        )


class _Found(NamedTuple):
    """What one group of calls comes to for agents the model decides alike."""

    usable: int
    kept: int  # the runtime still allows or asks
    wider: tuple[int, ...]  # the calls the runtime decides more permissively

    @property
    def keeps(self) -> bool:
        """The runtime keeps some usable call of the group."""
        return self.kept > 0


def prove(
    project: Translated, target: str, files: Mapping[str, str], matrix: Matrix | None = None
) -> Proof | None:
    """The proof of one target's files (by path under `<out>/<target>/`), or None
    when its runtime has no decision model; `matrix` is the run's, shared by its
    targets (a new one when not given)."""
    found = MODELS.get(target)
    if found is None:
        return None
    runtime_name, load = found
    model = load(files)
    matrix = matrix or Matrix()
    options = project.config.targets.get(target, {})
    accepted = frozenset(options.get("accept_wider", ()))
    wider: list[Widening] = []
    usable = kept = count = agents = 0
    usable_kinds: dict[tuple[str, str], bool] = {}  # (agent, kind) -> the runtime keeps some
    # Agents the model decides alike, asked the same group: the same actions.
    seen: dict[tuple[Hashable, Asked], _Found] = {}
    for agent, groups in matrix.agents(project):
        alike = model.alike(agent)
        for asked in groups:
            group = seen.get((alike, asked))
            if group is None:
                group = seen[alike, asked] = _found(matrix, project, model, agent, asked)
            usable += group.usable
            kept += group.kept
            count += len(asked.inputs)
            kind = KINDS.get(asked.permission)
            if kind is not None and group.usable:
                usable_kinds[agent, kind] = usable_kinds.get((agent, kind), False) or group.keeps
            if group.wider:
                wider += _widened(matrix, project, model, agent, asked, group.wider, accepted)
        agents += any(asked.inputs for asked in groups)
    return Proof(
        target, runtime_name, agents, count, usable, kept, tuple(wider), _lost(usable_kinds)
    )


def _widened(
    matrix: Matrix,
    project: Translated,
    model: Model,
    agent: str,
    asked: Asked,
    indices: tuple[int, ...],
    accepted: frozenset[str],
) -> Iterator[Widening]:
    """The group's wider calls as this agent's: OpenCode's decisions with its own
    rules, the runtime's reasons from its own files."""
    own = matrix.own(project, asked, agent)
    decided = matrix.decided(project, asked)
    for i in indices:
        call = Matrix.call(asked, agent, asked.inputs[i])
        yield Widening(call, own(decided[i]), model.decide(call), asked.permission in accepted)


def _found(matrix: Matrix, project: Translated, model: Model, agent: str, asked: Asked) -> _Found:
    decided = matrix.decided(project, asked)
    usable = kept = 0
    wider = []
    for i, (text, opencode) in enumerate(zip(asked.inputs, decided, strict=True)):
        verdict = model.decide(Matrix.call(asked, agent, text))
        if RANK[verdict.action] > RANK[opencode.action]:
            wider.append(i)
        if opencode.action != "deny":
            usable += 1
            kept += verdict.action != "deny"
    return _Found(usable, kept, tuple(wider))


def _lost(usable_kinds: Mapping[tuple[str, str], bool]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for (agent, kind), keeps in sorted(usable_kinds.items()):
        if not keeps:
            found.setdefault(agent, []).append(kind)
    return {agent: tuple(kinds) for agent, kinds in found.items()}


def grouped(wider: Iterable[Widening]) -> dict[tuple[str, str], list[Widening]]:
    """Widenings by (agent, permission): one message each."""
    found: dict[tuple[str, str], list[Widening]] = {}
    for widening in wider:
        found.setdefault((widening.call.agent, widening.call.permission), []).append(widening)
    return found


def lines(proofs: Iterable[Proof]) -> tuple[str, ...]:
    """What a build prints of its proofs: the accepted widenings first (one line per
    target and permission), then each target's summary."""
    proofs = list(proofs)
    accepted = []
    for proof in proofs:
        by_permission: dict[str, list[Widening]] = {}
        for widening in proof.accepted:
            by_permission.setdefault(widening.call.permission, []).append(widening)
        for permission, found in by_permission.items():
            agents = sorted({w.call.agent for w in found})
            first = found[0]
            accepted.append(
                f"{proof.target}: accepted wider `{permission}`: {proof.runtime} lets "
                f"{_agents(agents)} make {len(found)} call(s) OpenCode does not allow, e.g. "
                f"`{first.call.agent}` `{first.call.input}`: {first.runtime.why}"
            )
    return (*accepted, *(proof.summary() for proof in proofs))


def _agents(names: list[str]) -> str:
    if len(names) == 1:
        return f"`{names[0]}`"
    if len(names) <= 3:
        return ", ".join(f"`{n}`" for n in names)
    return f"{len(names)} agents"


_VERB = {"allow": "allows", "ask": "asks", "deny": "denies"}


def with_proof(report: str, proof: Proof) -> str:
    """A target's TRANSLATION.md with what the proof found, before its first section:
    accepted widenings first, then the figures and the tools lost."""
    head, sep, rest = report.partition("\n## ")
    return f"{head.rstrip()}\n\n{section(proof)}{sep.lstrip(chr(10))}{rest}"


def section(proof: Proof) -> str:
    lines = ["## Decided call by call", ""]
    accepted = grouped(proof.accepted)
    if accepted:
        intro = (
            f"ACCEPTED WIDENINGS ({len(proof.accepted)} calls): the config's `accept_wider` "
            f"lets {proof.runtime} decide these more permissively than OpenCode:"
        )
        lines += [*textwrap.wrap(intro, 96, break_on_hyphens=False), ""]
        for (agent, permission), found in accepted.items():
            first = found[0]
            item = (
                f"- `{agent}`, `{permission}`: {len(found)} call(s), e.g. `{first.call.input}`: "
                f"OpenCode {_VERB[first.opencode.action]} ({first.opencode.reason()}), "
                f"{proof.runtime} {_VERB[first.runtime.action]} ({first.runtime.why})"
            )
            lines += textwrap.wrap(item, 96, subsequent_indent="  ", break_on_hyphens=False)
        lines.append("")
    share = 100 * proof.kept // proof.usable if proof.usable else 100
    figures = (
        f"promptc decided {proof.calls} calls of the bundle's {proof.agents} agents twice, as "
        f"OpenCode does from the specs and as {proof.runtime} does from these files: "
        f"{len(proof.refused)} wider, {len(proof.accepted)} accepted wider; of the "
        f"{proof.usable} calls OpenCode allows or asks, {proof.kept} ({share}%) are still "
        "allowed or asked here."
    )
    lines += textwrap.wrap(figures, 96, break_on_hyphens=False)
    if proof.lost:
        lines += ["", "Tools an agent can use in OpenCode and not here:", ""]
        lines += [f"- `{agent}`: {', '.join(kinds)}" for agent, kinds in proof.lost.items()]
    return "\n".join(lines) + "\n\n"
