"""A runtime's files would let an agent make a call that OpenCode would not let it make.

promptc reads every file a target emits back through that runtime's
decision model (promptc_compiler.runtimes.decide: what Claude Code, Codex, Gemini CLI or
Copilot CLI decides, held to the real CLIs by the test suite) and decides
every call of the bundle's call matrix twice: as OpenCode would from the
specs, and as the runtime would from the files. A call the runtime would run
where OpenCode asks or denies, or ask where OpenCode denies, is reported at
the OpenCode rule that decided it, with the runtime's reason; nothing is
written. A widening the runtime cannot avoid (Codex cannot take `apply_patch`
from one role) is refused the same way, unless the target's config accepts
that very widening on purpose:

    [tool.promptc.targets.codex]
    accept_wider = ["edit"]

An accepted widening is printed first by every build and written to the
target's TRANSLATION.md. Always an error; cannot be disabled.

Options: none.
"""

ID = "wider-translation"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
