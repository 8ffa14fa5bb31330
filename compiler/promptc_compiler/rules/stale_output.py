"""The output folder is not what a build would write: stale, missing or extra files.

Reported by `promptc build --check` and `promptc check`, which write nothing.
Each generated file that differs, is missing, or is no longer produced is
named. Run `promptc build` to bring the output up to date.
"""

ID = "stale-output"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
