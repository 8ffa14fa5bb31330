"""A generated file that does not match the schema of the format it is in.

promptc validates every file a target emits against the runtime's format
(the schemas each runtime package keeps in its `schemas/` folder: OpenCode's
agent, command, config and skill files, Claude Code's agent, command,
settings, plugin and skill files) after emitting and before writing anything.
A failure here means promptc produced a file the runtime would reject or
misread: a bug in promptc, not in the spec. The diagnostic names the
generated file (line and column inside it) and the spec it came from;
nothing is written. Always an error; cannot be disabled.
"""

ID = "emit"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
