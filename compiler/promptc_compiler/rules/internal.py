"""promptc itself failed: a bug, reported with exit code 3.

The message names the exception; re-run with `--traceback` to see where it
happened, and report it with the input that caused it.
"""

ID = "internal"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
