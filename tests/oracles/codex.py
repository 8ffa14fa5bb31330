"""Codex CLI (codex 0.171.0) as a decision oracle.

(facts below)
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests import oracle
from tests.oracles import Attempt, OracleError, Outcome, Verdict, harness
from tests.oracles.server import ModelServer, Turn

TIMEOUT = 180
MODEL = "gpt-5.5"


def prepare(home: Path, project: Path, url: str, model: str = MODEL) -> None:
    """$CODEX_HOME/config.toml: the mock provider, the project trusted."""
    folder = home / ".codex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        f'model = "{model}"\n'
        'model_provider = "mock"\n'
        'sandbox_mode = "workspace-write"\n'
        "check_for_update_on_startup = false\n\n"
        "[analytics]\nenabled = false\n\n"
        "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n\n"
        "[model_providers.mock]\n"
        f'name = "mock"\nbase_url = "{url}/v1"\nwire_api = "responses"\n'
        'env_key = "ORACLE_API_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
        "supports_websockets = false\n\n"
        f'[projects.{json.dumps(str(project.resolve()))}]\ntrust_level = "trusted"\n'
    )


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None) -> None:
        self.project, self.home, self.agent = project, home, agent

    def __call__(self, server: ModelServer, plan: harness.Plan) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project, server.url)
        env = {
            **oracle.scratch_env(self.home),
            "CODEX_HOME": str(self.home / ".codex"),
            "ORACLE_API_KEY": "offline-oracle",
        }
        args = [str(oracle.binary("codex")), "exec", "--skip-git-repo-check", "--json"]
        try:
            return oracle.capture([*args, harness.PROMPT], self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"codex did not finish in {TIMEOUT} s") from error


def classify(seen: harness.Evidence) -> Verdict:
    text = seen.result
    if "approval required" in text or "AskForApproval" in text:
        return "asked"
    if "rejected" in text or "forbids" in text:
        return "refused"
    return "ran"


def _prelude(attempt: Attempt, turn: Turn) -> Attempt | None:
    """Load a deferred tool (the agent tools, for a known model) first."""
    if attempt.tool in turn.tools or "tool_search" not in turn.tools:
        return None
    return Attempt("tool_search", {"query": attempt.tool})


def _fill(attempt: Attempt, turn: Turn) -> Attempt:
    """wait_agent waits for the agents spawn_agent started in this turn."""
    if attempt.tool != "wait_agent" or "targets" in attempt.arguments:
        return attempt
    spawned = [
        json.loads(r.text)["agent_id"] for r in turn.results if r.text.startswith('{"agent_id"')
    ]
    return Attempt(attempt.tool, {**attempt.arguments, "targets": spawned})


def _spawn(agent: str) -> tuple[Attempt, ...]:
    message = f"{harness.MARKER}: do the task."
    return (
        Attempt("tool_search", {"query": "spawn_agent wait_agent"}),
        Attempt("spawn_agent", {"agent_type": agent, "message": message, "task_name": "oracle"}),
        Attempt("wait_agent", {"timeout_ms": 60000}),
    )


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="codex-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent),
            classify=classify,
            spawn=_spawn,
            prelude=_prelude,
            fill=_fill,
        )
        return harness.decide(driver, attempts, agent, delegate)
