"""What the entry point's own text says about its inputs: parameter types from the signature's
annotations, and the calls written in its docstring (docs/probe.md).

The signature is read from the contract's reference, else from its prompt (a completion-style
prompt ends where the body begins, so a `pass` body is added). An annotation becomes a `Shape`:
a kind (int, float, str, bool, none, list, tuple, dict, set, or any) with its item shapes -
`List[int]`, `list[str]`, `Tuple[int, ...]`, `Tuple[str, int]`, `Dict[str, int]`,
`Optional[float]` (a float, or None), `Union[int, float]` (a number); what it cannot read
(a class, a callable, a type variable) is "any". Shapes nest at most `MAX_SHAPE_DEPTH` levels.

The docstring's calls: every `entry(...)` whose arguments are literals, wherever it stands (a
`>>> entry(...)` line or prose such as `entry(3) ➞ 5`), found by a scan that looks at most
`MAX_CALL_CHARS` past each of at most `MAX_DOC_CALLS` occurrences of the name: the inputs the
task's own text gives as examples. Nothing here runs the program; all of it is parsed within
the bounds of `syntax.parse` and `examples.literal_value`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from skyt_tui.engine import syntax
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.oracle.outputs import Call
from skyt_tui.engine.probe.examples import NotLiteral, literal_value

MAX_SHAPE_DEPTH = 6
MAX_DOC_CHARS = 20_000
MAX_DOC_CALLS = 64
MAX_CALL_CHARS = 2_000

KINDS = ("int", "float", "number", "str", "bool", "none", "list", "tuple", "dict", "set", "any")
_NAMES = {
    "int": "int",
    "float": "float",
    "complex": "number",
    "str": "str",
    "bool": "bool",
    "None": "none",
    "list": "list",
    "List": "list",
    "Sequence": "list",
    "Iterable": "list",
    "tuple": "tuple",
    "Tuple": "tuple",
    "dict": "dict",
    "Dict": "dict",
    "Mapping": "dict",
    "set": "set",
    "Set": "set",
    "frozenset": "set",
    "FrozenSet": "set",
}


@dataclass(frozen=True)
class Shape:
    """A parameter's type as its annotation (or its examples) give it."""

    kind: str
    items: tuple[Shape, ...] = ()
    """list/set: (item,); tuple: its elements, or (item,) when `variadic`; dict: (key, value)."""
    variadic: bool = False
    optional: bool = False
    """None is a value too (`Optional[...]`)."""

    def item(self, position: int = 0) -> Shape:
        if not self.items:
            return ANY
        if self.kind == "tuple" and not self.variadic:
            return self.items[position] if position < len(self.items) else ANY
        return self.items[min(position, len(self.items) - 1)]


ANY = Shape("any")


@dataclass(frozen=True)
class Bound:
    """A numeric bound the docstring states: `low`/`high` (None: open), each inclusive or not;
    `name` the parameter it names (`0 <= n <= 100`, `n > 1`), or None for prose ("less than
    10", "a positive number"), which holds for every numeric parameter whose examples all
    keep it."""

    name: str | None
    low: float | None = None
    low_inclusive: bool = True
    high: float | None = None
    high_inclusive: bool = True
    text: str = ""

    def holds(self, value: float) -> bool:
        if self.low is not None and (
            value < self.low or (value == self.low and not self.low_inclusive)
        ):
            return False
        return self.high is None or not (
            value > self.high or (value == self.high and not self.high_inclusive)
        )


@dataclass(frozen=True)
class EntrySignature:
    names: tuple[str, ...]
    """Positional parameters, in order (what the calls' arguments fill)."""
    shapes: tuple[Shape | None, ...]
    """Each parameter's annotation as a shape; None where it has none."""
    docstring_calls: tuple[Call, ...]
    """Calls of the entry point with literal arguments written in its docstring."""
    bounds: tuple[Bound, ...] = ()
    """Numeric bounds the docstring states (`docstring_bounds`)."""


def entry_signature(contract: Contract) -> EntrySignature | None:
    """The entry point's signature and docstring calls, or None when neither the reference nor
    the prompt defines it as a function."""
    name = contract.entry.name
    texts = [contract.reference or "", contract.prompt, contract.prompt.rstrip() + "\n    pass\n"]
    for text in texts:
        if f"def {name}" not in text:
            continue
        try:
            module = syntax.parse(text, filename="<contract>")
        except SyntaxError:
            continue
        for node in module.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                return _read(node, name)
    return None


def _read(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> EntrySignature:
    arguments = [*node.args.posonlyargs, *node.args.args]
    shapes = tuple(
        annotation_shape(arg.annotation) if arg.annotation is not None else None
        for arg in arguments
    )
    docstring = ast.get_docstring(node, clean=False) or ""
    names = tuple(arg.arg for arg in arguments)
    return EntrySignature(
        names,
        shapes,
        tuple(docstring_calls(docstring, name)),
        tuple(docstring_bounds(docstring, names)),
    )


def annotation_shape(node: ast.expr, depth: int = 0) -> Shape:
    """The shape an annotation names ("any" for what it cannot read); nests at most
    `MAX_SHAPE_DEPTH` levels (the recursion is bounded by it)."""
    if depth > MAX_SHAPE_DEPTH:
        return ANY
    if isinstance(node, ast.Constant):
        if node.value is None:
            return Shape("none")
        if isinstance(node.value, str) and len(node.value) < 200:  # a string annotation
            try:
                inner = syntax.parse_ast(node.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return ANY
            return annotation_shape(inner, depth + 1)
        return ANY
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | Y
        return _union([node.left, node.right], depth)
    base, arguments = node, None
    if isinstance(node, ast.Subscript):
        base = node.value
        inner = node.slice
        arguments = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
    label = _name(base)
    if label in ("Optional",) and arguments:
        shape = annotation_shape(arguments[0], depth + 1)
        return Shape(shape.kind, shape.items, shape.variadic, optional=True)
    if label == "Union" and arguments:
        return _union(arguments, depth)
    kind = _NAMES.get(label or "")
    if kind is None:
        return ANY
    if arguments is None:
        return Shape(kind)
    if kind == "tuple":
        if len(arguments) == 2 and isinstance(arguments[1], ast.Constant):
            if arguments[1].value is Ellipsis:
                return Shape("tuple", (annotation_shape(arguments[0], depth + 1),), variadic=True)
        return Shape("tuple", tuple(annotation_shape(a, depth + 1) for a in arguments[:8]))
    if kind == "dict" and len(arguments) == 2:
        return Shape(
            "dict", tuple(annotation_shape(a, depth + 1) for a in arguments), variadic=False
        )
    if kind in ("list", "set"):
        return Shape(kind, (annotation_shape(arguments[0], depth + 1),))
    return Shape(kind)


def _union(parts: list[ast.expr], depth: int) -> Shape:
    shapes = [annotation_shape(part, depth + 1) for part in parts[:8]]
    optional = any(shape.kind == "none" for shape in shapes)
    kinds = {shape.kind for shape in shapes if shape.kind != "none"}
    if len(kinds) == 1:
        [only] = [shape for shape in shapes if shape.kind != "none"][:1]
        return Shape(only.kind, only.items, only.variadic, optional)
    if kinds <= {"int", "float", "number"} and kinds:
        return Shape("number", optional=optional)
    return Shape("any", optional=optional)


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.List, t.Dict
        return node.attr
    return None


def docstring_calls(docstring: str, name: str) -> list[Call]:
    """Calls of `name` with literal arguments written in `docstring` (see the module docstring)."""
    text = docstring[:MAX_DOC_CHARS]
    calls: list[Call] = []
    seen: set[str] = set()
    start = 0
    for _ in range(MAX_DOC_CALLS):
        at = text.find(name + "(", start)
        if at < 0:
            break
        start = at + len(name) + 1
        if at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_."):
            continue  # part of another name, or a method of something
        end = _closing(text, at + len(name), min(len(text), at + MAX_CALL_CHARS))
        if end is None:
            continue
        call = _literal_call(text[at : end + 1], name)
        if call is not None:
            key = repr((call.args, call.kwargs))
            if key not in seen:
                seen.add(key)
                calls.append(call)
    return calls


def _closing(text: str, opening: int, limit: int) -> int | None:
    """The position of the parenthesis closing the one at `opening`, skipping quoted text."""
    depth = 0
    quote: str | None = None
    i = opening
    while i < limit:
        char = text[i]
        if quote is not None:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return i if char == ")" else None
        i += 1
    return None


def _literal_call(source: str, name: str) -> Call | None:
    try:
        node = syntax.parse_ast(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
    ):
        return None
    try:
        args = tuple(literal_value(arg) for arg in node.args)
        if any(keyword.arg is None for keyword in node.keywords):
            return None
        kwargs = tuple(
            (keyword.arg, literal_value(keyword.value))
            for keyword in node.keywords
            if keyword.arg is not None
        )
    except NotLiteral:
        return None
    return Call(args, kwargs)


_NUMBER = r"(10\s*(?:\^|\*\*)\s*\d+|-?\d+(?:\.\d+)?(?:e-?\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten)\b"
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_PROSE = (
    (r"\b(?:less|smaller|lower|fewer) than " + _NUMBER, "high", False),
    (r"\bbelow " + _NUMBER, "high", False),
    (r"\b(?:at most|no more than|not more than|no greater than|not greater than|no larger than) "
     + _NUMBER, "high", True),
    (r"\b(?:greater|larger|bigger|more|higher) than " + _NUMBER, "low", False),
    (r"\babove " + _NUMBER, "low", False),
    (r"\b(?:at least|no less than|not less than|no fewer than) " + _NUMBER, "low", True),
)  # fmt: skip
_COMPARE = r"(?<![-=<>!])(<=|>=|<|>|≤|≥)(?![=>])"


def _number(text: str) -> float | None:
    text = text.strip()
    if text in _WORDS:
        return float(_WORDS[text])
    power = re.fullmatch(r"10\s*(?:\^|\*\*)\s*(\d+)", text)
    if power:
        return 10.0 ** min(int(power.group(1)), 300)
    try:
        return float(text)
    except ValueError:
        return None


def docstring_bounds(docstring: str, names: tuple[str, ...]) -> list[Bound]:
    """The numeric bounds a docstring states, read by fixed patterns (no parsing of sentences):
    comparisons that name a parameter (`0 <= n <= 100`, `n > 1`), and prose - "less than N",
    "at most N", "greater than N", "at least N", "between A and B", "positive",
    "non-negative". At most `MAX_DOC_CHARS` of the docstring are read; every pattern is linear."""
    text = " ".join(docstring[:MAX_DOC_CHARS].lower().split())
    found: list[Bound] = []
    for pattern, side, inclusive in _PROSE:
        for match in re.finditer(pattern, text):
            value = _number(match.group(1))
            if value is not None:
                found.append(
                    Bound(None, low=value, low_inclusive=inclusive, text=match.group(0))
                    if side == "low"
                    else Bound(None, high=value, high_inclusive=inclusive, text=match.group(0))
                )
    for match in re.finditer(r"\bbetween " + _NUMBER + r" and " + _NUMBER, text):
        low, high = _number(match.group(1)), _number(match.group(2))
        if low is not None and high is not None and low <= high:
            found.append(Bound(None, low=low, high=high, text=match.group(0)))
    if re.search(r"(?<!non-)(?<!non)(?<!not )\bpositive\b", text):
        found.append(Bound(None, low=0.0, low_inclusive=False, text="positive"))
    if re.search(r"\b(?:non-negative|nonnegative|not negative)\b", text):
        found.append(Bound(None, low=0.0, text="non-negative"))
    for name in names:
        if not name.isidentifier():
            continue
        word = r"(?<![\w.])" + re.escape(name.lower()) + r"(?![\w(\[])"
        for match in re.finditer(word + r"\s*" + _COMPARE + r"\s*" + _NUMBER, text):
            found.append(_named(name, match.group(1), match.group(2), match.group(0)))
        for match in re.finditer(_NUMBER + r"\s*" + _COMPARE + r"\s*" + word, text):
            flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "≤": "≥", "≥": "≤"}
            found.append(_named(name, flipped[match.group(2)], match.group(1), match.group(0)))
    return [bound for bound in found if bound.low is not None or bound.high is not None][:32]


def _named(name: str, operator: str, number: str, text: str) -> Bound:
    value = _number(number)
    if value is None:
        return Bound(name)
    if operator in (">", ">=", "≥"):
        return Bound(name, low=value, low_inclusive=operator != ">", text=text)
    return Bound(name, high=value, high_inclusive=operator != "<", text=text)
