"""What every runtime driver shares: the script of a run, reading its outcomes,
and running the CLI again for the calls a run left undecided.

A run's script is a `Plan`: the conversation that makes the calls (the main
session, or with delegation the subagent's own conversation, recognised by
MARKER in its prompt) answers a fresh turn with the first attempt whose tool
is offered and each tool result with the next one; an attempt whose tool is
not offered is skipped, so the model never calls a tool the CLI did not
offer. With delegation, the main session first makes the `spawn` calls (the
runtime's delegation tool, with MARKER in the prompt), one per tool result,
then ends with a text. The call ids carry the attempt's index, so the results
are matched back to attempts whatever order or repetition the CLI sends.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.oracles import Attempt, OracleError, Outcome, Verdict
from tests.oracles.server import Call, Exchange, ModelServer, Reply, Turn, serve

MARKER = "ORACLESUBAGENT"
"""The word the delegated prompt carries: the subagent's conversation has it
in its own user text, the main session's has it only inside a tool call."""

QUIET = "ORACLEQUIET"
"""The word in the prompt of a subagent an attempt starts (OpenCode's `task`
permission): that conversation only answers "done", so the subagent neither
makes the attempts nor delegates again."""

PROMPT = "Do the task."
"""The main session's prompt."""

CONTENT = "written by an oracle\n"
"""What an edit attempt writes."""

_ID = re.compile(r"oracle_([aps])(\d+)$")

Prelude = Callable[[Attempt, Turn], Attempt | None]
"""A call that makes a tool available before the attempt on it (Claude's
ToolSearch for a deferred tool), or None when none is needed."""


Fill = Callable[[Attempt, Turn], Attempt]
"""The call as made in this turn: arguments that depend on earlier results
(the id of the agent Codex spawned, for the wait)."""


def _no_prelude(_attempt: Attempt, _turn: Turn) -> Attempt | None:
    return None


def _as_is(attempt: Attempt, _turn: Turn) -> Attempt:
    return attempt


@dataclass(frozen=True)
class Plan:
    """The script of one run (a `server.Script`)."""

    attempts: tuple[Attempt, ...]
    spawn: tuple[Attempt, ...] = ()
    id_prefix: str = "call_"
    prelude: Prelude = _no_prelude
    fill: Fill = _as_is

    def attempting(self, turn: Turn) -> bool:
        """Whether this turn belongs to the conversation that makes the attempts."""
        if QUIET in turn.user_text:
            return False
        if not self.spawn:
            return True
        spawned = any((m := _ID.search(r.call_id)) and m[1] == "s" for r in turn.results)
        return MARKER in turn.user_text and not spawned

    def __call__(self, turn: Turn) -> Reply:
        if QUIET in turn.user_text:
            return "done"
        if self.attempting(turn):
            return self._next(turn, self.attempts, "a")
        return self._next(turn, self.spawn, "s")

    def _next(self, turn: Turn, calls: Sequence[Attempt], kind: str) -> Reply:
        answered = {(m[1], int(m[2])) for r in turn.results if (m := _ID.search(r.call_id))}
        for index, attempt in enumerate(calls):
            if (kind, index) in answered:
                continue
            first = self.prelude(attempt, turn) if kind == "a" else None
            if first is not None and ("p", index) not in answered and first.tool in turn.tools:
                return Call(first, f"{self.id_prefix}oracle_p{index}")
            if attempt.tool in turn.tools:
                return Call(self.fill(attempt, turn), f"{self.id_prefix}oracle_{kind}{index}")
        return "done"


SECRET = "oracle-secret-4f1c"
"""The value in a scratch project's `.env`: a command output holding it read the file."""


def scratch_project(folder: Path, files: Mapping[str, str]) -> Path:
    """A project to run a CLI in: `files` (relative path -> text), a `.env`
    holding SECRET, and a git repository (the runtimes look for one)."""
    for rel, text in {".env": f"SECRET={SECRET}\n", **files}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=30)
    return folder.resolve()


def inside(value: str, project: Path) -> Path:
    """An attempt's path: relative ones are taken from the project folder."""
    path = Path(value)
    return path if path.is_absolute() else project.resolve() / path


@dataclass(frozen=True)
class Seen:
    """What a run's log shows of the attempting conversation."""

    results: Mapping[int, tuple[str, str]]
    """Attempt index -> (call id, the result text the CLI sent back)."""
    offered: frozenset[str]
    """Every tool offered to it."""
    turns: int
    """How many model calls it made (0: the conversation never started)."""


def seen(exchanges: Sequence[Exchange], plan: Plan) -> Seen:
    """Read a run's log. A subagent given no tool at all still counts: its
    requests are side requests (no tools), but they carry MARKER."""
    found: dict[int, tuple[str, str]] = {}
    offered: set[str] = set()
    turns = 0
    for exchange in exchanges:
        turn = exchange.turn
        toolless_subagent = bool(plan.spawn) and MARKER in turn.user_text
        if not plan.attempting(turn) or (turn.side and not toolless_subagent):
            continue
        turns += 1
        offered.update(turn.tools)
        for result in turn.results:
            match = _ID.search(result.call_id)
            if match and match[1] == "a":
                found.setdefault(int(match[2]), (result.call_id, result.text))
    return Seen(found, frozenset(offered), turns)


@dataclass(frozen=True)
class Evidence:
    """What one run shows of one call: the result text the CLI sent back for
    it, the call's id, and the CLI's own output."""

    attempt: Attempt
    result: str
    call_id: str
    process: subprocess.CompletedProcess[str]


Classify = Callable[[Evidence], Verdict]
Launch = Callable[[ModelServer, Plan], subprocess.CompletedProcess[str]]


@dataclass(frozen=True)
class Driver:
    """How one runtime is driven: launch the CLI, read a result text."""

    launch: Launch
    classify: Classify
    spawn: Callable[[str], tuple[Attempt, ...]]
    """The main session's calls that start the named subagent."""
    id_prefix: str = "call_"
    prelude: Prelude = _no_prelude
    fill: Fill = _as_is
    creates: Callable[[Attempt], Path | None] = lambda _attempt: None
    """The file an attempt creates when it runs, to cross-check the verdict."""


def decide(
    driver: Driver, attempts: Sequence[Attempt], agent: str | None, delegate: bool
) -> list[Outcome]:
    """Run the CLI until every attempt is decided; one run when it goes on
    after a refusal, one more for the rest whenever a run stops early."""
    if delegate and agent is None:
        raise ValueError("delegate=True needs the subagent's name")
    spawn = driver.spawn(agent) if delegate and agent else ()
    decided: dict[int, Outcome] = {}
    todo = list(range(len(attempts)))
    while todo:
        plan = Plan(
            tuple(attempts[i] for i in todo), spawn, driver.id_prefix, driver.prelude, driver.fill
        )
        fresh = _one_run(driver, plan)  # decides at least one call, or raises
        decided.update((todo[i], outcome) for i, outcome in fresh.items())
        todo = [i for i in todo if i not in decided]
    return [decided[i] for i in range(len(attempts))]


def _one_run(driver: Driver, plan: Plan) -> dict[int, Outcome]:
    before = {i: _exists(driver.creates(a)) for i, a in enumerate(plan.attempts)}
    with serve(plan) as server:
        start = time.monotonic()
        done = driver.launch(server, plan)
        elapsed = time.monotonic() - start
        exchanges = server.exchanges()
    log = seen(exchanges, plan)
    if not log.turns:
        raise OracleError(_report("no conversation made the attempts", done, exchanges, elapsed))
    found: dict[int, Outcome] = {}
    for index, attempt in enumerate(plan.attempts):
        if index in log.results:
            call_id, text = log.results[index]
            verdict = driver.classify(Evidence(attempt, text, call_id, done))
            _cross_check(driver, attempt, verdict, before[index], done, exchanges, elapsed)
            found[index] = Outcome(attempt, verdict, text)
        elif attempt.tool not in log.offered:
            found[index] = Outcome(attempt, "absent", "")
        else:
            break  # the run stopped at this call: the next run starts here
    if not found:
        raise OracleError(_report("the run decided nothing", done, exchanges, elapsed))
    return found


def _exists(path: Path | None) -> bool | None:
    return None if path is None else path.exists()


def _cross_check(
    driver: Driver,
    attempt: Attempt,
    verdict: Verdict,
    before: bool | None,
    done: subprocess.CompletedProcess[str],
    exchanges: Sequence[Exchange],
    elapsed: float,
) -> None:
    """A call that created a file ran, whatever its result text says."""
    if before is not False:
        return
    created = _exists(driver.creates(attempt))
    if created != (verdict == "ran"):
        what = (
            f"{attempt} was judged {verdict!r} but its file {'is' if created else 'is not'} there"
        )
        raise OracleError(_report(what, done, exchanges, elapsed))


def _report(
    what: str,
    done: subprocess.CompletedProcess[str],
    exchanges: Sequence[Exchange],
    elapsed: float,
) -> str:
    turns = [
        f"  {e.turn.protocol} side={e.turn.side} tools={','.join(e.turn.tools):.300} "
        f"results={[r.text[:200] for r in e.turn.results]} -> {e.reply!r:.200}"
        for e in exchanges
    ]
    return (
        f"{what} ({elapsed:.1f} s, exit {done.returncode})\n"
        f"requests:\n"
        + "\n".join(turns)
        + f"\nstdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}"
    )
