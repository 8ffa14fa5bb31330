"""Conditions: read and evaluate the common block-tag conditions without Jinja.

A block tag's condition (`<% if target == "claude" %>`) may compare variables
with literals and combine comparisons with and, or and not (compiler.sandbox
says exactly what is accepted). Almost every condition in a bundle is that
simple, and importing and running Jinja for them costs more than composing
the whole bundle. This module parses such conditions into a small tree with
the grammar and precedence of Jinja's own parser, checks them as
compiler.sandbox does, and evaluates them with Python's operators, which are
what Jinja's compiled templates use.

It decides only when it is sure: a token, construct or value it does not
know, an unknown variable, a value no enum allows, or an evaluation that
fails makes it return None (or raise Unsure), and the caller asks Jinja, so
messages stay exactly Jinja's and compiler.sandbox's.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Collection, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from compiler.scan import Value

# Nodes: ("name", str) ("const", value) ("neg" | "pos", number) ("list" | "tuple", items)
# ("and" | "or", left, right) ("not", node) ("compare", node, ((op, node), ...))
Node = tuple[object, ...]

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t]+)
    | (?P<number>\d+(?:\.\d+)?)(?![\w.])
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)(?![\w])
    | '(?P<single>[^'\\\n]*)'
    | "(?P<double>[^"\\\n]*)"
    | (?P<op>==|!=|<=|>=|<|>|\(|\)|\[|\]|,|-|\+)
    """,
    re.VERBOSE,
)
_INTEGER = re.compile(r"0|[1-9]\d*")
_CONSTANTS = {"true": True, "false": False, "True": True, "False": False}
# Words Jinja's parser or runtime gives a meaning of their own.
_RESERVED = {"if", "else", "is", "none", "None", "self", "loop", "super", "caller", "varargs"}
_RESERVED |= {"kwargs"}
_COMPARE = {"==": "eq", "!=": "ne", "<": "lt", "<=": "lteq", ">": "gt", ">=": "gteq"}
_OPERATORS: dict[str, Callable[[Any, Any], object]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "lteq": operator.le,
    "gt": operator.gt,
    "gteq": operator.ge,
    "in": lambda a, b: operator.contains(b, a),
    "notin": lambda a, b: not operator.contains(b, a),
}


class Unsure(Exception):
    """Only Jinja can say: the caller takes the Jinja way."""


@functools.lru_cache(maxsize=4096)
def parse(condition: str) -> Node | None:
    """The tree of a condition in the common subset, else None."""
    try:
        parser = _Parser(_tokens(condition))
        node = parser.expression()
        if parser.tokens:
            return None
        return node
    except Unsure:
        return None


def acceptable(node: Node, scope: Collection[str], enums: Mapping[str, tuple[Value, ...]]) -> bool:
    """True when compiler.sandbox.condition_problem finds nothing to say about `node`.

    False means "ask it": the problem's message is its to write.
    """
    kind = node[0]
    if kind == "name":
        return node[1] in scope
    if kind in ("const", "neg", "pos"):
        return True
    if kind in ("list", "tuple"):
        return all(acceptable(item, scope, enums) for item in node[1])  # type: ignore[attr-defined]
    if kind in ("and", "or"):
        return acceptable(node[1], scope, enums) and acceptable(node[2], scope, enums)  # type: ignore[arg-type]
    if kind == "not":
        return acceptable(node[1], scope, enums)  # type: ignore[arg-type]
    assert kind == "compare"
    expr, ops = node[1], node[2]
    if not _values_allowed(expr, ops, enums):  # type: ignore[arg-type]
        return False
    return acceptable(expr, scope, enums) and all(  # type: ignore[arg-type]
        acceptable(right, scope, enums)
        for _, right in ops  # type: ignore[attr-defined]
    )


def _values_allowed(
    expr: Node, ops: tuple[tuple[str, Node], ...], enums: Mapping[str, tuple[Value, ...]]
) -> bool:
    """compiler.sandbox._value_problem finds nothing (`target == "cluade"` is a problem)."""
    if len(ops) != 1 or ops[0][0] not in ("eq", "ne", "in", "notin"):
        return True
    left, right = expr, ops[0][1]
    if right[0] == "name" and ops[0][0] in ("eq", "ne"):
        left, right = right, left
    if left[0] != "name" or left[1] not in enums:
        return True
    literals = right[1] if right[0] in ("list", "tuple") else (right,)
    allowed = enums[left[1]]  # type: ignore[index]
    for literal in literals:  # type: ignore[attr-defined]
        if literal[0] == "const" and not any(
            type(literal[1]) is type(v) and literal[1] == v for v in allowed
        ):
            return False
    return True


def evaluate(node: Node, values: Mapping[str, Value]) -> object:
    """The value Jinja's compiled template gives `node`; raises Unsure where Jinja would fail."""
    kind = node[0]
    try:
        if kind == "name":
            if node[1] not in values:
                raise Unsure(f"undefined {node[1]}")  # StrictUndefined: Jinja's error
            return values[node[1]]  # type: ignore[index]
        if kind == "const":
            return node[1]
        if kind == "neg":
            return -node[1]  # type: ignore[operator]
        if kind == "pos":
            return +node[1]  # type: ignore[operator]
        if kind == "list":
            return [evaluate(item, values) for item in node[1]]  # type: ignore[attr-defined]
        if kind == "tuple":
            return tuple(evaluate(item, values) for item in node[1])  # type: ignore[attr-defined]
        if kind == "and":
            return evaluate(node[1], values) and evaluate(node[2], values)  # type: ignore[arg-type]
        if kind == "or":
            return evaluate(node[1], values) or evaluate(node[2], values)  # type: ignore[arg-type]
        if kind == "not":
            return not evaluate(node[1], values)  # type: ignore[arg-type]
        left = evaluate(node[1], values)  # type: ignore[arg-type]
        result: object = True
        for op, right_node in node[2]:  # type: ignore[attr-defined]
            right = evaluate(right_node, values)
            result = _OPERATORS[op](left, right)
            if not result:  # a chained comparison stops at the first false link
                return result
            left = right
        return result
    except Unsure:
        raise
    except Exception as exc:  # a comparison Python refuses: Jinja reports it
        raise Unsure(str(exc)) from None


def truth(node: Node, values: Mapping[str, Value]) -> bool:
    """Whether an `if` with this condition takes its branch."""
    try:
        return bool(evaluate(node, values))
    except Unsure:
        raise
    except Exception as exc:
        raise Unsure(str(exc)) from None


# --- reading ---------------------------------------------------------------------


def _tokens(text: str) -> list[tuple[str, object]]:
    tokens: list[tuple[str, object]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise Unsure(text[position:])
        position = match.end()
        kind = match.lastgroup
        if kind == "space":
            continue
        if kind == "number":
            tokens.append(("const", _number(match.group())))
        elif kind == "name":
            tokens.append(_word(match.group()))
        elif kind in ("single", "double"):
            tokens.append(("const", match.group(kind)))
        else:
            tokens.append(("op", match.group()))
    return tokens


def _number(text: str) -> int | float:
    if "." in text:
        return float(text)
    if not _INTEGER.fullmatch(text):
        raise Unsure(text)  # `007`: Jinja reads it its own way
    return int(text)


def _word(word: str) -> tuple[str, object]:
    if word in _CONSTANTS:
        return ("const", _CONSTANTS[word])
    if word in ("and", "or", "not", "in"):
        return ("op", word)
    if word in _RESERVED:
        raise Unsure(word)
    return ("name", word)


class _Parser:
    """Jinja's precedence: or < and < not < comparison < unary minus < primary."""

    def __init__(self, tokens: list[tuple[str, object]]) -> None:
        self.tokens = tokens

    def peek(self, offset: int = 0) -> tuple[str, object] | None:
        return self.tokens[offset] if offset < len(self.tokens) else None

    def take(self, value: str) -> bool:
        if self.peek() == ("op", value):
            self.tokens.pop(0)
            return True
        return False

    def expression(self) -> Node:
        left = self.conjunction()
        while self.take("or"):
            left = ("or", left, self.conjunction())
        return left

    def conjunction(self) -> Node:
        left = self.negation()
        while self.take("and"):
            left = ("and", left, self.negation())
        return left

    def negation(self) -> Node:
        if self.take("not"):
            return ("not", self.negation())
        return self.comparison()

    def comparison(self) -> Node:
        expr = self.unary()
        ops: list[tuple[str, Node]] = []
        while True:
            token = self.peek()
            if token is not None and token[0] == "op" and token[1] in _COMPARE:
                self.tokens.pop(0)
                ops.append((_COMPARE[str(token[1])], self.unary()))
            elif self.take("in"):
                ops.append(("in", self.unary()))
            elif self.peek() == ("op", "not") and self.peek(1) == ("op", "in"):
                del self.tokens[:2]
                ops.append(("notin", self.unary()))
            else:
                break
        return ("compare", expr, tuple(ops)) if ops else expr

    def unary(self) -> Node:
        for sign, kind in (("-", "neg"), ("+", "pos")):
            if self.take(sign):
                token = self.peek()
                if token is None or token[0] != "const" or isinstance(token[1], str | bool):
                    raise Unsure(sign)  # only a sign on a number literal
                self.tokens.pop(0)
                return (kind, token[1])
        return self.primary()

    def primary(self) -> Node:
        token = self.peek()
        if token is None:
            raise Unsure("end")
        self.tokens.pop(0)
        if token[0] in ("const", "name"):
            node: Node = token
        elif token == ("op", "("):
            node = self.parenthesised()
        elif token == ("op", "["):
            node = ("list", self.items("]"))
        else:
            raise Unsure(str(token[1]))
        following = self.peek()
        if following is not None and (following[0] != "op" or following[1] in ("(", "[")):
            raise Unsure("postfix")  # a call, an index, or two values in a row
        return node

    def parenthesised(self) -> Node:
        items, comma = self.sequence(")")
        if len(items) == 1 and not comma:
            return items[0]  # (a) groups; (a,) is a tuple
        return ("tuple", tuple(items))

    def items(self, close: str) -> tuple[Node, ...]:
        return tuple(self.sequence(close)[0])

    def sequence(self, close: str) -> tuple[list[Node], bool]:
        items: list[Node] = []
        comma = False
        while not self.take(close):
            if items and not comma:
                raise Unsure("missing comma")
            items.append(self.expression())
            comma = self.take(",")
        return items, comma
