"""Delegation: who can start whom through OpenCode's task tool, and why.

When an edge exists, and why a graph doubles as an audit: docs/delegation.md.
A subagent's rules end with `task: deny` unless they mention `task`
(runtime.Agent.session_rules).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from promptc_compiler.permissions.ruleset import Decision, Rule, evaluate, reaching
from promptc_compiler.permissions.runtime import Agent, Runtime


class Edge(NamedTuple):
    source: Agent
    target: Agent
    decision: Decision  # allow or ask

    @property
    def nested(self) -> bool:
        """Started from a subagent session: refused at OpenCode's default depth."""
        return self.source.runs_as_subagent


def can_start(source: Agent, target: Agent) -> Decision:
    return evaluate(source.task_rules, "task", target.name)


def offered(runtime: Runtime) -> list[Agent]:
    """Agents the task tool can offer at all (mode is not primary)."""
    return list(runtime.offered)


def edges_from(runtime: Runtime, source: Agent) -> Iterator[Edge]:
    for target in _maybe_started(runtime, source):
        decision = can_start(source, target)
        if decision.action != "deny":
            yield Edge(source, target, decision)


def _maybe_started(runtime: Runtime, source: Agent) -> Sequence[Agent]:
    """The offered agents whose decision may not be deny, in order: when the rules
    deny every name but a few they spell out, just those (a bundle of subagents
    with `task: deny` then costs nothing per pair)."""
    names = reaching(source.task_rules, "task", ("allow", "ask"))
    if names is None:
        return runtime.offered
    found = [hit for name in names for hit in runtime.offered_by_name.get(name, ())]
    return [agent for _, agent in sorted(found, key=lambda hit: hit[0])]


def starters(runtime: Runtime) -> list[Agent]:
    """The bundle's agents a user can pick directly (mode primary or all)."""
    return [a for a in runtime.bundle_agents() if a.mode != "subagent"]


class Graph(NamedTuple):
    nodes: tuple[Agent, ...]
    edges: tuple[Edge, ...]
    unreachable: tuple[Agent, ...]  # bundle subagents no bundle primary can start


def graph(runtime: Runtime) -> Graph:
    """Edges from every bundle agent; OpenCode's own agents appear only when reached."""
    bundle = runtime.bundle_agents()
    edges = [e for a in bundle for e in edges_from(runtime, a)]
    reached = {e.target.name for e in edges if not e.nested}
    targets = {e.target.name for e in edges}
    nodes = sorted(bundle, key=lambda a: a.mode == "subagent")  # stable: the others first
    nodes += [a for a in offered(runtime) if a.native and a.name in targets]
    # With no primary of its own, a bundle relies on OpenCode's build and plan.
    starts = bool(starters(runtime))
    unreachable = [a for a in bundle if a.mode == "subagent" and a.name not in reached and starts]
    return Graph(tuple(nodes), tuple(edges), tuple(unreachable))


Display = Callable[[Path], str]


def where(rule: Rule | None, display: Display, column: bool = True) -> str:
    """`specs/agents/x.md:12:5` for a written rule, else where OpenCode got it."""
    if rule is None:
        return "OpenCode's fallback (no rule matched)"
    origin = rule.origin
    if origin.path is None:
        return origin.label
    tail = f":{origin.column}" if column else ""
    return f"{display(origin.path)}:{origin.line}{tail}"


def render(result: Graph, fmt: str, display: Display) -> str:
    return {"text": _text, "mermaid": _mermaid, "dot": _dot}[fmt](result, display)


def _role(agent: Agent) -> str:
    role = agent.mode if agent.mode != "all" else "primary and subagent"
    return f"{role}, built-in" if agent.native else role


def _text(result: Graph, display: Display) -> str:
    lines: list[str] = []
    for node in result.nodes:
        out = [e for e in result.edges if e.source is node]
        if not out:
            continue
        lines.append(f"{node.name} ({_role(node)})")
        if node.runs_as_subagent:
            lines.append("  (nested: OpenCode's default subagent_depth of 1 refuses these)")
        width = max((len(e.target.name) for e in out), default=0)
        for edge in out:
            rule = edge.decision.rule
            text = rule.text() if rule else "ask"
            lines.append(
                f"  -> {edge.target.name.ljust(width)}  {edge.decision.action:5}  "
                f"{where(rule, display)}  {text}"
            )
    if result.unreachable:
        names = ", ".join(a.name for a in result.unreachable)
        lines.append(f"no primary can start: {names}")
    if not lines:
        lines.append("no agent of the bundle can start another through the task tool")
    return "\n".join(lines) + "\n"


def _ids(result: Graph) -> dict[str, str]:
    ids: dict[str, str] = {}
    for node in result.nodes:
        base = "".join(c if c.isalnum() else "_" for c in node.name) or "agent"
        candidate = f"a_{base}"
        n = 2
        while candidate in ids.values():
            candidate = f"a_{base}_{n}"
            n += 1
        ids[node.name] = candidate
    return ids


def _label(edge: Edge, display: Display) -> str:
    return f"{edge.decision.action} {where(edge.decision.rule, display, column=False)}"


def _mermaid(result: Graph, display: Display) -> str:
    ids = _ids(result)
    lines = ["flowchart LR"]
    for node in result.nodes:
        name = node.name + (" (built-in)" if node.native else "")
        shape = f'(["{name}"])' if node.mode != "subagent" else f'["{name}"]'
        lines.append(f"  {ids[node.name]}{shape}")
    for edge in result.edges:
        arrow = "-.->" if edge.decision.action == "ask" or edge.nested else "-->"
        label = _label(edge, display).replace('"', "#quot;")
        lines.append(f'  {ids[edge.source.name]} {arrow}|"{label}"| {ids[edge.target.name]}')
    return "\n".join(lines) + "\n"


def _dot(result: Graph, display: Display) -> str:
    lines = ["digraph delegation {", "  rankdir=LR;"]
    for node in result.nodes:
        shape = "box" if node.mode != "subagent" else "ellipse"
        style = ', style="dashed"' if node.native else ""
        lines.append(f"  {_dq(node.name)} [shape={shape}{style}];")
    for edge in result.edges:
        style = ', style="dashed"' if edge.decision.action == "ask" or edge.nested else ""
        label = _dq(_label(edge, display))
        lines.append(
            f"  {_dq(edge.source.name)} -> {_dq(edge.target.name)} [label={label}{style}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dq(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
