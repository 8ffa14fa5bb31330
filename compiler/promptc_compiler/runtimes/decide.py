"""Decision models: what each runtime decides for a call, read from the files promptc wrote.

A model answers, for one call of the matrix (promptc_compiler.permissions.calls.Call: an agent, an
OpenCode permission, an input, main agent or started by another), what the
runtime itself would do with the files a target emitted: run it (`allow`),
ask the user (`ask`; refused for want of an answer in non-interactive runs),
or refuse it (`deny`, also when the tool does not exist for the agent). A
model reads nothing but those files, so it checks the files, not the
translator's intentions; the test suite holds every model to the real,
pinned CLI (tests/oracles/), and a call where the two disagree fails it.

The translation proves itself with the models (promptc_compiler.pipeline.proof): a call the
runtime would decide more permissively than OpenCode is an error, unless the
config accepts that widening for that runtime.

A runtime's module has `RUNTIME` (its name in messages), `TARGETS` (the
promptc targets whose output it reads) and `load(files) -> Model`, where
`files` maps each path of the target's output (relative to `<out>/<target>/`)
to its text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType

from promptc_compiler.permissions.calls import Model
from promptc_compiler.runtimes.claude import decide as claude
from promptc_compiler.runtimes.codex import decide as codex
from promptc_compiler.runtimes.copilot import decide as copilot
from promptc_compiler.runtimes.gemini import decide as gemini

Loader = Callable[[Mapping[str, str]], Model]

_MODULES: tuple[ModuleType, ...] = (claude, codex, copilot, gemini)

# promptc target name -> (runtime name, the loader of its model)
MODELS: Mapping[str, tuple[str, Loader]] = {
    target: (module.RUNTIME, module.load) for module in _MODULES for target in module.TARGETS
}
