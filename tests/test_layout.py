"""The architecture rules that keep the engine reusable and the app thin."""

import ast
import json
import re
import shutil
import subprocess
import sys
import textwrap
import threading
from dataclasses import asdict
from pathlib import Path

from skyt_tui.engine.sandbox.pool import WORKER_ENV, Limits
from skyt_tui.engine.sandbox.worker import zygote
from skyt_tui.engine.sandbox.worker.framing import FRAME_HEADER, encode_frame, read_exact

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = ROOT / "skyt_tui" / "engine" / "sandbox"
WORKER = SANDBOX / "worker"


def test_engine_never_imports_textual():
    code = (
        "import sys, pkgutil, importlib, skyt_tui.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'skyt_tui.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "assert 'textual' not in sys.modules, 'engine imported textual'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_app_starts_without_the_analysis_pipeline_or_numpy():
    """The first screen only reads the store; the pipeline, numpy and the other sections load when used
    (bench/app_start.py measures the start; this keeps a stray import from undoing it)."""
    heavy = (
        "numpy",
        "skyt_tui.engine.analysis.pipeline",
        "skyt_tui.engine.oracle.judge",
        "skyt_tui.engine.repair",
        "skyt_tui.engine.benchmark",
        "skyt_tui.engine.generation.runner",
        "skyt_tui.ui.screens.heatmap",
        "ray",
    )
    code = (
        "import sys, skyt_tui.ui.app, skyt_tui.ui.screens.contracts, skyt_tui.ui.screens.welcome\n"
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.strip() == ""


def test_version_and_module_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "--version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert out.stdout.startswith("skyt-tui ")


def test_what_runs_in_the_sandbox_imports_the_standard_library_alone():
    """The worker's modules and `wire` run where skyt_tui is hidden and no third-party package is
    promised: every absolute import is of the standard library; a relative import reaches only
    the worker's own modules or `wire` (checked here too). The names the zygote preloads are the
    standard library's as well."""
    own = {path.stem for path in WORKER.glob("*.py")} - {"__init__"}
    modules = [*sorted(WORKER.glob("*.py")), SANDBOX / "wire.py"]
    assert len(modules) > 2 and {"entry", "zygote", "framing"} <= own
    wrong = []
    for path in modules:
        in_worker = path.parent == WORKER
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                targets = [node.module or ""]
            elif isinstance(node, ast.ImportFrom):
                relative = _relative_targets(node, own) if in_worker else None
                if relative is None:
                    wrong.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
                continue
            else:
                continue
            for target in targets:
                if target.split(".")[0] not in sys.stdlib_module_names:
                    wrong.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    preloaded = [
        name
        for name in zygote.PRELOADED_MODULES
        if name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert wrong == [] and preloaded == []


def _relative_targets(node, own):
    """The worker-relative names a relative import in a worker module names, or None when it
    reaches beyond the worker's modules and `wire`."""
    names = [alias.name for alias in node.names]
    if node.level == 1:
        wanted = [node.module.split(".")[0]] if node.module else names
        return wanted if all(name in own for name in wanted) else None
    if node.level == 2:
        wanted = [node.module] if node.module else names
        return wanted if wanted == ["wire"] else None
    return None


def test_the_worker_starts_by_path_from_a_folder_off_sys_path(tmp_path):
    """The worker's files, copied as bubblewrap binds them (`worker/` beside `wire.py`), start the
    way the pool starts them, and without site-packages too (-S): nothing but the standard library
    and those files. A sample it runs finds that folder neither on `sys.path` nor by `import`, and
    nothing of skyt_tui is loaded."""
    copy = _copy_worker(tmp_path)
    program = textwrap.dedent("""
        import importlib, os, sys
        def probe(folders):
            found = []
            for name in ("entry", "zygote", "framing", "wire", "worker", "skyt_tui"):
                try:
                    importlib.import_module(name)
                    found.append(name)
                except ImportError:
                    pass
            return {
                "on_path": [p for p in sys.path if os.path.abspath(p or ".") in folders],
                "imported": found,
                "skyt_tui": sorted(m for m in sys.modules if m.split(".")[0] == "skyt_tui"),
            }
        """)
    folders = [str(copy), str(copy / "worker")]
    job = {
        "program": program,
        "entry": "probe",
        "entry_kind": "function",
        "tests": [{"i": 0, "op": "call", "args": [folders], "kwargs": {}}],
        "checks": [],
        "timeout_s": 10.0,
    }
    replies = _run_worker(copy, tmp_path, job)
    assert [header["t"] for header, _ in replies] == ["hello", "started", "result", "ready"]
    assert replies[0][0]["checker"] == "exec"
    frames = _frames(replies[2][1][0])
    assert [frame["t"] for frame in frames] == ["loaded", "call", "tests_done"], frames
    assert frames[1]["r"] == {"on_path": [], "imported": [], "skyt_tui": []}


CHECKER_IMAGE = (
    "import sys\ndef check(candidate):\n    assert candidate('statistics' in sys.modules)\n"
)


def test_the_checker_is_exec_d_through_the_worker_s_folder(tmp_path):
    """The zygote's checker is a fresh interpreter started from the copied worker's own folder
    (not the zygote's image: no preloaded `statistics`); its check passes."""
    copy = _copy_worker(tmp_path)
    replies = _run_worker(
        copy, tmp_path, _check_job(CHECKER_IMAGE, "def f(x):\n    return not x\n")
    )
    assert [header["t"] for header, _ in replies] == ["hello", "started", "result", "ready"]
    assert replies[0][0]["checker"] == "exec" and replies[0][0]["checker_problem"] is None
    assert _frames(replies[2][1][1])[0]["passed"]


def test_a_checker_that_cannot_be_exec_d_is_a_fork_of_the_zygote(tmp_path):
    """Where the exec fails (the kernel refuses it) or the exec'd checker does not start, the
    zygote says so when it starts its first checker (for the first job with checks, a
    "checker" message after the hello, which assumed the exec) and its checkers are forks of
    it, as before the exec: the check still runs (here it sees the zygote's preloaded
    `statistics`)."""
    broken = {
        "refused": (
            "zygote.py",
            "            sys.executable,\n",
            '            "/nonexistent/python",\n',
        ),
        "dead": (
            "entry.py",
            'load("checker").exec_main(sys.argv[2:])',
            "sys.exit(1)",
        ),
    }
    for name, (module, old, new) in broken.items():
        copy = _copy_worker(tmp_path / name)
        source = (copy / "worker" / module).read_text(encoding="utf-8")
        assert source.count(old) == 1, name
        (copy / "worker" / module).write_text(source.replace(old, new), encoding="utf-8")
        job = _check_job(CHECKER_IMAGE, "def f(x):\n    return x\n")
        replies = _run_worker(copy, tmp_path / name, job)
        kinds = [header["t"] for header, _ in replies]
        assert kinds == ["hello", "checker", "started", "result", "ready"], (name, kinds)
        assert replies[0][0]["checker"] == "exec", name
        told = replies[1][0]
        assert told["checker"] == "fork", name
        assert ("failed" if name == "refused" else "did not start") in told["checker_problem"]
        assert _frames(replies[3][1][1])[0]["passed"], name


def _check_job(check, program):
    return {
        "program": program,
        "entry": "f",
        "entry_kind": "function",
        "tests": [],
        "checks": [{"i": 0, "code": check}],
        "timeout_s": 10.0,
    }


def _copy_worker(folder):
    """The worker's files copied as bubblewrap binds them (`worker/` beside `wire.py`)."""
    copy = folder / "skyt-sandbox"
    shutil.copytree(WORKER, copy / "worker", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SANDBOX / "wire.py", copy / "wire.py")
    return copy


def _run_worker(copy, folder, job):
    """Start the copied worker as the pool does (without site-packages too), run `job`, stop it;
    its replies, up to the "ready" after the job."""
    config = {
        "sample_uid": None,
        "checker_uid": None,
        "workdir": str(folder / "work"),
        "read_paths": [],
        "hidden_paths": [],
        "limits": asdict(Limits()),
        "seccomp": False,
        "landlock": False,
        "memory_cgroup": False,
        "tmpfs": None,
        "private_ipc": False,
        "namespaces": False,
        "layout": [],
        "shared_dirs": [],
    }
    command = [sys.executable, "-S", "-s", "-P", "-B", str(copy / "worker" / "entry.py")]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(WORKER_ENV),
        cwd=folder,
    )
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        proc.stdin.write(encode_frame(config) + encode_frame(job))
        proc.stdin.flush()
        replies = [_reply(proc.stdout.fileno())]
        while replies[-1][0]["t"] != "ready":
            replies.append(_reply(proc.stdout.fileno()))
        proc.stdin.close()
        assert proc.wait() == 0, proc.stderr.read()
    finally:
        watchdog.cancel()
        proc.kill()
    return replies


def _reply(fd):
    """One reply of the zygote: its header and the raw blobs after it."""
    head = read_exact(fd, FRAME_HEADER.size)
    assert head is not None, "the worker ended without answering"
    (length,) = FRAME_HEADER.unpack(head)
    header = json.loads(read_exact(fd, length))
    return header, [read_exact(fd, size) if size else b"" for size in header["lens"]]


def _frames(stream):
    frames, offset = [], 0
    while offset < len(stream):
        (length,) = FRAME_HEADER.unpack_from(stream, offset)
        frames.append(
            json.loads(stream[offset + FRAME_HEADER.size : offset + FRAME_HEADER.size + length])
        )
        offset += FRAME_HEADER.size + length
    return frames


def test_no_two_screens_import_each_other():
    """Screens form no import cycle, deferred imports inside functions included: a detail is handed
    what it needs of the list it was opened from instead of importing it back."""
    import ast

    screens = ROOT / "skyt_tui" / "ui" / "screens"
    graph: dict[str, set[str]] = {}
    for path in screens.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("skyt_tui.ui.screens."):
                    names.add(node.module.rsplit(".", 1)[1])
        graph[path.stem] = names

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            module = todo.pop()
            for imported in graph.get(module, ()):
                if imported == goal:
                    return True
                if imported not in seen:
                    seen.add(imported)
                    todo.append(imported)
        return False

    assert graph["runs"] and graph["run_detail"]
    assert [module for module in sorted(graph) if reaches(module, module)] == []


def test_the_engine_is_rooms_each_on_contributings_map():
    """The tree shows the architecture: a dozen modules at most at the engine's top, every room
    (package) saying in its docstring what it holds and may import, and named on CONTRIBUTING.md's
    map; no module of the package over 1,000 lines."""
    engine = ROOT / "skyt_tui" / "engine"
    top = [p.name for p in engine.glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 12, sorted(top)
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    rooms = sorted(p.parent.name for p in engine.glob("*/__init__.py"))
    assert len(rooms) >= 10
    for room in rooms:
        doc = ast.get_docstring(ast.parse((engine / room / "__init__.py").read_text()))
        assert doc and "import" in doc, f"{room}/__init__.py must say what the room may import"
        assert f"`{room}/`" in contributing, f"CONTRIBUTING.md's map does not name {room}/"
    long = [
        (str(path.relative_to(ROOT)), n)
        for path in (ROOT / "skyt_tui").rglob("*.py")
        if "bundled" not in path.parts
        and (n := len(path.read_text(encoding="utf-8").splitlines())) > 1000
    ]
    assert long == []


FRONT_END_LIMIT = 800
"""The most lines a module of the front ends (`ui/`, `cli/`) may have: a larger one is split by
section or subcommand (one module once held every call of the app into the engine: 930 lines)."""


def test_no_front_end_module_is_over_800_lines():
    long = [
        (str(path.relative_to(ROOT)), n)
        for front_end in ("ui", "cli")
        for path in (ROOT / "skyt_tui" / front_end).rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > FRONT_END_LIMIT
    ]
    assert long == []


EXTERNAL_PATHS = {
    "src/metrics.py",
    "src/contract_compliance.py",
    "evalplus/eval/__init__.py",
    "evalplus/data/mbpp.py",
    "TASK/K.py",
}
"""Files of other projects that docstrings and docs cite by name (SKYT's metrics and compliance
checker, EvalPlus's checker and MBPP+ loader), and the placeholder of a path a tool writes
(`TASK/K.py`): not ours to find here."""
_PY_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w-]+\.py)\b")
_MODULE_NAME = re.compile(r"`((?:skyt_tui\.)?engine\.[\w.]+)`")


def _prose_files():
    """The files whose words name our files: the package's modules, the docs, the map, the README."""
    package = [p for p in (ROOT / "skyt_tui").rglob("*.py") if "bundled" not in p.parts]
    return [
        *package,
        *sorted((ROOT / "docs").rglob("*.md")),
        ROOT / "CONTRIBUTING.md",
        ROOT / "README.md",
    ]


def _top_level_names(path):
    """The names a module defines at its top (assignments, functions, classes, imports)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _module_reference_exists(dotted):
    """`engine.room.module` or `skyt_tui.engine.room.module.NAME`: the module is a file of the
    package (or the compiled extension) and NAME, when given, is defined at its top."""
    parts = dotted.removeprefix("skyt_tui.").split(".")
    for length in range(len(parts), 0, -1):
        stem = ROOT.joinpath("skyt_tui", *parts[:length])
        if stem.with_suffix(".py").exists():
            module = stem.with_suffix(".py")
        elif (stem / "__init__.py").exists():
            module = stem / "__init__.py"
        elif stem.with_suffix(".c").exists():  # `measure._ted`, built from `_ted.c`
            return length == len(parts)
        else:
            continue
        rest = parts[length:]
        if not rest:
            return True
        return len(rest) == 1 and rest[0] in _top_level_names(module)
    return False


def test_every_file_and_module_the_words_name_exists():
    """A path like `runs/analysis_child.py` or a name like `engine.studies.study_report` in a
    docstring, a doc page or the map names a file that exists (a moved module once left
    `engine/analysis_child.py` behind in a screen's docstring). A path may be relative to the
    repository, the package, the engine or any folder in it: some file ends with it."""
    ours = set()  # every tail of every file's path: `a/b/c.py`, `b/c.py`, `c.py`
    for file in ROOT.rglob("*.py"):
        parts = file.relative_to(ROOT).parts
        ours.update("/".join(parts[i:]) for i in range(len(parts)))
    stale = []
    for path in _prose_files():
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        for match in _PY_PATH.finditer(text):
            named = match.group(1)
            if named in EXTERNAL_PATHS or named in ours:
                continue
            stale.append(f"{where}:{text.count(chr(10), 0, match.start()) + 1}: {named}")
        for match in _MODULE_NAME.finditer(text):
            named = match.group(1)
            if _module_reference_exists(named):
                continue
            stale.append(f"{where}:{text.count(chr(10), 0, match.start()) + 1}: {named}")
    assert stale == []


ENGINE = ROOT / "skyt_tui" / "engine"
LEAVES = frozenset(("errors", "versions", "printable", "store", "filemode", "syntax"))
"""The shared leaves below every room (CONTRIBUTING.md's map)."""


def _engine_imports(room):
    """Every `skyt_tui.engine.…` module the room's modules import (at their top, inside functions
    or for type checking alike, as import-linter counts them), by dotted name below the engine."""
    found = set()
    for path in (ENGINE / room).rglob("*.py"):
        package = path.relative_to(ROOT).with_suffix("").parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
                module = ".".join(filter(None, (base, node.module)))
                modules = [module] + [f"{module}.{alias.name}" for alias in node.names]
            else:
                continue
            for module in modules:
                if module.startswith("skyt_tui.engine."):
                    found.add(module.removeprefix("skyt_tui.engine."))
    return found


def _may_import(doc):
    """The backquoted names of a room docstring's "May import:" paragraph."""
    start = doc.index("May import:")
    paragraph = doc[start:].split("\n\n")[0]
    return set(re.findall(r"`([\w.]+)`", paragraph)), "shared leaves" in paragraph


def test_each_rooms_may_import_names_the_rooms_it_imports():
    """A room's "May import:" names exactly the rooms its modules import (the `analysis/` and
    `measure/` docstrings once said less than their imports did); a room named with a module
    (`measure.normalize`) is imported through that module only. Leaves: "the shared leaves"
    allows any; named leaves (`versions`, `syntax`) are the only ones it imports."""
    rooms = sorted(p.parent.name for p in ENGINE.glob("*/__init__.py"))
    wrong = []
    for room in rooms:
        doc = ast.get_docstring(ast.parse((ENGINE / room / "__init__.py").read_text()))
        assert doc and "May import:" in doc, room
        named, any_leaf = _may_import(doc)
        imported = {m for m in _engine_imports(room) if m.split(".")[0] != room}
        imported_rooms = {m.split(".")[0] for m in imported} & set(rooms)
        named_rooms = {n.split(".")[0] for n in named} & set(rooms)
        if imported_rooms != named_rooms:
            wrong.append(f"{room}: imports {sorted(imported_rooms)}, says {sorted(named_rooms)}")
        for through in (n for n in named if "." in n and n.split(".")[0] in rooms):
            other = through.split(".")[0]
            beyond = {m for m in imported if m.split(".")[0] == other} - {other, through}
            beyond = {m for m in beyond if not m.startswith(through + ".")}
            if beyond:
                wrong.append(f"{room}: imports {sorted(beyond)}, says only `{through}`")
        leaves = {m.split(".")[0] for m in imported} & LEAVES
        named_leaves = named & LEAVES
        if named_leaves and leaves != named_leaves or not (named_leaves or any_leaf) and leaves:
            wrong.append(f"{room}: imports leaves {sorted(leaves)}, says {sorted(named_leaves)}")
    assert wrong == []


def test_no_room_imports_another_rooms_private_names():
    """What a room shares is public: repair once imported `_Scope`, `_ScopeCollector`, `_ScopeWalk`
    and `_all_args` from `measure.normalize`; that scope analysis is now `measure.scoping`. A
    `_name` may be imported within its own room only."""
    wrong = []
    for path in ENGINE.rglob("*.py"):
        room = path.relative_to(ENGINE).parts[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                continue
            parts = node.module.split(".")
            if parts[:2] != ["skyt_tui", "engine"] or len(parts) < 3 or parts[2] == room:
                continue
            private = [a.name for a in node.names if a.name.startswith("_")]
            if private:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module} {private}")
    assert wrong == []


def test_each_derived_limit_is_written_once():
    """A limit derived from another (a job's CPU limit from its timeout, the pool's deadline from
    the timeout and the worker's grace, the bounds of a test's time limit) is computed in one
    place, which every user calls: a second copy could drift from the first (issue 38)."""
    derived = {
        "the CPU limit of a job's processes": re.compile(r"timeout_s\"\]\)\)\s*\+\s*\d"),
        "the pool's deadline of a started job": re.compile(r"grace_s\s*\+\s*1"),
        "the bounds of a test's time limit": re.compile(r"\b0\.1\b[^\n]*\b600\b"),
    }
    for what, pattern in derived.items():
        places = [
            f"{path.relative_to(ROOT)}:{number}"
            for path in sorted((ROOT / "skyt_tui").rglob("*.py"))
            for number, line in enumerate(path.read_text().splitlines(), 1)
            if pattern.search(line) and not line.lstrip().startswith(("#", '"""'))
        ]
        assert len(places) <= 1, f"{what} is computed in {len(places)} places: {places}"


RUNS_ROOM = "skyt_tui.engine.runs"
NOT_MODULES = ("skyt_tui/bundled", "tests/fixtures")
"""Folders of data that look like Python (bundled example samples, some not valid on purpose)."""


def _renamed_runs_modules(text, package):
    """Each import in module `text` (of `package`, for relative imports) of one of the runs room's
    modules under another name, as `line: what`."""
    modules = {p.stem for p in (ROOT / "skyt_tui" / "engine" / "runs").glob("*.py")} - {"__init__"}
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parent, _, name = alias.name.rpartition(".")
                if parent == RUNS_ROOM and name in modules and alias.asname not in (None, name):
                    found.append(f"{node.lineno}: import {alias.name} as {alias.asname}")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + [base] * bool(base))
            for alias in node.names if base == RUNS_ROOM else ():
                if alias.name in modules and alias.asname not in (None, alias.name):
                    found.append(
                        f"{node.lineno}: from {base} import {alias.name} as {alias.asname}"
                    )
    return found


def test_the_runs_rooms_modules_are_imported_under_their_own_names():
    """`run_store as runs`, `analyses as runs` and `analyses as run_analyses` once gave one name to
    two modules, and `runs` is also the name of many lists of runs (issue 38): a module of the runs
    room (`run_store`, `analyses`, ...) is imported by its own name everywhere."""
    wrong = [
        f"{path.relative_to(ROOT)}:{place}"
        for folder in ("skyt_tui", "tests", "bench", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if not path.relative_to(ROOT).as_posix().startswith(NOT_MODULES)
        for place in _renamed_runs_modules(
            path.read_text(encoding="utf-8"), ".".join(path.relative_to(ROOT).parent.parts)
        )
    ]
    assert wrong == []


def test_the_alias_guard_finds_each_form_of_import():
    """The guard above sees absolute, dotted and relative imports, and lets own names pass."""
    text = (
        "from skyt_tui.engine.runs import run_store as runs\n"
        "from skyt_tui.engine.runs import analyses, run_store\n"
        "import skyt_tui.engine.runs.analyses as run_analyses\n"
        "from . import analyses as runs\n"
        "from ..runs import run_store as store\n"
        "from skyt_tui.engine import runs\n"
        "from skyt_tui.engine.runs.run_store import load_run as load\n"
    )
    assert _renamed_runs_modules(text, "skyt_tui.engine.runs") == [
        "1: from skyt_tui.engine.runs import run_store as runs",
        "3: import skyt_tui.engine.runs.analyses as run_analyses",
        "4: from skyt_tui.engine.runs import analyses as runs",
        "5: from skyt_tui.engine.runs import run_store as store",
    ]
