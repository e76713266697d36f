#!/usr/bin/env python3
"""Grade 50 copies of one submission with the batch grader, 2 at a time, and print how long it took:

    .venv/bin/python benchmarks/grading.py [--copies 50] [--jobs 2] [--which solution|handout]
    .venv/bin/python benchmarks/grading.py --lesson instructor/01_tensors.ipynb [--copies 50]

The lesson is the four-exercise notebook of tests/test_grading.py (a value, a function on random inputs, a
custom autograd Function checked by gradcheck, a Module), or with ``--lesson`` one of the course's lessons
(its instructor version as the solution, its handout from lessons/ as the unsolved submission); each copy
runs in its own sandboxed process, as in ``pedatorch-grade``. Issue 11 asks for under a minute for 50 submissions on 2 cores. Not a timed test: the
figure depends on the machine (and on what else it runs).
"""
import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--copies", type=int, default=50)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--which", choices=("solution", "handout"), default="solution")
    p.add_argument("--lesson", help="an instructor notebook (instructor/NN_name.ipynb) to grade copies of")
    a = p.parse_args()

    import test_grading as lesson          # the instructor's notebook and the submission builder
    from pedatorch.grading import grader, notebook

    with tempfile.TemporaryDirectory() as tmp:
        subs = os.path.join(tmp, "submissions")
        os.makedirs(subs)
        if a.lesson:
            source = os.path.abspath(a.lesson)
            copied = source if a.which == "solution" else os.path.join(ROOT, "lessons", os.path.basename(source))
            submission = notebook.read(copied)
        else:
            source = os.path.join(tmp, "lesson.ipynb")
            notebook.write(lesson.notebook_of(lesson.SOURCE_CELLS), source)
            handout = notebook.student_version(notebook.read(source))
            submission = lesson.submission(handout, lesson.SOLUTIONS if a.which == "solution" else {})
        for i in range(a.copies):
            notebook.write(submission, os.path.join(subs, f"student{i:03d}.ipynb"))
        t0 = time.perf_counter()
        rows = grader.grade(source, subs, os.path.join(tmp, "out", "grades.csv"), grader.Limits(), jobs=a.jobs)
        seconds = time.perf_counter() - t0
    students = {r.student for r in rows}
    total = sum(r.score for r in rows)
    print(f"graded {len(students)} submissions ({a.which}, {len(rows)} rows, {total:g} points in all) "
          f"with {a.jobs} jobs on {os.cpu_count()} CPUs in {seconds:.1f} s "
          f"({seconds / max(len(students), 1):.2f} s per submission)")


if __name__ == "__main__":
    main()
