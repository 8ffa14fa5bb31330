"""OpenCode (opencode 1.18.33) as a decision oracle.

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
from tests.oracles.server import MODEL, ModelServer

TIMEOUT = 240

ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
}


def prepare(home: Path, url: str) -> None:
    """The scratch HOME's global config: the mock provider, as the default model."""
    folder = home / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "options": {"baseURL": f"{url}/v1", "apiKey": "offline-oracle"},
        "models": {MODEL: {"tool_call": True}},
    }
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"mock": provider},
        "model": f"mock/{MODEL}",
        "small_model": f"mock/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        # An auto-rejected ask ends the run unless this is set; a deny does not.
        "experimental": {"continue_loop_on_deny": True},
    }
    (folder / "opencode.json").write_text(json.dumps(config))


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None) -> None:
        self.project, self.home, self.agent = project, home, agent

    def __call__(self, server: ModelServer, plan: harness.Plan) -> subprocess.CompletedProcess[str]:
        prepare(self.home, server.url)
        env = {**oracle.scratch_env(self.home), **ENV}
        args = [str(oracle.binary("opencode")), "run", "--format", "json", "-m", f"mock/{MODEL}"]
        args += ["--title", "oracle"]
        if self.agent:
            args += ["--agent", self.agent]
        try:
            return oracle.capture([*args, harness.PROMPT], self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"opencode did not finish in {TIMEOUT} s") from error


def classify(seen: harness.Evidence) -> Verdict:
    text = seen.result
    if "rejected permission" in text or "auto-reject" in text:
        return "asked"
    if "prevents you from using" in text or "denied" in text:
        return "refused"
    return "ran"


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    return (Attempt("task", {"description": "oracle", "prompt": prompt, "subagent_type": agent}),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="opencode-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent),
            classify=classify,
            spawn=_spawn,
        )
        return harness.decide(driver, attempts, agent, delegate)
