"""An agent key that is a slip of an OpenCode key (`permisson`, `permissions`, `temprature`).

OpenCode accepts any key in agent frontmatter and moves the ones it does not
know into `options`, so a misspelt key is not a load error: the setting is
silently lost (a `permisson:` map grants and denies nothing, a `temprature:`
leaves the default). That is why this is an error by default even though the
runtime loads the file; keys that are not near a known key are the softer
`unknown-key` warning instead. A near miss is a different case, `-` or `_`, a
plural `s`, or one edit (two in longer words), of a key the agent does not
already have (`modle:` beside `mode:` is `model`). A slip of a required key
(`descripton`) is the `schema` stage's one error. Checked at the top level of an
agent spec and in `targets.opencode`; modes are checked by the `schema` stage,
because no runtime reads unknown mode keys at all.

Options: none.

Fails:
    ---
    description: Reviews diffs for bugs and missing tests.
    permisson:            # unknown key 'permisson' (did you mean `permission`?)
      edit: deny
    ---
Passes:
    ---
    description: Reviews diffs for bugs and missing tests.
    permission:
      edit: deny
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
    required_slip,
    within,
)
from promptc_compiler.runtimes import copied_key

ID = "key-typo"
DEFAULT_LEVEL = "error"
STAGE = False
OPTIONS: dict[str, Any] = {}

_LOST = {
    "permission": "none of its rules apply and every tool keeps OpenCode's default (allow)",
    "tools": "none of its entries apply",
    "mode": "the agent keeps the default mode `all`",
    "targets": "promptc applies none of these overrides",
}


def check(project: Project, _options: Mapping[str, Any]) -> Iterator[Problem]:
    for spec in project.agents.values():
        for base, section in opencode_sections(spec.meta):
            known = (*opencode_agent_keys(), *(() if base else ("targets",)))
            # A key the agent already has is not what a slip meant: `modle` beside
            # `mode` is `model`.
            absent = [k for k in known if k not in section]
            for key in section:
                if key in known or copied_key(key):
                    continue
                meant = near_miss(key, absent)
                if meant is None or (not base and required_slip(section, key, meant)):
                    continue
                pos = spec.where(*base, key, key=True)
                lost = _LOST.get(meant, f"`{meant}` keeps its default")
                moved = "" if meant == "targets" else "OpenCode moves it into `options`, so "
                yield Problem(
                    *pos,
                    f"unknown key '{key}'{within(base)} (did you mean `{meant}`?): {moved}{lost}",
                    path=spec.source.path,
                )
