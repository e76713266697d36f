"""Grading a class: every submission of a folder, each in its own sandboxed process, checked by trusted code.

For one submission the grader walks the *instructor's* notebook cell by cell:

  answer cell     the student's version runs in the student's process (sandbox.py)
  read-only cell  the instructor's version runs in the student's process (their later cells may need it) and
                  here, in the grader's own namespace
  test cell       the instructor's version, hidden tests included, runs here; names it does not define itself
                  come from the student's process as plain data or as proxies (remote.py)

So the checks, the reference answers, numpy and pedatorch that decide a grade all live in the grader's process:
the student's code can redefine whatever it likes over there, it only changes what data comes back. A test cell
scores its points when it runs without an exception. The student's copies of test and read-only cells are
never run; edits to them are only reported.
"""
import ast
import builtins
import contextlib
import csv
import html
import importlib
import io
import json
import os
import random
import shutil
import symtable
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field

from . import notebook, remote, sandbox
from .worker import strip_magics

STATUSES = ("passed", "failed", "error", "timeout", "crashed", "invalid notebook")
# modules a test cell may get by name from the student's namespace: the grader imports its own copy
TRUSTED_MODULES = {"numpy", "math", "pedatorch", "torch", "random", "collections", "itertools", "functools",
                   "statistics", "cmath", "operator", "string", "re", "time", "matplotlib"}


@dataclass
class Row:
    student: str
    grade_id: str
    score: float
    max_score: float
    status: str
    message: str = ""
    output: str = ""


@dataclass
class Limits:
    wall_seconds: float = 120.0
    cpu_seconds: int = 60
    memory_mb: int = 3072
    processes: int = 64
    file_mb: int = 16

    def for_sandbox(self):
        return dict(cpu_seconds=self.cpu_seconds, memory_mb=self.memory_mb, processes=self.processes,
                    file_mb=self.file_mb)


@dataclass
class Assignment:
    """The instructor's notebook, read once: its cells, exercises and the names its answers define."""
    path: str
    cells: list
    tests: list = field(default_factory=list)        # the test cells (exercises), in order
    answer_names: set = field(default_factory=set)   # names the answer cells define: always the student's
    imports: dict = field(default_factory=dict)      # grade_id -> the imports of the instructor's answer cell

    @classmethod
    def load(cls, path):
        nb = notebook.read(path)
        a = cls(path, nb["cells"])
        ids = set()
        for cell in a.cells:
            gid = notebook.grade_id(cell)
            if gid is not None:
                if gid in ids:
                    raise notebook.InvalidNotebook(f"{path}: grade_id {gid!r} is used twice")
                ids.add(gid)
            if notebook.is_test(cell):
                if not gid:
                    raise notebook.InvalidNotebook(f"{path}: a test cell without a grade_id")
                a.tests.append(cell)
            elif notebook.is_solution(cell) and cell["cell_type"] == "code":
                # a module an answer cell imports is the grader's own import, never the student's object
                # under that name (a fake ``math`` whose ``prod`` always says 24)
                a.imports[gid] = _imports(cell["source"])
                a.answer_names |= _bound_names(cell["source"]) - _bound_names(a.imports[gid])
        if not a.tests:
            raise notebook.InvalidNotebook(f"{path}: no autograded test cells (nbgrader grade: true)")
        a.handout = notebook.student_version(nb)["cells"]
        return a


def _bound_names(source):
    """Names a cell binds at its top level (assignments, def, class, import)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        for n in ast.walk(node):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in n.names)
            if n is not node and isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
                break
    return names


def _imports(source):
    """The top-level import statements of a cell, as source code."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    return "\n".join(ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))


def _code_names(code):
    """Every global name a compiled cell may look up, nested functions and comprehensions included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


# --------------------------------------------------------------------------- one submission

def grade_submission(assignment, path, limits=None, student=None):
    """The rows of one submission (one per test cell, in order). Never raises for anything the student did."""
    limits = limits or Limits()
    student = student or os.path.splitext(os.path.basename(path))[0]
    rows = [Row(student, notebook.grade_id(c), 0.0, notebook.points(c), "error", "not graded")
            for c in assignment.tests]
    try:
        sub = notebook.read(path)
        answers, notes = _match(assignment, sub)
    except notebook.InvalidNotebook as e:
        for r in rows:
            r.status, r.message = "invalid notebook", str(e)
        return rows
    workdir = tempfile.mkdtemp(prefix="pedatorch-grade-")
    proc = None
    try:
        proc, to_child, from_child = sandbox.launch(workdir, limits.for_sandbox())
        conn = remote.Connection(proc, to_child, from_child, time.monotonic() + limits.wall_seconds)
        _run(assignment, answers, conn, rows)
        conn.close()
    except (remote.Timeout, remote.Crashed) as e:   # the rows not graded yet share the student process's fate
        for r in rows:
            if r.message == "not graded":
                r.status, r.message = ("timeout" if isinstance(e, remote.Timeout) else "crashed"), str(e)
    except Exception as e:   # whatever else went wrong here must not stop the batch
        for r in rows:
            if r.message == "not graded":
                r.status, r.message = "crashed", f"the grader could not finish: {type(e).__name__}: {e}"[:500]
    finally:
        if proc is not None:
            sandbox.stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)
    if notes:
        for r in rows:
            r.message = (r.message + " " if r.message else "") + f"[{'; '.join(notes)}]"
    return rows


def _match(assignment, sub):
    """The student's answer cells by grade_id, and notes on what they changed that does not count."""
    theirs = {notebook.grade_id(c): c for c in sub["cells"] if notebook.grade_id(c) is not None}
    ours = {notebook.grade_id(c): c for c in assignment.handout if notebook.grade_id(c) is not None}
    source = {notebook.grade_id(c): c for c in assignment.cells if notebook.grade_id(c) is not None}
    if ours and not set(ours) & set(theirs):
        raise notebook.InvalidNotebook("none of its exercise cells belongs to this assignment "
                                       "(a notebook of another assignment?)")
    answers, notes = {}, []
    for gid, cell in ours.items():
        if notebook.is_solution(cell):
            if gid in theirs:
                answers[gid] = theirs[gid]["source"]
            else:
                notes.append(f"answer cell {gid} was deleted")
        elif gid not in theirs:
            notes.append(f"locked cell {gid} was deleted (the instructor's copy was used)")
        elif notebook.checksum(theirs[gid]) not in (notebook.meta(cell).get("checksum"), notebook.checksum(cell),
                                                    notebook.checksum(source[gid])):   # the handout's or source's
            notes.append(f"locked cell {gid} was edited (the instructor's copy was used)")
    return answers, notes


# names whose use means a cell may reach any global: no cell can be left out then
_DYNAMIC = {"eval", "exec", "globals", "vars", "locals", "__import__", "get_ipython", "importlib", "__builtins__",
            "builtins", "sys"}


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _loads_outside_scopes(node):
    """The names ``node`` reads in the scope it runs in (not inside the functions or classes it defines, whose
    decorators, defaults and bases it does read); a comprehension's own loop variables are not reads."""
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) else set()
    if isinstance(node, _SCOPES):
        outer = list(getattr(node, "decorator_list", [])) + list(getattr(node, "bases", []))
        args = getattr(node, "args", None)
        if args is not None:
            outer += [d for d in args.defaults + args.kw_defaults if d is not None]
        return set().union(*(_loads_outside_scopes(n) for n in outer))
    reads = set().union(*(_loads_outside_scopes(n) for n in ast.iter_child_nodes(node)))
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        reads -= {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    return reads


def _stored(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _reads_in_order(stmts, bound, read):
    """Walk statements in the order they run (into loops, branches, ``with`` and ``try`` blocks), adding to
    ``read`` the names read before this cell has bound them, and to ``bound`` what the cell binds."""
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            read |= _loads_outside_scopes(stmt.iter) - bound
            bound |= _stored(stmt.target)
            _reads_in_order(stmt.body + stmt.orelse, bound, read)
        elif isinstance(stmt, (ast.While, ast.If)):
            read |= _loads_outside_scopes(stmt.test) - bound
            _reads_in_order(stmt.body + stmt.orelse, bound, read)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                read |= _loads_outside_scopes(item.context_expr) - bound
                if item.optional_vars is not None:
                    bound |= _stored(item.optional_vars)
            _reads_in_order(stmt.body, bound, read)
        elif isinstance(stmt, ast.Try):
            _reads_in_order(stmt.body, bound, read)
            for handler in stmt.handlers:
                if handler.name:
                    bound.add(handler.name)
                _reads_in_order(handler.body, bound, read)
            _reads_in_order(stmt.orelse + stmt.finalbody, bound, read)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            read |= _loads_outside_scopes(stmt.value) - bound
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                read |= _loads_outside_scopes(t) - bound   # (``x[i] = ...`` reads x)
                bound |= _stored(t)
        else:   # (an augmented assignment reads its target first: its Name is a Store, read here by hand)
            read |= _loads_outside_scopes(stmt) - bound
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id not in bound:
                read.add(stmt.target.id)
            bound |= _bound_names(ast.unparse(stmt))


def _cell_names(source):
    """(names the cell binds at its top level, the variables among them, the names it reads from earlier
    cells), or None when it does not parse. A name the cell binds before reading it is its own; a module alias
    (``F = torch.nn.functional``: an attribute path) is not a variable."""
    try:
        source = strip_magics(source)
        tree = ast.parse(source)
        table = symtable.symtable(source, "<cell>", "exec")
    except (SyntaxError, ValueError):
        return None
    bound, read = set(), set()
    _reads_in_order(tree.body, bound, read)

    def nested(scope):   # the global names the cell's functions and classes read when they run
        for sym in scope.get_symbols():
            if sym.is_referenced() and sym.is_global():
                read.add(sym.get_name())
            if sym.is_declared_global() and sym.is_assigned():   # ``global x; x = ...`` in a def
                bound.add(sym.get_name())
        for child in scope.get_children():
            nested(child)
    for child in table.get_children():
        nested(child)
    read -= bound - _loads_outside_scopes(tree)   # (a function reading a name the cell binds reads its own)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    aliases = {t.id for n in tree.body if isinstance(n, ast.Assign) and _is_path(n.value)
               for t in n.targets if isinstance(t, ast.Name)}
    return bound, bound - defined - aliases - _bound_names(_imports(source)), read


def _is_path(node):
    """``a.b.c``: an attribute path from a name, with no call."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _changes_a_setting(source, modules):
    """Does the cell change a library's settings (``torch.set_default_dtype(...)``, ``warnings.filterwarnings``,
    ``plt.rcParams[...] = ...``, ``torch.backends.x = ...``)? Such a cell binds nothing, yet later cells see it."""
    try:
        tree = ast.parse(strip_magics(source))
    except (SyntaxError, ValueError):
        return True

    def root(node):
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None
    def top_level(node):   # the nodes that run when the cell runs: not function bodies, not a
        yield node         # ``with warnings.catch_warnings():`` block (its filters end with it)
        if isinstance(node, _SCOPES) or isinstance(node, ast.With) and any(
                isinstance(w.context_expr, ast.Call) and isinstance(w.context_expr.func, ast.Attribute) and
                w.context_expr.func.attr == "catch_warnings" for w in node.items):
            return
        for child in ast.iter_child_nodes(node):
            yield from top_level(child)
    for n in top_level(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and root(n.func) in modules and \
                n.func.attr.startswith(("set_", "use_", "filterwarnings", "simplefilter", "enable", "disable")):
            return True
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
        if any(isinstance(t, (ast.Attribute, ast.Subscript)) and root(t) in modules for t in targets):
            return True
    return False


def skipped_in_grading(cell):
    """Did the instructor mark this read-only cell to be left out of grading runs (a long training run to watch,
    that no exercise needs)? Cell metadata ``{"pedatorch": {"grading": "skip"}}``."""
    m = cell.get("metadata", {}).get("pedatorch")
    return isinstance(m, dict) and m.get("grading") == "skip"


def _cells_to_run(assignment, answers):
    """Which of the instructor's code cells a grading run executes: every answer and test cell, and the read-only
    cells these depend on. Going backwards from the last cell, a read-only cell is kept when it binds a name a
    kept cell after it reads, reads a variable one reads (it may change that object: ``train(model)``), or
    changes a library setting. Cells the instructor marked (``skipped_in_grading``) are left out, and with them
    the read-only cells that read what they bind. So a lesson's teaching cells (a training run to watch, a
    picture) that no exercise needs are left out, in the student's process and here alike. Any doubt (a cell
    that does not parse, ``globals()``, ``eval``) keeps every cell but the marked ones."""
    cells = [(i, c) for i, c in enumerate(assignment.cells) if c.get("cell_type") == "code"]
    info = {}
    for i, cell in cells:
        gid = notebook.grade_id(cell)
        source = answers.get(gid, notebook.CODE_STUB) if notebook.is_solution(cell) else cell["source"]
        info[i] = _cell_names(source)
    read_only = {i for i, c in cells if not (notebook.is_solution(c) or notebook.is_test(c))}
    # forward: what the marked cells bind is missing, and so is whatever a read-only cell reading it binds
    skipped, missing = set(), set()
    for i, cell in cells:
        if i in read_only and (skipped_in_grading(cell) or info[i] is not None and info[i][2] & missing):
            skipped.add(i)
            missing |= info[i][0] if info[i] is not None else set()
        elif info[i] is not None:
            missing -= info[i][0]
    if any(v is None or v[2] & _DYNAMIC for v in info.values()):
        return {i for i, _ in cells} - skipped
    modules = set().union(*(_bound_names(_imports(c["source"])) for _, c in cells))
    modules |= set().union(*(v[0] - v[1] for v in info.values())) - {
        n for v in info.values() for n in v[0] if n[:1].isupper()}   # (aliases, not defs or classes)
    variables = set().union(*(info[i][1] for i, _ in cells))
    keep, reads = set(), set()
    for i, cell in reversed(cells):
        if i in skipped:
            continue
        bound, _, read = info[i]
        if i not in read_only or bound & reads or read & reads & variables or \
                _changes_a_setting(cell["source"], modules):
            keep.add(i)
            reads |= read
    return keep


def _seed_everything():
    """Both processes start from the same seeds, so re-grading gives the same inputs and grades."""
    import numpy as np
    from .._random import manual_seed
    random.seed(0)
    np.random.seed(0)
    manual_seed(0)


def _run(assignment, answers, conn, rows):
    ns = {"__name__": "__main__", "__builtins__": builtins}
    _seed_everything()
    conn.exec_cell("import random as _r, numpy as _np, pedatorch as _pt\n_r.seed(0); _np.random.seed(0); "
                   "_pt.manual_seed(0)\ndel _r, _np, _pt", "seed")
    last_error = ""
    by_id = {r.grade_id: r for r in rows}
    to_run = _cells_to_run(assignment, answers)
    for i, cell in enumerate(assignment.cells):
        if cell.get("cell_type") != "code" or i not in to_run:
            continue
        gid = notebook.grade_id(cell)
        if notebook.is_solution(cell):
            source = answers.get(gid, notebook.CODE_STUB)
            try:
                conn.exec_cell(source, gid)
            except remote.StudentError as e:
                last_error = f"answer cell {gid} raised {e}"
            if assignment.imports.get(gid):
                _exec_quietly(assignment.imports[gid], ns)
            continue
        if notebook.is_test(cell):
            _run_test(cell, ns, conn, by_id[gid], assignment.answer_names, last_error)
            last_error = ""   # an error before this test is no news to the next exercise's test
            continue
        try:   # a read-only / set-up cell: both sides run the instructor's version
            conn.exec_cell(cell["source"], gid or f"cell {i}")
        except remote.StudentError as e:
            last_error = f"set-up cell {i} raised {e}"
        try:
            _exec_here(cell["source"], ns, conn, assignment.answer_names)
        except (remote.Timeout, remote.Crashed):
            raise
        except Exception:   # it may use the student's names or objects that arrive here as plain data (a
            pass            # tensor without its grad_fn), and fail on them: a test that needs it says so itself


def _trusted_module(name):
    """The grader's own copy of a module the student's namespace holds under a name a test uses: a module of
    TRUSTED_MODULES, or a submodule of one the grader has imported already. Never a new submodule: importing
    one runs its code here, and some run a program (``numpy.f2py.__main__``)."""
    if name in TRUSTED_MODULES:
        return importlib.import_module(name)
    return sys.modules.get(name) if name.split(".")[0] in TRUSTED_MODULES else None


def _exec_quietly(source, ns):
    """Run trusted instructor code (an answer cell's imports) in the grader's namespace."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            exec(compile(source, "<imports>", "exec"), ns)
        except Exception:   # an import the grader lacks: the test cell then reports the NameError
            pass


def _exec_here(source, ns, conn, answer_names):
    """Run instructor code in the grader's namespace; names it lacks come from the student's process."""
    code = compile(strip_magics(source), "<test cell>", "exec")   # (%config ...: no IPython here either)
    wanted = {n for n in _code_names(code) if n in answer_names or (n not in ns and not hasattr(builtins, n))}
    if wanted:
        for name, (kind, value) in conn.names(sorted(wanted)).items():
            if kind == "module":
                module = _trusted_module(str(value))
                if module is not None:
                    ns[name] = module
            else:
                ns[name] = value
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            exec(code, ns)
        finally:
            ns["__output__"] = out.getvalue()


def _run_test(cell, ns, conn, row, answer_names, last_error):
    try:
        _exec_here(cell["source"], ns, conn, answer_names)
        row.score, row.status, row.message = notebook.points(cell), "passed", ""
    except AssertionError as e:
        row.status, row.message = "failed", str(e) or "a check failed"
    except remote.StudentError as e:
        row.status, row.message = "error", f"your code raised {e}"
    except (remote.Timeout, remote.Crashed) as e:
        row.status, row.message = ("timeout" if isinstance(e, remote.Timeout) else "crashed"), str(e)
        raise
    except Exception as e:   # NameError (an answer missing), TypeError ...: the check could not run
        tb = traceback.extract_tb(e.__traceback__)
        row.status, row.message = "error", f"{type(e).__name__}: {e}" + (f" (line {tb[-1].lineno})" if tb else "")
    if row.status != "passed" and last_error:
        row.message += f" (earlier: {last_error})"
    row.output = ns.pop("__output__", "")


# --------------------------------------------------------------------------- a class

def grade(source, submissions, out="grades.csv", limits=None, jobs=2, feedback_dir=None, results_json=None):
    """Grade every ``*.ipynb`` in ``submissions`` (file name = student id); write the CSV, feedback files and
    Gradescope-format results; return the rows. One submission's trouble never stops the batch."""
    assignment = Assignment.load(source)
    paths = sorted(os.path.join(submissions, f) for f in os.listdir(submissions) if f.endswith(".ipynb"))
    limits = limits or Limits()
    rows = []
    if jobs > 1 and len(paths) > 1:
        import concurrent.futures
        import multiprocessing
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as ex:
            futures = [ex.submit(_grade_path, (source, p, limits)) for p in paths]
            for p, fut in zip(paths, futures):   # in folder order, whatever order they finish in
                try:
                    rows += fut.result()
                except Exception as e:   # a grading process died: this submission's rows say so, the rest go on
                    rows += _failed_rows(assignment, p, "crashed", f"the grader's process failed: {e}"[:500])
    else:
        for p in paths:
            rows += grade_submission(assignment, p, limits)
    out_dir = os.path.dirname(os.path.abspath(out))
    os.makedirs(out_dir, exist_ok=True)
    write_csv(rows, out)
    write_feedback(rows, feedback_dir or os.path.join(out_dir, "feedback"))
    write_gradescope(rows, results_json or os.path.join(out_dir, "results.json"))
    return rows


def _failed_rows(assignment, path, status, message):
    student = os.path.splitext(os.path.basename(path))[0]
    return [Row(student, notebook.grade_id(c), 0.0, notebook.points(c), status, message) for c in assignment.tests]


def _grade_path(args):
    source, path, limits = args
    return grade_submission(Assignment.load(source), path, limits)


def write_csv(rows, path):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "grade_id", "score", "max_score", "status", "message"])
        for r in rows:
            w.writerow([r.student, r.grade_id, f"{r.score:g}", f"{r.max_score:g}", r.status, r.message])


def _by_student(rows):
    out = {}
    for r in rows:
        out.setdefault(r.student, []).append(r)
    return out


def write_feedback(rows, folder):
    """One HTML page per student: each exercise's score, status, message and the checks' own words."""
    os.makedirs(folder, exist_ok=True)
    for student, rs in _by_student(rows).items():
        total, best = sum(r.score for r in rs), sum(r.max_score for r in rs)
        parts = [f"<h1>{html.escape(student)}: {total:g} / {best:g}</h1>"]
        for r in rs:
            parts.append(f"<h2>{html.escape(r.grade_id)}: {r.score:g} / {r.max_score:g} ({html.escape(r.status)})"
                         f"</h2>")
            if r.message:
                parts.append(f"<p>{html.escape(r.message)}</p>")
            if r.output:
                parts.append(f"<pre>{html.escape(r.output[-5000:])}</pre>")
        with open(os.path.join(folder, f"{student}.html"), "w", encoding="utf-8") as f:
            f.write("<!doctype html><meta charset='utf-8'><title>Feedback</title>\n" + "\n".join(parts) + "\n")


def gradescope_result(rs):
    """One submission's rows in Gradescope's autograder results format."""
    return {"score": sum(r.score for r in rs), "output": "",
            "tests": [{"name": r.grade_id, "score": r.score, "max_score": r.max_score,
                       "status": "passed" if r.status == "passed" else "failed",
                       "output": (f"{r.status}: {r.message}" if r.message else r.status) +
                                 (f"\n{r.output}" if r.output else "")} for r in rs]}


def write_gradescope(rows, path):
    """``results.json``: with one student Gradescope's format itself; with several, one such object each."""
    by = _by_student(rows)
    data = gradescope_result(next(iter(by.values()))) if len(by) == 1 else \
        {student: gradescope_result(rs) for student, rs in by.items()}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)


def assign(source, out_dir, keep_outputs=False):
    """Write the student version of ``source`` into ``out_dir``; returns its path.
    ``keep_outputs``: see ``notebook.student_version`` (the lessons keep their teaching outputs)."""
    nb = notebook.read(source)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, os.path.basename(source))
    if os.path.abspath(path) == os.path.abspath(source):
        raise ValueError("the student version would overwrite the source notebook: choose another folder")
    notebook.write(notebook.student_version(nb, keep_outputs=keep_outputs), path)
    return path


if __name__ == "__main__":
    sys.exit("use python -m pedatorch.grading")
