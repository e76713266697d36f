"""The lessons as files: the handouts match their instructor sources, every link into pedatorch's source
still points at a file and a name that exist, each lesson has its exercises, and the cells that show
PyTorch's behaviour print the same under real PyTorch.

Layout (README, "The lessons"): ``instructor/NN_name.ipynb`` holds the solutions, hidden tests and all
outputs; ``lessons/NN_name.ipynb`` is its handout, made by ``make lessons`` (``pedatorch-assign
--keep-outputs``). ``pytest --nbval lessons/ instructor/`` runs both (``make test``).
"""
import ast
import contextlib
import glob
import io
import json
import os
import re
import warnings

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTRUCTOR = sorted(glob.glob(os.path.join(ROOT, "instructor", "*.ipynb")))
HANDOUTS = sorted(glob.glob(os.path.join(ROOT, "lessons", "*.ipynb")))
ALL = HANDOUTS + INSTRUCTOR
LINK = re.compile(r"\[([^\]]+)\]\((\.\./pedatorch/[^)#\s]*)(#[^)\s]*)?\)")
CHECKS = ("check_value", "check_function", "check_backward", "check_module", "check_optimizer", "check_training")


def _read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _ids(paths):
    return [os.path.relpath(p, ROOT) for p in paths]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


@pytest.mark.parametrize("path", INSTRUCTOR, ids=_ids(INSTRUCTOR))
def test_handout_is_made_from_its_instructor_source(path):
    """lessons/X.ipynb is exactly what `make lessons` makes of instructor/X.ipynb (never edited by hand)."""
    from pedatorch.grading import notebook
    handout = os.path.join(ROOT, "lessons", os.path.basename(path))
    assert os.path.exists(handout), f"no handout for {path}: run make lessons"
    want = notebook.student_version(notebook.read(path), keep_outputs=True)
    got = notebook.read(handout)
    assert len(got["cells"]) == len(want["cells"])
    for a, b in zip(got["cells"], want["cells"]):
        assert (_source(a), a["cell_type"], a.get("outputs"), a["metadata"]) == \
               (_source(b), b["cell_type"], b.get("outputs"), b["metadata"]), "handout out of date: make lessons"
    assert "BEGIN SOLUTION" not in json.dumps(got) and "BEGIN HIDDEN TESTS" not in json.dumps(got)


@pytest.mark.parametrize("path", INSTRUCTOR, ids=_ids(INSTRUCTOR))
def test_each_lesson_has_varied_exercises(path):
    from pedatorch.grading import notebook
    nb = notebook.read(path)
    tests = [c for c in nb["cells"] if notebook.is_grade(c)]
    answers = [c for c in nb["cells"] if notebook.is_solution(c)]
    assert len(tests) >= 3 and len(answers) >= 3, f"{len(tests)} graded cells, {len(answers)} answer cells"
    kinds = {k for c in tests for k in CHECKS if k in _source(c)}
    assert len(kinds) >= 2, f"the exercises use one kind of check only: {kinds}"


def _defined_names(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_source_links_point_at_names_that_exist(path):
    """A link into pedatorch names a file and, in backticks, what to read there: ``[`backward` in
    engine.py](../pedatorch/autograd/engine.py)``. Both must exist (no line numbers: a refactor would
    silently break them)."""
    nb = _read(path)
    here = os.path.dirname(path)
    bad = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for text, target, _ in LINK.findall(_source(cell)):
            file = os.path.normpath(os.path.join(here, target))
            if not os.path.exists(file):
                bad.append(f"{target}: no such file")
                continue
            if os.path.isdir(file) or not file.endswith(".py"):
                continue
            defined = _defined_names(file)
            for name in re.findall(r"`([A-Za-z_][\w.]*)(?:\(\))?`", text):
                if name.endswith(".py") or name == os.path.basename(file)[:-3]:
                    continue
                if name.split(".")[-1] not in defined:
                    bad.append(f"{target}: `{name}` is not defined there")
    assert not bad, bad


def _run_cell(src, namespace, lib_name):
    """Run a cell as IPython would (its last expression's repr is shown); return what it printed."""
    if lib_name == "torch":
        src = src.replace("import pedatorch as torch", "import torch")
    tree = ast.parse(src)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
            if value is not None and not src.rstrip().endswith(";"):
                print(repr(value))
    return out.getvalue()


@pytest.mark.parametrize("path", INSTRUCTOR, ids=_ids(INSTRUCTOR))
def test_pytorch_cells_print_the_same_under_pytorch(path):
    """Cells tagged ``torch`` are plain PyTorch code (with ``import pedatorch as torch``): run in order under
    pedatorch and under real PyTorch, they print the same."""
    pytest.importorskip("torch")
    nb = _read(path)
    cells = [_source(c) for c in nb["cells"] if c["cell_type"] == "code" and "torch" in c["metadata"].get("tags", [])]
    if not cells:
        pytest.skip("no cell tagged torch")
    spaces = {"pedatorch": {}, "torch": {}}
    for i, src in enumerate(cells):
        printed = {lib: _run_cell(src, ns, lib) for lib, ns in spaces.items()}
        assert printed["pedatorch"] == printed["torch"], f"torch-tagged cell {i}:\n{src}"
