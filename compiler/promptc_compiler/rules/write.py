"""A generated file that promptc will not overwrite or remove.

Reported by `promptc build` when a file in the output folder was edited by
hand since promptc wrote it, or when a file promptc did not generate stands
where a generated one must go. Nothing at all is written while such a conflict
exists; `--force` overwrites (a hand-edited file that is no longer generated
is then left on disk and forgotten, never deleted).

Also reported by `--fix` for a source file it cannot rewrite (permissions, a
full disk): the file is left as it was.
"""

ID = "write"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
