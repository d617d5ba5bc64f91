"""Normalization levels and signatures (docs/how-it-works.md).

Each level is a pure function of the code text (plus, for `alpha`, the names the
contract keeps), so equal input always gives byte-identical output and SHA-256.

- raw    the extracted code, CRLF→LF and outer whitespace trimmed;
- format `ast.unparse(ast.parse(code))`: comments, spacing and quoting gone;
- nodoc  format without module/class/function docstrings;
- alpha  nodoc with local names renamed in first-occurrence order.

Code that does not parse, or whose syntax tree nests deeper than
`syntax.MAX_DEPTH` levels, gets a tokenize-based fallback (comments and spacing
stripped) at every level above raw and is flagged `parse_error`; it can never
become canon. Code longer than `syntax.MAX_PROGRAM_CHARS` is not parsed at all: every
level is its raw text, and it is flagged `parse_error` too (`syntax.too_large` says why).
Parsing is analysis only: nothing here executes the code.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import io
import keyword
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

from skyt_tui.engine import syntax
from skyt_tui.engine.measure.scoping import Comprehension, Scope, ScopeCollector
from skyt_tui.engine.versions import LEVELS as LEVELS  # re-exported
from skyt_tui.engine.versions import NORMALIZATION_VERSION as NORMALIZATION_VERSION

_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class Normalized:
    """One sample's text and SHA-256 signature at every level."""

    texts: dict[str, str]
    signatures: dict[str, str]
    parse_error: bool
    version: str = NORMALIZATION_VERSION

    def text(self, level: str) -> str:
        return self.texts[level]


def signature(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def raw_level(code: str) -> str:
    return code.replace("\r\n", "\n").replace("\r", "\n").strip()


def _parse(code: str) -> ast.Module | None:
    """The tree, or None when the code does not parse or nests deeper than `syntax.MAX_DEPTH`
    (every walk below recurses per level: bounded here, they cannot run out of stack)."""
    try:
        return syntax.parse(code)
    except SyntaxError:
        return None


def _unparse(tree: ast.AST) -> str | None:
    try:
        return syntax.unparse(tree)
    except (RecursionError, ValueError, MemoryError):
        return None


def normalize(code: str, kept_names: Iterable[str] = ()) -> Normalized:
    """Every level of `code`; `kept_names` are never renamed at `alpha` (entry point, fixed names).

    Cached by (code, kept names): LLM samples repeat themselves a lot (369 distinct
    programs among SKYT's 4,505), and the result is a pure function of both.
    The returned object is shared between callers; treat it as read-only.
    """
    return _normalize_cached(code, frozenset(kept_names))


@functools.lru_cache(maxsize=16384)
def _normalize_cached(code: str, kept_names: frozenset[str]) -> Normalized:
    raw = raw_level(code)
    if syntax.too_large(code):  # not parsed, nor tokenized: every level is the raw text
        texts = dict.fromkeys(LEVELS, raw)
        return Normalized(texts=texts, signatures=_sign(texts), parse_error=True)
    tree = _parse(raw)
    levels = _tree_levels(tree, kept_names) if tree is not None else None
    if levels is None:
        fallback = _stable_fallback(raw)
        texts = {"raw": raw, "format": fallback, "nodoc": fallback, "alpha": fallback}
        return Normalized(texts=texts, signatures=_sign(texts), parse_error=True)
    texts = {"raw": raw, **levels}
    return Normalized(texts=texts, signatures=_sign(texts), parse_error=False)


def _tree_levels(tree: ast.Module, kept_names: frozenset[str]) -> dict[str, str] | None:
    """format, nodoc and alpha of a parsed program; None when a walk gives up (a last guard:
    `_parse` bounds the depth, so the recursive walks here have the stack they need)."""
    try:
        formatted = _unparse(tree)
        if formatted is None:
            return None
        nodoc_tree = strip_docstrings(tree)
        nodoc = _unparse(nodoc_tree) or formatted
        alpha_tree = rename_locals(nodoc_tree, kept_names)
        alpha = _unparse(alpha_tree) or nodoc
    except (RecursionError, MemoryError):
        return None
    return {"format": formatted, "nodoc": nodoc, "alpha": alpha}


def normalize_text(code: str, level: str, kept_names: Iterable[str] = ()) -> tuple[str, bool]:
    """(`normalize(code, kept_names).texts[level]`, `parse_error`) without the other levels' work.

    For callers that measure many candidate programs at one level (repair):
    `format` and `nodoc` skip the alpha renaming and the signatures.
    """
    return _normalize_text_cached(code, level, frozenset(kept_names))


@functools.lru_cache(maxsize=16384)
def _normalize_text_cached(code: str, level: str, kept_names: frozenset[str]) -> tuple[str, bool]:
    if level in ("format", "nodoc"):
        tree = _parse(raw_level(code))
        formatted = _unparse(tree) if tree is not None else None
        if tree is not None and formatted is not None:
            if level == "format" or not _has_docstring(tree):
                return formatted, False
            return _unparse(strip_docstrings(tree)) or formatted, False
    full = normalize(code, kept_names)
    return full.texts[level], full.parse_error


def _sign(texts: dict[str, str]) -> dict[str, str]:
    signed: dict[str, str] = {}  # an unparsed program's levels are one text: hashed once
    for level in LEVELS:
        text = texts[level]
        if text not in signed:
            signed[text] = signature(text)
    return {level: signed[texts[level]] for level in LEVELS}


def _stable_fallback(raw: str) -> str:
    """`fallback_normalize` iterated to a fixed point, so the level is idempotent.

    If stripping ever turns the broken code into a valid (different) program, the
    raw text is kept instead: the sample stays flagged and normalizing it again
    gives the same text.
    """
    text = raw
    for _ in range(8):
        stripped = raw_level(fallback_normalize(text))
        if _parse(stripped) is not None:
            return raw
        if stripped == text:
            return text
        text = stripped
    return raw


def fallback_normalize(code: str) -> str:
    """Comment- and spacing-free text for code `ast` cannot parse.

    Tokens of a logical line are joined by one space, each line indented by its
    nesting depth; comments and blank lines are dropped. Where the tokenizer gives
    up (an unterminated string, say), the rest is kept verbatim, minus blank lines.
    """
    lines: list[str] = []
    current: list[str] = []
    depth = 0
    last_row = 0
    statement_row = 1
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            kind = token.type
            if kind == tokenize.INDENT:
                depth += 1
            elif kind == tokenize.DEDENT:
                depth = max(0, depth - 1)
            elif kind == tokenize.NEWLINE:
                if current:
                    lines.append("    " * depth + " ".join(current))
                current = []
            elif kind == tokenize.ERRORTOKEN and token.string.isspace():
                pass
            elif kind not in (tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER):
                if not current:
                    statement_row = token.start[0]
                current.append(token.string)
            last_row = max(last_row, token.end[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        source_lines = code.split("\n")
        if last_row >= len(source_lines):  # failed at end of input: every token was seen
            if current:
                lines.append("    " * depth + " ".join(current))
            return "\n".join(lines)
        rest = source_lines[statement_row - 1 if current else last_row :]
        # kept verbatim: a trailing "\\ " matters
        lines.extend(line for line in rest if line.strip())
        return "\n".join(lines)
    if current:
        lines.append("    " * depth + " ".join(current))
    return "\n".join(lines)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _has_docstring(tree: ast.Module) -> bool:
    """Would `strip_docstrings` change `tree`? Definitions are statements, so only statement blocks are searched."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _DOCSTRING_OWNERS) and node.body and _is_docstring(node.body[0]):
            return True
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(child for child in block if isinstance(child, ast.AST))
    return False


def strip_docstrings(tree: ast.Module) -> ast.Module:
    """Remove module/class/function docstrings, in place (an emptied body becomes `pass`)."""
    for node in ast.walk(tree):
        if isinstance(node, _DOCSTRING_OWNERS) and node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
    return tree


class _Renamer(ast.NodeTransformer):
    """Second pass: rename each (owning scope, name) to `v1`, `v2`, … in first-occurrence order."""

    def __init__(
        self, collector: ScopeCollector, kept: frozenset[str], taken: frozenset[str]
    ) -> None:
        self.collector = collector
        self.kept = kept
        self.taken = taken
        self.aliases: dict[tuple[int, str], str] = {}
        self.counter = 0
        self._stack: list[Scope] = []
        self._function_params: dict[str, list[tuple[str, Scope]]] = {}

    def _alias(self, name: str, scope: Scope | None) -> str:
        if scope is None or name in self.kept or keyword.iskeyword(name):
            return name
        if scope.kind == "class":
            return name  # class-body names are attributes, reached as self.<name>
        if name.startswith("__") and name.endswith("__"):
            return name
        key = (id(scope.node), name)
        if key not in self.aliases:
            while True:
                self.counter += 1
                candidate = f"v{self.counter}"
                if candidate not in self.taken and candidate not in self.kept:
                    break
            self.aliases[key] = candidate
        return self.aliases[key]

    def _rename(self, name: str) -> str:
        scope = self._stack[-1]
        return self._alias(name, self.collector.owner(name, scope))

    def _enter(self, node: ast.AST) -> None:
        self._stack.append(self.collector.scopes[id(node)])

    def visit_Module(self, node: ast.Module) -> ast.Module:
        self._enter(node)
        self.generic_visit(node)
        self._stack.pop()
        return node

    def _visit_function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> ast.FunctionDef | ast.AsyncFunctionDef:
        in_class = self._stack[-1].kind == "class"
        if not in_class:
            node.name = self._rename(node.name)
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        self._visit_defaults(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        self._enter(node)
        self._rename_arguments(node.args)
        node.body = [self.visit(statement) for statement in node.body]
        self._stack.pop()
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        self._visit_defaults(node.args)
        self._enter(node)
        self._rename_arguments(node.args)
        node.body = self.visit(node.body)
        self._stack.pop()
        return node

    def _visit_defaults(self, args: ast.arguments) -> None:
        args.defaults = [self.visit(d) for d in args.defaults]
        args.kw_defaults = [self.visit(d) if d is not None else None for d in args.kw_defaults]
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                arg.annotation = self.visit(arg.annotation)

    def _rename_arguments(self, args: ast.arguments) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                arg.arg = self._rename(arg.arg)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        node.name = self._rename(node.name)
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        self._enter(node)
        node.body = [self.visit(statement) for statement in node.body]
        self._stack.pop()
        return node

    def _visit_comprehension(self, node: Comprehension) -> Comprehension:
        node.generators[0].iter = self.visit(node.generators[0].iter)
        self._enter(node)
        for index, generator in enumerate(node.generators):
            generator.target = self.visit(generator.target)
            if index:
                generator.iter = self.visit(generator.iter)
            generator.ifs = [self.visit(condition) for condition in generator.ifs]
        if isinstance(node, ast.DictComp):
            node.key = self.visit(node.key)
            node.value = self.visit(node.value)
        else:
            node.elt = self.visit(node.elt)
        self._stack.pop()
        return node

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension
    visit_DictComp = _visit_comprehension

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._rename(node.id)
        return node

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.NamedExpr:
        node.value = self.visit(node.value)
        scope = self._stack[-1]
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        node.target.id = self._alias(node.target.id, self.collector.owner(node.target.id, scope))
        return node

    def visit_Global(self, node: ast.Global) -> ast.Global:
        node.names = [self._rename(name) for name in node.names]
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.Nonlocal:
        node.names = [self._rename(name) for name in node.names]
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        if node.type is not None:
            node.type = self.visit(node.type)
        if node.name:
            node.name = self._rename(node.name)
        node.body = [self.visit(statement) for statement in node.body]
        return node

    def visit_MatchAs(self, node: ast.MatchAs) -> ast.MatchAs:
        if node.pattern is not None:
            node.pattern = self.visit(node.pattern)
        if node.name:
            node.name = self._rename(node.name)
        return node

    def visit_MatchStar(self, node: ast.MatchStar) -> ast.MatchStar:
        if node.name:
            node.name = self._rename(node.name)
        return node

    def visit_MatchMapping(self, node: ast.MatchMapping) -> ast.MatchMapping:
        node.keys = [self.visit(k) for k in node.keys]
        node.patterns = [self.visit(p) for p in node.patterns]
        if node.rest:
            node.rest = self._rename(node.rest)
        return node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        """Keyword arguments to the program's own functions follow their renamed parameters."""
        function_scope = None
        if isinstance(node.func, ast.Name):
            owner = self.collector.owner(node.func.id, self._stack[-1])
            definition = owner.functions.get(node.func.id) if owner is not None else None
            function_scope = (
                self.collector.scopes.get(id(definition)) if definition is not None else None
            )
        self.generic_visit(node)
        if function_scope is not None:
            for kw in node.keywords:
                if kw.arg is not None and kw.arg in function_scope.params:
                    kw.arg = self._alias(kw.arg, function_scope)
        return node


def rename_locals(tree: ast.Module, kept: frozenset[str] = frozenset()) -> ast.Module:
    """Alpha-rename, in place, every name the program binds itself (kept/builtin/imported/attribute names stay)."""
    collector = ScopeCollector()
    collector.visit(tree)
    bound_anywhere = set().union(*(scope.bound for scope in collector.scopes.values()))
    imported = set().union(*(scope.imported for scope in collector.scopes.values()))
    free = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} - bound_anywhere
    taken = frozenset(free | imported) | _BUILTIN_NAMES
    renamed: ast.Module = _Renamer(collector, frozenset(kept), taken).visit(tree)
    return renamed
