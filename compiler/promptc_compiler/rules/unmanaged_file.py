"""A file in the output folder that promptc did not generate, where a runtime loads it.

Reported by `promptc build --check` and `promptc check`. promptc never touches
a file it did not generate, but a runtime reads every agent, command, skill or
settings file in the folders it scans: an agent added by hand under
`build/opencode/.opencode/agents/` shows in `opencode agent list` as if the
bundle had it. Write it as a spec instead, or remove it.
"""

ID = "unmanaged-file"
DEFAULT_LEVEL = "warning"
STAGE = True
OPTIONS: dict[str, object] = {}
