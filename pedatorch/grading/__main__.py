"""``python -m pedatorch.grading assign SOURCE OUT_DIR`` and ``python -m pedatorch.grading grade SOURCE SUBMISSIONS``
(the console scripts ``pedatorch-assign`` and ``pedatorch-grade`` are the same commands)."""
import argparse
import sys


def assign_main(argv=None):
    p = argparse.ArgumentParser(prog="pedatorch-assign", description="Make the student version of an exercise "
                                "notebook (nbgrader's rules: solutions stubbed, hidden tests removed, outputs "
                                "cleared, locked cells checksummed).")
    p.add_argument("source", help="the instructor's notebook, with solutions and hidden tests")
    p.add_argument("out_dir", help="folder for the student version")
    p.add_argument("--keep-outputs", action="store_true",
                   help="keep the outputs of cells outside the exercises (answer and test cells are still cleared "
                        "and tagged raises-exception for nbval)")
    a = p.parse_args(argv)
    from .grader import assign
    from .notebook import InvalidNotebook
    try:
        print(assign(a.source, a.out_dir, keep_outputs=a.keep_outputs))
    except (InvalidNotebook, ValueError, OSError) as e:
        print(f"pedatorch-assign: {e}", file=sys.stderr)
        return 2
    return 0


def grade_main(argv=None):
    p = argparse.ArgumentParser(prog="pedatorch-grade", description="Grade every .ipynb in a folder (file name = "
                                "student id) against the instructor's notebook, each in its own sandbox.")
    p.add_argument("source", help="the instructor's notebook, with solutions and hidden tests")
    p.add_argument("submissions", help="folder of submitted notebooks")
    p.add_argument("--out", default="grades.csv", help="the CSV to write (feedback/ and results.json beside it)")
    p.add_argument("--jobs", type=int, default=2, help="submissions graded at once")
    p.add_argument("--timeout", type=float, default=120, help="wall-clock seconds per submission")
    p.add_argument("--cpu", type=int, default=60, help="CPU seconds per submission")
    p.add_argument("--memory", type=int, default=3072, help="memory per submission, MiB")
    a = p.parse_args(argv)
    from .grader import Limits, grade
    from .notebook import InvalidNotebook
    try:
        rows = grade(a.source, a.submissions, a.out, Limits(a.timeout, a.cpu, a.memory), jobs=a.jobs)
    except (InvalidNotebook, OSError) as e:
        print(f"pedatorch-grade: {e}", file=sys.stderr)
        return 2
    students = {r.student for r in rows}
    print(f"graded {len(students)} submissions, {len(rows)} rows -> {a.out}")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("assign", "grade"):
        print("usage: python -m pedatorch.grading {assign,grade} ...", file=sys.stderr)
        return 2
    return (assign_main if argv[0] == "assign" else grade_main)(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
