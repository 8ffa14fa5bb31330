"""compiler.classcode: stored dataclass methods give the very classes compiling gives."""

from __future__ import annotations

import contextlib
import dataclasses
import marshal
import os
import shutil
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compiler import classcode

# A module of the package's (by name) and one of another package's, each
# defining dataclasses the way promptc's modules do.
SOURCE = textwrap.dedent(
    """
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class Point:
        x: int
        y: int = 0
        tags: tuple[str, ...] = field(default=(), compare=False)

    @dataclass
    class Box:
        items: list[int] = field(default_factory=list)
    """
)


def _module(name: str) -> types.ModuleType:
    """SOURCE run as module `name` (dataclasses finds a class's module in sys.modules)."""
    module = types.ModuleType(name)
    saved = sys.modules.get(name)  # the package itself, for name "compiler"
    sys.modules[name] = module
    try:
        exec(compile(SOURCE, f"<{name}>", "exec", dont_inherit=True), module.__dict__)
    finally:
        if saved is None:
            del sys.modules[name]
        else:
            sys.modules[name] = saved
    return module


@contextlib.contextmanager
def _installed(path: Path) -> Iterator[None]:
    """A store at `path` installed, and the process's own back afterwards."""
    previous = classcode._STORE
    was_installed = getattr(dataclasses, "exec", None) is classcode._exec
    classcode.uninstall()
    classcode.install(str(path))
    try:
        yield
    finally:
        classcode.uninstall()
        classcode._STORE = previous
        if was_installed:
            dataclasses.exec = classcode._exec  # type: ignore[attr-defined]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "__pycache__" / "methods.marshal"
    with _installed(path):
        yield path


def _reinstall(path: Path) -> None:
    """A fresh process's view of the store at `path`."""
    classcode.uninstall()
    classcode.install(str(path))


def _functions(cls: type) -> dict[str, types.FunctionType]:
    names = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
    found = {name: cls.__dict__.get(name) for name in names}
    return {name: f for name, f in found.items() if isinstance(f, types.FunctionType)}


def _same_code(a: types.CodeType, b: types.CodeType) -> None:
    for attr in ("co_code", "co_consts", "co_names", "co_varnames", "co_freevars", "co_flags"):
        assert getattr(a, attr) == getattr(b, attr), attr


def _assert_same_classes(ours: types.ModuleType, plain: types.ModuleType) -> None:
    for name in ("Point", "Box"):
        mine, theirs = _functions(getattr(ours, name)), _functions(getattr(plain, name))
        assert mine.keys() == theirs.keys()
        for method, function in mine.items():
            other = theirs[method]
            _same_code(function.__code__, other.__code__)
            assert function.__annotations__ == other.__annotations__, method
            assert function.__defaults__ == other.__defaults__, method
    point = ours.Point(1, tags=("a",))
    assert point == ours.Point(1, 0, ("b",))
    assert hash(point) == hash(ours.Point(1))
    assert repr(point) == "Point(x=1, y=0, tags=('a',))"
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    assert ours.Box().items == [] and ours.Box().items is not ours.Box().items


def test_a_stored_class_is_the_class_compiling_gives(store: Path) -> None:
    plain = _plain("compiler._probe")
    first = _module("compiler._probe")
    assert len(classcode._STORE.compiled) == 9  # Point: 6 methods (frozen), Box: 3
    assert classcode.save(force=True) and store.is_file()
    _reinstall(store)
    second = _module("compiler._probe")
    assert classcode._STORE.compiled == {}, "every method came from the store"
    assert len(classcode._STORE.used) == 9
    _assert_same_classes(first, plain)
    _assert_same_classes(second, plain)


def _plain(name: str) -> types.ModuleType:
    """SOURCE compiled by dataclasses as it always does."""
    installed = getattr(dataclasses, "exec", None)
    if installed is not None:
        del dataclasses.exec  # type: ignore[attr-defined]
    try:
        return _module(name)
    finally:
        if installed is not None:
            dataclasses.exec = installed  # type: ignore[attr-defined]


def test_another_packages_classes_are_neither_looked_up_nor_stored(store: Path) -> None:
    _module("elsewhere.models")
    _module("compilers")  # a name that merely starts like the package's
    assert classcode._STORE.compiled == {} and classcode._STORE.used == set()
    assert not classcode.save(force=True) and not store.exists()


def test_the_package_itself_counts_as_ours(store: Path) -> None:
    _module("compiler")
    assert len(classcode._STORE.compiled) == 9


def _texts(tmp_path: Path) -> list[str]:
    """The source texts dataclasses writes for SOURCE's classes."""
    with _installed(tmp_path / "texts.marshal"):
        _module("compiler._probe")
        return list(classcode._STORE.compiled)


# Code that would break every class made from it: the store must never hand it out.
_WRONG = compile("def __create_fn__(*a, **k):\n return None", "<string>", "exec")


@pytest.mark.parametrize(
    "content",
    [
        lambda texts: b"",
        lambda texts: b"not marshal data",
        lambda texts: marshal.dumps(("3.0.0 (another build)", dict.fromkeys(texts, _WRONG))),
        lambda texts: marshal.dumps([sys.version]),
        lambda texts: marshal.dumps((sys.version, list(texts))),
        lambda texts: marshal.dumps((sys.version, dict.fromkeys(texts, "not a code object"))),
    ],
    ids=["empty", "garbage", "other-interpreter", "one-item", "not-a-dict", "not-code"],
)
def test_a_corrupt_or_foreign_store_is_ignored(
    tmp_path: Path, content: Callable[[list[str]], bytes]
) -> None:
    texts = _texts(tmp_path)
    store = tmp_path / "store.marshal"
    store.write_bytes(content(texts))
    with _installed(store):
        plain = _plain("compiler._probe")
        ours = _module("compiler._probe")
        _assert_same_classes(ours, plain)
        assert len(classcode._STORE.compiled) == 9


def test_the_wrong_code_would_show(tmp_path: Path) -> None:
    """The test above can fail: a store of this interpreter holding _WRONG is used."""
    store = tmp_path / "store.marshal"
    store.write_bytes(marshal.dumps((sys.version, dict.fromkeys(_texts(tmp_path), _WRONG))))
    with _installed(store), pytest.raises(AttributeError):
        _module("compiler._probe")


def test_a_stored_code_object_of_other_text_is_never_used(store: Path) -> None:
    """The key is the whole source text: a class whose fields changed misses."""
    _module("compiler._probe")
    classcode.save(force=True)
    _reinstall(store)
    changed = SOURCE.replace("y: int = 0", "y: int = 0\n    z: int = 5")
    module = types.ModuleType("compiler._probe")
    sys.modules["compiler._probe"] = module
    try:
        exec(compile(changed, "<probe>", "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules["compiler._probe"]
    assert module.Point(1).z == 5 and module.Point(1) == module.Point(1, 0, 5)
    # Point's six methods all name its fields: compiled again; Box's three: stored.
    assert len(classcode._STORE.compiled) == 6 and len(classcode._STORE.used) == 9


def test_no_store_is_written_where_python_writes_no_bytecode(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _module("compiler._probe")
    assert not classcode.save() and not store.exists()
    assert classcode.save(force=True) and store.exists()


def test_a_store_that_cannot_be_written_is_left_alone(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    with _installed(blocked / "__pycache__" / "methods.marshal"):
        _module("compiler._probe")
        assert not classcode.save(force=True)
        assert classcode._STORE.compiled, "kept for a later save"
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_a_full_store_keeps_only_what_this_run_used(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = {f"# stale {n}": compile(f"x = {n}", "<string>", "exec") for n in range(5)}
    store.parent.mkdir()
    store.write_bytes(marshal.dumps((sys.version, stale)))
    _reinstall(store)
    monkeypatch.setattr(classcode, "_LIMIT", 10)
    _module("compiler._probe")  # 9 compiled: 14 in all, past the limit
    assert classcode.save(force=True)
    _, kept = marshal.loads(store.read_bytes())
    assert len(kept) == 9 and not any(source.startswith("# stale") for source in kept)
    monkeypatch.setattr(classcode, "_LIMIT", 2000)
    store.write_bytes(marshal.dumps((sys.version, stale)))
    _reinstall(store)
    _module("compiler._probe")
    assert classcode.save(force=True)
    _, kept = marshal.loads(store.read_bytes())
    assert len(kept) == 14


_COUNT = textwrap.dedent(
    """
    import sys
    from compiler import entry, classcode
    entry.load_pipeline()
    print(len(classcode._STORE.used), len(classcode._STORE.compiled))
    """
)


def test_the_stored_package_loads_its_pipeline_without_compiling(tmp_path: Path) -> None:
    """`python -m compiler.classcode` (run by `make`) stores every method the
    pipeline's classes need; a run then compiles none."""
    package = Path(classcode.__file__).parent
    shutil.copytree(package, tmp_path / "compiler", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(package.parent / "schemas", tmp_path / "schemas")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}

    def counts() -> list[int]:
        done = subprocess.run(
            [sys.executable, "-c", _COUNT], env=env, cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return [int(n) for n in done.stdout.split()]

    used, compiled = counts()
    assert used > 200 and compiled == used  # no store yet: all compiled
    subprocess.run([sys.executable, "-m", "compiler.classcode"], env=env, cwd=tmp_path, check=True)
    assert counts() == [used, 0]
