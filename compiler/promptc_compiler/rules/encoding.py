"""Byte-level trouble that promptc reads through but reports: a BOM, CRLF line endings.

Reported by the loader as a warning. The file is read as if the BOM were absent
and lines ended in LF; generated files always use LF and no BOM. Some runtimes
do not recognise frontmatter after a BOM, so remove it.
"""

ID = "encoding"
DEFAULT_LEVEL = "warning"
STAGE = True
OPTIONS: dict[str, object] = {}
