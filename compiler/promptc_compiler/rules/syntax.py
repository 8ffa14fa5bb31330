"""Files that cannot be read as a spec: the frontmatter or the file itself is broken.

Reported by the loader, always as an error; cannot be disabled. Covers: a file
that is not UTF-8 or holds NUL bytes; a frontmatter block that is never
closed, indented, or not on line 1; invalid YAML (with the parser's position);
duplicate keys (YAML libraries keep the last one silently; promptc refuses);
tabs in indentation; a frontmatter that is not a mapping; YAML aliases that
expand beyond a fixed budget; symlinks that point outside the project.

Fails:
    ---
    description: x
    description: y     # duplicate key
    ---
"""

ID = "syntax"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
