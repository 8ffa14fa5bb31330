"""Claude Code (claude 2.1.332) as a decision oracle.

(facts are filled in below as they are found)
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests import oracle
from tests.oracles import Attempt, OracleError, Outcome, Verdict, harness
from tests.oracles.server import ModelServer, Turn

TIMEOUT = 180

ENV = {
    "ANTHROPIC_API_KEY": "offline-oracle",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}

# The system prompt names the tools it defers: "... available via ToolSearch
# ... before calling them:\nCronCreate\nCronDelete\n...\n\n".
_DEFERRED = re.compile(r"deferred tools are now available via ToolSearch.*?:\n((?:\w+\n)+)", re.S)
_DENIED = re.compile(r"Permission to use \S+ .*(?:has been denied|denied by)", re.S)


def prepare(home: Path, project: Path) -> None:
    """A HOME where the project is trusted and onboarding is done."""
    state = home / ".claude.json"
    data = json.loads(state.read_text()) if state.exists() else {}
    data["hasCompletedOnboarding"] = True
    data.setdefault("projects", {})[str(project.resolve())] = {"hasTrustDialogAccepted": True}
    state.write_text(json.dumps(data))


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None) -> None:
        self.project, self.home, self.agent = project, home, agent

    def __call__(self, server: ModelServer, plan: harness.Plan) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project)
        env = {**oracle.scratch_env(self.home), **ENV, "ANTHROPIC_BASE_URL": server.url}
        args = [str(oracle.binary("claude")), "-p", harness.PROMPT, "--output-format", "json"]
        if self.agent:
            args += ["--agent", self.agent]
        try:
            return oracle.capture(args, self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"claude did not finish in {TIMEOUT} s") from error


def _denials(stdout: str) -> set[str]:
    """The ids of the calls Claude's JSON output lists as not run."""
    try:
        found = json.loads(stdout).get("permission_denials", [])
    except (json.JSONDecodeError, AttributeError):
        return set()
    return {d.get("tool_use_id", "") for d in found}


def classify(seen: harness.Evidence) -> Verdict:
    """A call in `permission_denials` did not run: refused when a rule denied
    it, asked otherwise (Claude auto-denies what would need the user)."""
    if seen.call_id not in _denials(seen.process.stdout):
        return "ran"
    return "refused" if _DENIED.search(seen.result) else "asked"


def _prelude(attempt: Attempt, turn: Turn) -> Attempt | None:
    """Load a deferred tool (WebFetch, WebSearch, NotebookEdit, ...) first."""
    listed = _DEFERRED.search(_system_text(turn))
    if attempt.tool in turn.tools or not listed or attempt.tool not in listed[1].split():
        return None
    return Attempt("ToolSearch", {"query": f"select:{attempt.tool}"})


def _system_text(turn: Turn) -> str:
    system = turn.body.get("system", "")
    if isinstance(system, str):
        return system
    return "\n".join(block.get("text", "") for block in system if isinstance(block, dict))


def _creates(attempt: Attempt) -> Path | None:
    if attempt.tool == "Write":
        return Path(attempt.arguments["file_path"])
    return None


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    arguments = {
        "description": "oracle",
        "prompt": prompt,
        "subagent_type": agent,
        "run_in_background": False,
    }
    return (Attempt("Agent", arguments),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="claude-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent),
            classify=classify,
            spawn=_spawn,
            id_prefix="toolu_",
            prelude=_prelude,
            creates=_creates,
        )
        return harness.decide(driver, attempts, agent, delegate)
