"""GitHub Copilot CLI (copilot 1.0.102) as a decision oracle.

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
from tests.oracles.server import ModelServer

TIMEOUT = 240
MODEL = "gpt-4.1"
PACKAGES = Path(__file__).resolve().parents[2] / ".pytest_cache" / "copilot-pkg"
"""Where the binary unpacks its ~235 MB package, once for every run."""


def prepare(home: Path, project: Path) -> None:
    folder = home / ".copilot"
    folder.mkdir(parents=True, exist_ok=True)
    config = {"trusted_folders": [str(project.resolve())], "auto_update": False, "banner": "never"}
    (folder / "config.json").write_text(json.dumps(config))


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None, flags: Sequence[str]) -> None:
        self.project, self.home, self.agent, self.flags = project, home, agent, flags

    def __call__(self, server: ModelServer, plan: harness.Plan) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project)
        env = {
            **oracle.scratch_env(self.home),
            "COPILOT_PROVIDER_BASE_URL": f"{server.url}/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "offline-oracle",
            "COPILOT_MODEL": MODEL,
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_HOME": str(self.home / ".copilot"),
            "COPILOT_PKG_CACHE_HOME": str(PACKAGES),
        }
        args = [str(oracle.binary("copilot")), "-p", harness.PROMPT, "--output-format", "json"]
        args += ["--no-auto-update", "--disable-client-telemetry", *self.flags]
        if self.agent:
            args += ["--agent", self.agent]
        try:
            return oracle.capture(args, self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"copilot did not finish in {TIMEOUT} s") from error


def classify(seen: harness.Evidence) -> Verdict:
    text = seen.result
    if "no interactive user response" in text:
        return "asked"
    if "denied" in text.lower():
        return "refused"
    return "ran"


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    arguments = {"description": "oracle", "prompt": prompt, "agent_type": agent, "name": "oracle"}
    return (Attempt("task", arguments),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
    flags: Sequence[str] = (),
) -> list[Outcome]:
    """`flags`: Copilot's permission rules, which are command-line flags
    (`--allow-tool 'shell(git status:*)'`, `--deny-tool ...`)."""
    PACKAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="copilot-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent, flags),
            classify=classify,
            spawn=_spawn,
        )
        return harness.decide(driver, attempts, agent, delegate)
