"""Class code: the compiled methods of promptc's dataclasses, kept between runs.

When a module defines a dataclass, `dataclasses` writes the class's
`__init__`, `__repr__`, `__eq__`, `__hash__` (and for a frozen class
`__setattr__` and `__delattr__`) as Python source and compiles each with
`exec`. On Python 3.11 that is 277 compilations for the 59 dataclasses a
build imports: 22 ms of the 80 ms the pipeline takes to import, paid by
every run that is not a cache hit.

`install()` gives the `dataclasses` module an `exec` of its own (a module
global, which its code finds before the builtin) that takes the code object
from a store when the same source text was compiled before, and compiles it
otherwise. The store is keyed by the exact source text and kept per
interpreter build (`sys.version`), so a stored code object is the one
`compile()` would return: the classes come out the same. Only classes of
promptc's own modules are looked up or stored; any other module's dataclass
is compiled as always.

The store lives next to promptc's bytecode, in compiler/__pycache__, and like
bytecode it is written by the run that missed, unless Python is told not to
write bytecode (PYTHONDONTWRITEBYTECODE, `-B`). `python -m compiler.classcode`
(run by `make`, next to compileall) writes it regardless, for every module.
An unreadable, corrupt or foreign store is ignored, and one that cannot be
written is left as it is: the store saves time, never changes a result.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import CodeType

_PACKAGE = __name__.rpartition(".")[0]

# Past this many stored functions, the store keeps only what this run used:
# promptc's classes need about 300, and each edit of a class adds a few.
_LIMIT = 2000


class _Store:
    """The stored code objects, what this process used and what it compiled."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.loaded: dict[str, CodeType] | None = None
        self.used: set[str] = set()
        self.compiled: dict[str, CodeType] = {}

    def code(self, source: str) -> CodeType:
        if self.loaded is None:
            self.loaded = _read(self.path)
        self.used.add(source)
        found = self.loaded.get(source) or self.compiled.get(source)
        if found is None:
            # dont_inherit: compiled as dataclasses' own `exec` would compile
            # it, without this module's `from __future__ import annotations`.
            found = self.compiled[source] = compile(source, "<string>", "exec", dont_inherit=True)
        return found

    def save(self, *, force: bool = False) -> bool:
        """Write what this process compiled; whether the store was written."""
        if not self.compiled or self.path is None:
            return False
        if sys.dont_write_bytecode and not force:
            return False
        merged = {**(self.loaded or {}), **self.compiled}
        if len(merged) > _LIMIT:
            merged = {source: merged[source] for source in self.used}
        if not _write(self.path, merged):
            return False
        self.loaded, self.compiled = merged, {}
        return True


_STORE = _Store(None)


def store_path() -> str | None:
    """Where the store is kept; None where Python keeps no bytecode."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    return os.path.join(folder, f"dataclass-methods.{tag}.marshal")


def install(path: str | None = None) -> None:
    """From now on, promptc's dataclasses take their methods' code from the
    store at `path` (by default store_path())."""
    import dataclasses

    global _STORE
    if getattr(dataclasses, "exec", None) is not _exec:
        _STORE = _Store(store_path() if path is None else path)
        dataclasses.exec = _exec  # type: ignore[attr-defined]


def uninstall() -> None:
    """Back to the builtin `exec` (what this process compiled is not saved)."""
    import dataclasses

    if getattr(dataclasses, "exec", None) is _exec:
        del dataclasses.exec  # type: ignore[attr-defined]


def save(*, force: bool = False) -> bool:
    """Add what this process compiled to the store (see the module's docstring
    for when it is written); whether it was."""
    return _STORE.save(force=force)


def _exec(
    source: object,
    globals: dict[str, object] | None = None,  # exec's own names
    locals: Mapping[str, object] | None = None,
) -> None:
    if isinstance(source, str) and globals is not None and _ours(globals):
        source = _STORE.code(source)
    builtins.exec(source, globals, locals)  # type: ignore[arg-type]


def _ours(namespace: Mapping[str, object]) -> bool:
    name = namespace.get("__name__")
    return isinstance(name, str) and (name == _PACKAGE or name.startswith(_PACKAGE + "."))


def _read(path: str | None) -> dict[str, CodeType]:
    if path is None:
        return {}
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        # loads, not load: marshal.load reads a file object a few bytes at a
        # time (9 ms against 1 ms for this store).
        version, codes = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if version != sys.version or not isinstance(codes, dict):
        return {}
    code_type = type(_read.__code__)
    return {
        source: code
        for source, code in codes.items()
        if isinstance(source, str) and isinstance(code, code_type)
    }


def _write(path: str, codes: Mapping[str, CodeType]) -> bool:
    # A file of this process's own, renamed over the store: a run reading the
    # store meanwhile sees the old one or the new one, whole.
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as handle:
            marshal.dump((sys.version, dict(codes)), handle)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        return False
    return True


def _import_all() -> None:
    """Import every module of the package (but the program itself)."""
    import importlib

    root = os.path.dirname(os.path.abspath(__file__))
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        package = os.path.relpath(folder, root).replace(os.sep, ".")
        prefix = _PACKAGE if package == "." else f"{_PACKAGE}.{package}"
        for name in sorted(names):
            stem, dot, suffix = name.rpartition(".")
            if dot and suffix == "py" and stem != "__main__":
                module = prefix if stem == "__init__" else f"{prefix}.{stem}"
                importlib.import_module(module)


def main() -> int:
    """`python -m compiler.classcode`: store the methods of every dataclass of
    the package, whether or not Python may write bytecode."""
    install()
    _import_all()
    if _STORE.compiled and not save(force=True):
        print(f"promptc: cannot write {_STORE.path}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # Run as the module the rest of the package imports, not as a copy of it.
    from compiler import classcode

    sys.exit(classcode.main())
