"""An agent key OpenCode does not know, which it moves into `options`.

OpenCode accepts such keys (`category`, `version`, `tags`, `last_updated`, …)
without a word and copies them into the agent's `options`, which are sent to
the model provider with every request: at best they do nothing, at worst the
provider rejects the request. A warning, because the file loads; misspellings
of real keys are the `key-typo` error and Claude Code keys the
`cross-ecosystem` error, so neither is reported here. Checked at the top level
of an agent spec and in `targets.opencode`.

Options:
    accept (list of strings, default []): keys to accept without a warning,
        e.g. provider options written at the top level on purpose.

Fails:
    ---
    description: Reviews diffs for bugs and missing tests.
    category: review      # 'category' is not an OpenCode agent key
    ---
Passes:
    ---
    description: Reviews diffs for bugs and missing tests.
    options:
      reasoningEffort: high
    ---
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.base.suggest import near_miss
from promptc_compiler.core.project import Project
from promptc_compiler.core.validate import (
    opencode_agent_keys,
    opencode_sections,
    within,
)
from promptc_compiler.runtimes import copied_key

ID = "unknown-key"
DEFAULT_LEVEL = "warning"
STAGE = False
OPTIONS: dict[str, Any] = {
    "accept": {
        "type": "array",
        "items": {"type": "string"},
        "uniqueItems": True,
        "default": [],
        "description": "Keys to accept without a warning.",
    }
}


def check(project: Project, options: Mapping[str, Any]) -> Iterator[Problem]:
    accepted = set(options["accept"])
    for spec in project.agents.values():
        for base, section in opencode_sections(spec.meta):
            known = (*opencode_agent_keys(), *(() if base else ("targets",)))
            absent = [k for k in known if k not in section]  # as key-typo suggests them
            for key in section:
                if key in known or key in accepted or copied_key(key) or near_miss(key, absent):
                    continue
                pos = spec.where(*base, key, key=True)
                yield Problem(
                    *pos,
                    f"'{key}'{within(base)} is not an OpenCode agent key: OpenCode "
                    "moves it into `options`, which are sent to the model provider. Remove "
                    "it, or nest it under `options:` if the provider expects it",
                    path=spec.source.path,
                )
