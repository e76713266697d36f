"""Which cells a grading run executes (pedatorch.grading.grader._cells_to_run): the answer and test cells, and the
read-only cells they depend on; teaching cells no exercise needs are left out (issue 11: grading a class fast),
and anything that could matter is kept."""
import sys

import pytest

from pedatorch.grading import grader

from test_grading import answer, cell, grade_cell, notebook_of

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox's limits are Linux's")


def kept(cells, answers=None):
    """The sources of the read-only cells a run keeps."""
    a = grader.Assignment(path="lesson.ipynb", cells=cells)
    answers = answers if answers is not None else {c["metadata"]["nbgrader"]["grade_id"]: c["source"]
                                                   for c in cells if "solution" in str(c["metadata"])
                                                   and c["metadata"]["nbgrader"].get("solution")}
    keep = grader._cells_to_run(a, answers)
    return [c["source"] for i, c in enumerate(cells) if i in keep and not c["metadata"].get("nbgrader")]


def lesson(*teaching, answer_source="y = f(2)", test="assert y == 4"):
    return [cell("import pedatorch as torch\nnn = torch.nn"), *map(cell, teaching),
            answer("ex", answer_source), grade_cell("ex-test", 1, test)]


def test_a_teaching_cell_no_exercise_needs_is_left_out():
    cells = lesson("def f(x):\n    return x * x", "demo = [f(i) for i in range(10**6)]\nprint(demo[-1])")
    assert kept(cells) == ["def f(x):\n    return x * x"]   # (nothing reads torch either)


def test_what_an_answer_needs_is_kept_transitively():
    cells = lesson("base = 2", "def f(x):\n    return x ** base", "unrelated = 1")
    assert "base = 2" in kept(cells) and "unrelated = 1" not in kept(cells)


def test_a_cell_that_may_change_a_needed_object_is_kept():
    cells = lesson("model = nn.Linear(2, 2)", "train(model)\nmodel.eval()", "print('hello')",
                   answer_source="y = model(torch.ones(2))", test="assert y.shape == (2,)")
    assert kept(cells)[1:] == ["model = nn.Linear(2, 2)", "train(model)\nmodel.eval()"]


def test_a_name_the_cell_binds_before_reading_is_its_own():
    cells = lesson("def f(x):\n    return x * x",
                   "for step in range(3):\n    loss = step * 2\n    print(loss)",
                   answer_source="loss = f(2)\ny = loss", test="assert y == 4")
    assert all("for step" not in s for s in kept(cells))


def test_a_library_setting_is_kept():
    cells = lesson("def f(x):\n    return x * x", "torch.set_default_dtype(torch.float64)",
                   "import warnings\nwarnings.filterwarnings('ignore')",
                   "import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('always')\n    f(1)")
    got = kept(cells)
    assert "torch.set_default_dtype(torch.float64)" in got and any("filterwarnings" in s for s in got)
    assert not any("catch_warnings" in s for s in got)   # (its filter ends with the block)


def test_the_students_own_answer_decides_what_it_needs():
    cells = lesson("def f(x):\n    return x * x", "table = {2: 4}")
    assert "table = {2: 4}" not in kept(cells)
    assert "table = {2: 4}" in kept(cells, {"ex": "y = table[2]"})


def test_any_doubt_keeps_every_cell():
    for answer_source in ("y = globals()['f'](2)", "y = eval('f(2)')", "y = f(2"):   # (the last: no parse)
        cells = lesson("def f(x):\n    return x * x", "unrelated = 1")
        assert "unrelated = 1" in kept(cells, {"ex": answer_source})


def test_cells_the_instructor_marks_are_left_out_with_what_reads_them():
    cells = lesson("def f(x):\n    return x * x", "curves = train_for_an_hour()", "print(curves)",
                   answer_source="y = f(2) + len(curves) * 0")
    cells[2]["metadata"]["pedatorch"] = {"grading": "skip"}
    got = kept(cells)
    assert "curves = train_for_an_hour()" not in got and "print(curves)" not in got


def test_grading_with_left_out_cells_scores_the_same(tmp_path):
    """A lesson whose teaching cells raise when run (standing in for slow ones): left out, they cost nothing,
    and the solution scores full marks."""
    from pedatorch.grading import notebook
    cells = lesson("def f(x):\n    return x * x", "raise RuntimeError('a teaching cell that must not run')",
                   answer_source="### BEGIN SOLUTION\ny = f(2)\n### END SOLUTION")
    src = tmp_path / "lesson.ipynb"
    notebook.write(notebook_of(cells), str(src))
    subs = tmp_path / "subs"
    subs.mkdir()
    notebook.write(notebook.read(str(src)), str(subs / "alice.ipynb"))
    rows = grader.grade(str(src), str(subs), str(tmp_path / "out" / "grades.csv"), jobs=1)
    assert [(r.status, r.score) for r in rows] == [("passed", 1.0)]
