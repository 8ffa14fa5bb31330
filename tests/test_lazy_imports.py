"""What a run imports: modules only some bundles need load only when those bundles run.

Measured as behaviour (the modules a fresh process has loaded), never as time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """\
import sys
from compiler.entry import main
code = main(sys.argv[1:])
print(code, *sorted(m for m in sys.modules if m in {watched!r}))
"""

# The Claude translation: only a bundle with a Claude target (or plugin) needs it.
TRANSLATION = ("compiler.translate", "compiler.translation_report", "compiler.claude_rules")


def _loaded(folder: Path, *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(watched=set(TRANSLATION)), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.splitlines()[-1].split()  # the probe prints last


def test_an_opencode_bundle_is_built_and_checked_without_the_translation(sample: Path) -> None:
    assert _loaded(sample, "build", "--no-cache", "-q") == ["0"]
    assert _loaded(sample, "check", "--no-cache", "-q") == ["0"]


def test_a_claude_target_loads_the_translation(sample: Path) -> None:
    (sample / "promptc.toml").write_text("[targets.opencode]\n[targets.claude]\n")
    assert _loaded(sample, "build", "--no-cache", "-q") == ["0", *sorted(TRANSLATION)]
    assert _loaded(sample, "check", "--no-cache", "-q") == ["0", *sorted(TRANSLATION)]


def test_a_claude_plugin_target_loads_the_translation(sample: Path) -> None:
    (sample / "promptc.toml").write_text('[targets.claude-plugin]\nname = "scout-tools"\n')
    assert _loaded(sample, "build", "--no-cache", "-q") == ["0", *sorted(TRANSLATION)]
