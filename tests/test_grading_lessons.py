"""Every lesson, graded as a class would be: its instructor version (the solutions) scores full marks and
its handout (unsolved) scores zero, each in the grader's sandbox (issue 11's self-test)."""
import glob
import os
import shutil

import pytest

from pedatorch.grading import grader, notebook

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = sorted(glob.glob(os.path.join(ROOT, "instructor", "*.ipynb")))


@pytest.mark.parametrize("source", LESSONS, ids=[os.path.basename(p) for p in LESSONS])
def test_solutions_score_full_marks_and_handouts_zero(source, tmp_path):
    subs = tmp_path / "submissions"
    subs.mkdir()
    shutil.copy(source, subs / "solution.ipynb")
    shutil.copy(os.path.join(ROOT, "lessons", os.path.basename(source)), subs / "handout.ipynb")
    rows = grader.grade(source, str(subs), out=str(tmp_path / "grades.csv"),
                        limits=grader.Limits(wall_seconds=240, cpu_seconds=200))
    by = {}
    for r in rows:
        by.setdefault(r.student, []).append(r)
    total = sum(notebook.points(c) for c in notebook.read(source)["cells"] if notebook.is_grade(c))
    solution = by["solution"]
    assert sum(r.score for r in solution) == total, [(r.grade_id, r.status, r.message) for r in solution]
    assert all(r.status == "passed" for r in solution)
    assert sum(r.score for r in by["handout"]) == 0
    assert all(r.status in ("failed", "error") for r in by["handout"])
