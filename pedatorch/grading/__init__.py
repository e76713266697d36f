"""Exercises and classroom autograding.

In a lesson, a test cell checks the learner's answer in place with the check functions (``checks.py``): they
print a short verdict and raise AssertionError on failure, as nbgrader expects. A teacher makes the handout with
``pedatorch-assign SOURCE.ipynb OUT_DIR`` and grades a folder of submissions with
``pedatorch-grade SOURCE.ipynb SUBMISSIONS_DIR --out grades.csv``: each submission runs in its own sandboxed
process (``sandbox.py``), and the instructor's test cells run in the grader's process on plain data from it
(``grader.py``, ``remote.py``, ``wire.py``). docs/grading.md tells the whole story.
"""
from .checks import *  # noqa: F401,F403


def __getattr__(name):   # the batch grader loads on first use: a lesson's test cell needs only checks.py
    if name in ("grade", "assign", "grade_submission", "Limits"):
        from . import grader
        return getattr(grader, name)
    raise AttributeError(f"module 'pedatorch.grading' has no attribute {name!r}")
