"""The batch grader (pedatorch.grading): the handout follows nbgrader's rules, and a folder of submissions, the
honest ones and a set of adversarial ones, scores what each deserves (issue 11).

One instructor notebook with four exercises (a value, a function on random inputs, a custom autograd Function's
backward checked by gradcheck, a Module) is written here; its handout is made with ``assign``; a folder of
submissions built from the handout is graded once (module fixture, small limits) and each test reads its rows.
docs/grading.md's table of adversarial cases names the test behind each row.
"""
import copy
import csv
import json
import os
import re
import sys

import pytest

from pedatorch.grading import grader, notebook

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox's limits are Linux's")

LIMITS = grader.Limits(wall_seconds=10, cpu_seconds=6, memory_mb=1024, processes=32)


# --------------------------------------------------------------------------- the instructor's notebook

def cell(source, kind="code", outputs=None, **nbgrader):
    c = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        c.update(outputs=outputs or [], execution_count=1 if outputs else None)
    if nbgrader:
        c["metadata"]["nbgrader"] = dict(dict(schema_version=3, grade=False, solution=False, locked=False), **nbgrader)
    return c


def answer(gid, source):
    return cell(source, solution=True, grade_id=gid)


def grade_cell(gid, points, source):
    return cell(source, grade=True, locked=True, points=points, grade_id=gid)


OUTPUT = [{"output_type": "stream", "name": "stdout", "text": "instructor's run\n"}]

SOURCE_CELLS = [
    cell("# Exercises", "markdown"),
    cell("import numpy as np\nimport pedatorch as torch", locked=True, grade_id="setup"),
    # 1. a value (its test uses a module the answer cell imports: the grader's copy of it counts)
    answer("shape_answer", "import math\nshape = None\n### BEGIN SOLUTION\nshape = (3, 2, 4)\n### END SOLUTION"),
    grade_cell("shape_test", 1, "assert math.prod(shape) == 24, f'got {shape}'\n"
                               "assert tuple(shape) == (3, 2, 4), f'got {shape}'"),
    # 2. a function, compared on random inputs with a reference; a hidden test for large inputs
    answer("softplus_answer", "def softplus(x):\n    ### BEGIN SOLUTION\n"
                              "    return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))\n"
                              "    ### END SOLUTION"),
    grade_cell("softplus_test", 2,
              "x = torch.randn(6, dtype=torch.float64)\ngot = softplus(x)\n"
              "assert np.allclose(got.numpy(), np.log1p(np.exp(x.numpy()))), f'got {got}'\n"
              "torch.testing.assert_close(got, torch.log1p(torch.exp(x)))\n"
              "### BEGIN HIDDEN TESTS\n"
              "assert softplus(torch.tensor([1000.0], dtype=torch.float64)).item() == 1000.0\n"
              "### END HIDDEN TESTS"),
    # 3. a backward, in a custom autograd Function, checked by gradcheck against finite differences
    answer("cube_answer", "class Cube(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                          "        ctx.save_for_backward(x)\n        return x ** 3\n\n"
                          "    @staticmethod\n    def backward(ctx, g):\n"
                          "        ### BEGIN SOLUTION\n        x, = ctx.saved_tensors\n"
                          "        return 3 * x ** 2 * g\n        ### END SOLUTION"),
    grade_cell("cube_test", 2, "x = torch.randn(5, dtype=torch.float64, requires_grad=True)\n"
                              "assert torch.autograd.gradcheck(Cube.apply, (x,))\n"
                              "assert torch.allclose(Cube.apply(x.detach()), x.detach() ** 3)"),
    # 4. a Module: its parameters, output shape and output
    answer("net_answer", "class TwoLayer(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                         "        ### BEGIN SOLUTION\n        self.fc1 = torch.nn.Linear(3, 4)\n"
                         "        self.fc2 = torch.nn.Linear(4, 2)\n        ### END SOLUTION\n\n"
                         "    def forward(self, x):\n        ### BEGIN SOLUTION\n"
                         "        return self.fc2(torch.relu(self.fc1(x)))\n        ### END SOLUTION"),
    grade_cell("net_test", 2, "net = TwoLayer()\nshapes = sorted(tuple(p.shape) for p in net.parameters())\n"
                             "assert shapes == [(2,), (2, 4), (4,), (4, 3)], f'parameters {shapes}'\n"
                             "x = torch.randn(5, 3)\ny = net(x)\nassert tuple(y.shape) == (5, 2)\n"
                             "sd = net.state_dict()\n"
                             "ref = torch.relu(x @ sd['fc1.weight'].T + sd['fc1.bias']) @ sd['fc2.weight'].T "
                             "+ sd['fc2.bias']\nassert torch.allclose(y, ref, atol=1e-6)", ),
    cell("print('the end')", outputs=OUTPUT),
]
SOURCE_CELLS[4]["outputs"], SOURCE_CELLS[4]["execution_count"] = OUTPUT, 3   # a solution cell with outputs
SOURCE_CELLS[5]["outputs"], SOURCE_CELLS[5]["execution_count"] = OUTPUT, 4
EXERCISES = ["shape_test", "softplus_test", "cube_test", "net_test"]
FULL = 7.0

SOLUTIONS = {c["metadata"]["nbgrader"]["grade_id"]: c["source"] for c in SOURCE_CELLS
             if c["metadata"].get("nbgrader", {}).get("solution")}
WRONG = {
    "shape_answer": "import math\nshape = (4, 2, 3)",
    "softplus_answer": "def softplus(x):\n    return x",
    "cube_answer": SOLUTIONS["cube_answer"].replace("3 * x ** 2 * g", "2 * x * g"),
    "net_answer": SOLUTIONS["net_answer"].replace("torch.nn.Linear(4, 2)", "torch.nn.Linear(4, 3)"),
}


def notebook_of(cells):
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}}, "cells": cells}


# --------------------------------------------------------------------------- the submissions

def submission(handout, answers=None, edit=None):
    """The handout with some answer cells' sources replaced (``answers``: grade_id -> source); ``edit(cells)``
    may change the cells further."""
    nb = copy.deepcopy(handout)
    for c in nb["cells"]:
        gid = notebook.grade_id(c)
        if answers and gid in answers:
            c["source"] = answers[gid]
    if edit:
        edit(nb["cells"])
    return nb


MONKEYPATCH = """\
import numpy as np, pedatorch as torch, builtins, pedatorch.grading as grading, pedatorch.testing
np.allclose = lambda *a, **k: True
np.isfinite = lambda *a, **k: np.ones(1, bool)
torch.allclose = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
pedatorch.testing.assert_close = lambda *a, **k: None
torch.autograd.gradcheck = lambda *a, **k: True
for name in ("check_value", "check_function", "check_backward", "check_module", "check_optimizer"):
    setattr(grading, name, lambda *a, **k: True)
builtins.AssertionError = type('NotAnAssertion', (Exception,), {})
"""

LIAR = """\
import numpy as np
class Liar(np.ndarray):
    __eq__ = __ne__ = __lt__ = __gt__ = lambda self, other: True
    __bool__ = lambda self: True
    def __array_ufunc__(self, *a, **k):
        return True
    def numpy(self):
        return self
"""

FAKE_MODULE = """\
class _FakeMath:
    prod = staticmethod(lambda *a, **k: 24)
math = _FakeMath()
shape = (3, 7, 4)
"""

FORK_BOMB = """\
import os
try:
    while True:
        os.fork()   # every child forks on too
except OSError:
    pass
"""

# each reports its pid as /proc shows it (the grader's view, even inside a PID namespace of the sandbox's)
BACKGROUND = """\
import os, subprocess, sys, time
HOST_PID = "int(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('Pid:')))"
sleeper = subprocess.Popen([sys.executable, '-c', f'import time; print({HOST_PID}, flush=True); time.sleep(300)'],
                           stdout=subprocess.PIPE, start_new_session=True)
r, w = os.pipe()
if os.fork() == 0:              # a daemon: double fork, own session
    if os.fork() == 0:
        os.setsid()
        os.write(w, str(eval(HOST_PID)).encode().ljust(16))
        time.sleep(300)
    os._exit(0)
os.wait()
shape = (int(sleeper.stdout.readline()), int(os.read(r, 16)))
"""

NOISY_ANSWER = """\
import os, sys, warnings
warnings.warn('this is deprecated')
print('x' * 100_000_000)
sys.stderr.write('noise on stderr\\n')
os.write(1, b'y' * 10_000_000)
os.write(2, b'z' * 1_000_000)
def softplus(x):
    warnings.warn('called softplus')
    print('z' * 1_000_000)
    return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))
"""

# a reply frame, written straight to the grader's pipe, whose JSON nests too deeply for a recursive parser
PROTOCOL_BOMB = """\
import os, struct, sys
head = b'[' * 200000 + b']' * 200000
os.write(int(sys.argv[2]), struct.pack('<I', len(head)) + head)
shape = (3, 2, 4)
"""


def build(tmp_path):
    """The instructor's folder (source notebook + a secret file), the handout, and a folder of submissions;
    returns (source path, handout dict, submissions folder, paths an adversary must not touch)."""
    src_dir, subs = tmp_path / "instructor", tmp_path / "submissions"
    src_dir.mkdir()
    subs.mkdir()
    source = src_dir / "lesson.ipynb"
    notebook.write(notebook_of(SOURCE_CELLS), str(source))
    (src_dir / "secret.txt").write_text("the answers\n")
    grader.assign(str(source), str(tmp_path / "release"))
    handout = json.loads((tmp_path / "release" / "lesson.ipynb").read_text())
    outside = tmp_path / "escaped.txt"

    def drop_tests(cells):
        cells[:] = [c for c in cells if notebook.grade_id(c) != "cube_test"]
        for c in cells:
            if notebook.grade_id(c) in ("shape_test", "softplus_test", "net_test"):
                c["source"] = "pass"
            if notebook.grade_id(c) == "setup":
                c["source"] = "import numpy as np\nimport pedatorch as torch\nnp.allclose = lambda *a, **k: True"

    steal = ("shape = None\nfor p in [{!r}, {!r}, {!r}]:\n    try:\n        open(p).read()\n"
             "        shape = (3, 2, 4)   # rewarded only if a read succeeds\n    except OSError:\n        pass\n"
             "try:\n    import os\n    os.listdir({!r})\n    shape = (3, 2, 4)\nexcept OSError:\n    pass\n"
             ).format(str(src_dir / "secret.txt"), str(source), str(subs / "solution.ipynb"), str(src_dir))
    escape = ("shape = None\nfor p in [{!r}, '/tmp/pedatorch-escaped.txt', {!r}]:\n    try:\n"
              "        open(p, 'w').write('pwned')\n        shape = (3, 2, 4)   # rewarded only if it worked\n"
              "    except OSError:\n        pass\n").format(str(outside), str(subs / "solution.ipynb"))
    right = dict(SOLUTIONS)
    cases = {
        "solution": right,
        "handout": {},
        "monkeypatch": dict(WRONG, shape_answer=MONKEYPATCH + WRONG["shape_answer"]),
        "liar": dict(WRONG, shape_answer=LIAR + "import math\nshape = np.zeros(3).view(Liar)",
                     softplus_answer=LIAR + "def softplus(x):\n    return np.zeros(tuple(x.shape)).view(Liar)"),
        "fake_module": dict(right, shape_answer=FAKE_MODULE),
        "module_injection": dict(right, softplus_answer="import types\n"   # importing it runs a program
                                 "softplus = types.ModuleType('numpy.f2py.__main__')"),
        "tampered": dict(WRONG, shape_answer=right["shape_answer"]),
        "loop": dict(right, softplus_answer="def softplus(x):\n    while True:\n        pass"),
        "os_exit": dict(right, cube_answer="import os\nos._exit(3)"),
        "sys_exit": dict(right, softplus_answer=right["softplus_answer"] + "\nimport sys\nsys.exit(0)",
                         net_answer=right["net_answer"].replace("return self.fc2", "import sys; sys.exit(1)\n"
                                                                "        return self.fc2")),
        "memory_bomb": dict(right, shape_answer="blob = bytearray(8 * 2**30)",
                            softplus_answer="def softplus(x):\n    hog = []\n    while True:\n"
                                            "        hog.append(' ' * 2**24)"),
        "fork_bomb": dict(right, shape_answer=FORK_BOMB + right["shape_answer"]),
        "steal": dict(right, shape_answer=steal),
        "escape": dict(right, shape_answer=escape),
        "background": dict(right, shape_answer=BACKGROUND),
        "noisy": dict(right, softplus_answer=NOISY_ANSWER),
        "protocol_bomb": dict(right, shape_answer=PROTOCOL_BOMB),
    }
    for name, answers in cases.items():
        nb = submission(handout, answers, drop_tests if name == "tampered" else None)
        notebook.write(nb, str(subs / f"{name}.ipynb"))
    (subs / "malformed.ipynb").write_text('{"nbformat": 4, "cells": [')
    other = notebook.student_version(notebook_of([answer("q1", "x = 1"), grade_cell("q1_test", 1, "assert x")]))
    notebook.write(other, str(subs / "other_assignment.ipynb"))
    return source, handout, subs, outside


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grading")
    source, handout, subs, outside = build(tmp)
    rows = grader.grade(str(source), str(subs), str(tmp / "out" / "grades.csv"), LIMITS, jobs=2)
    by = {}
    for r in rows:
        by.setdefault(r.student, []).append(r)
    return dict(tmp=tmp, source=source, handout=handout, subs=subs, outside=outside, rows=rows, by=by)


def scores(graded, student):
    return {r.grade_id: r.score for r in graded["by"][student]}


def statuses(graded, student):
    return {r.grade_id: r.status for r in graded["by"][student]}


def total(graded, student):
    return sum(r.score for r in graded["by"][student])


# --------------------------------------------------------------------------- the handout

def test_assign_follows_nbgraders_rules(graded):
    cells = graded["handout"]["cells"]
    by_id = {notebook.grade_id(c): c for c in cells if notebook.grade_id(c)}
    assert by_id["shape_answer"]["source"] == "import math\nshape = None\n" + notebook.CODE_STUB
    stub = "def softplus(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"   # indented like the region
    assert by_id["softplus_answer"]["source"] == stub
    assert "BEGIN SOLUTION" not in json.dumps(graded["handout"])
    assert "HIDDEN" not in by_id["softplus_test"]["source"] and "1000.0" not in by_id["softplus_test"]["source"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in cells if c["cell_type"] == "code")
    for gid, c in by_id.items():
        m = c["metadata"]
        assert m["nbgrader"]["checksum"] == notebook.checksum(c)
        assert m["nbgrader"]["schema_version"] == 3
        if notebook.is_solution(c):
            assert m.get("deletable") is False and "editable" not in m
        else:
            assert m["editable"] is False and m["deletable"] is False
    with pytest.raises(ValueError):   # never over the source
        grader.assign(str(graded["source"]), str(graded["source"].parent))


# --------------------------------------------------------------------------- honest submissions

def test_every_submission_gets_one_row_per_exercise(graded):
    files = {p.stem for p in graded["subs"].glob("*.ipynb")}
    assert set(graded["by"]) == files
    for student, rs in graded["by"].items():
        assert [r.grade_id for r in rs] == EXERCISES, student
        assert all(r.status in grader.STATUSES for r in rs)


def test_the_solution_scores_full_marks(graded):
    assert total(graded, "solution") == FULL
    assert set(statuses(graded, "solution").values()) == {"passed"}


def test_the_handout_scores_zero(graded):
    assert total(graded, "handout") == 0
    assert "NotImplementedError" in graded["by"]["handout"][1].message


# --------------------------------------------------------------------------- adversarial submissions

def test_monkeypatching_numpy_pedatorch_and_checks_gains_nothing(graded):
    assert total(graded, "monkeypatch") == 0
    assert statuses(graded, "monkeypatch")["softplus_test"] == "failed"


def test_lying_result_objects_arrive_as_plain_data(graded):
    assert total(graded, "liar") == 0


def test_a_fake_module_under_an_imported_name_is_not_used(graded):
    s = scores(graded, "fake_module")
    assert s["shape_test"] == 0 and sum(s.values()) == FULL - 1


def test_a_module_name_is_never_imported_for_the_student(graded):
    st = statuses(graded, "module_injection")
    assert st["softplus_test"] == "error" and total(graded, "module_injection") == FULL - 2


def test_edited_or_deleted_test_cells_are_the_instructors(graded):
    rows = graded["by"]["tampered"]
    assert scores(graded, "tampered") == {"shape_test": 1, "softplus_test": 0, "cube_test": 0, "net_test": 0}
    assert "locked cell cube_test was deleted" in rows[0].message
    assert "locked cell softplus_test was edited" in rows[0].message
    assert "locked cell setup was edited" in rows[0].message


def test_an_infinite_loop_times_out(graded):
    st = statuses(graded, "loop")
    assert st["shape_test"] == "passed" and st["softplus_test"] == "timeout"
    assert total(graded, "loop") == 1


def test_os_exit_crashes_only_what_follows(graded):
    st = statuses(graded, "os_exit")
    assert st["shape_test"] == st["softplus_test"] == "passed"
    assert st["cube_test"] == st["net_test"] == "crashed"
    assert "exited with code 3" in graded["by"]["os_exit"][2].message


def test_sys_exit_ends_a_cell_not_the_grading(graded):
    st = statuses(graded, "sys_exit")
    assert st == {"shape_test": "passed", "softplus_test": "passed", "cube_test": "passed", "net_test": "error"}
    assert "SystemExit" in graded["by"]["sys_exit"][3].message


def test_a_memory_bomb_is_a_memory_error(graded):
    st = statuses(graded, "memory_bomb")
    assert st["shape_test"] == "error" and st["softplus_test"] == "error"
    assert "MemoryError" in graded["by"]["memory_bomb"][1].message
    assert total(graded, "memory_bomb") == FULL - 3


def test_a_fork_bomb_is_contained(graded):
    assert total(graded, "fork_bomb") == FULL


def test_the_instructors_folder_and_other_submissions_cannot_be_read(graded):
    st = scores(graded, "steal")
    assert st["shape_test"] == 0 and "'NoneType'" in graded["by"]["steal"][0].message   # shape stayed None
    assert sum(st.values()) == FULL - 1


def test_nothing_is_written_outside_the_sandbox(graded):
    assert scores(graded, "escape")["shape_test"] == 0
    assert not graded["outside"].exists() and not os.path.exists("/tmp/pedatorch-escaped.txt")
    assert "pwned" not in (graded["subs"] / "solution.ipynb").read_text()


def test_background_processes_are_gone_after_grading(graded):
    message = graded["by"]["background"][0].message
    pids = [int(p) for p in re.findall(r"\d+", message.split("got (", 1)[1].split(")")[0])]
    assert len(pids) == 2, message
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}"), f"process {pid} outlived its grading"


def test_warnings_and_100_mb_of_output_do_not_cost_marks(graded):
    assert total(graded, "noisy") == FULL
    assert all(len(r.output) < 100_000 for r in graded["by"]["noisy"])


def test_a_malicious_message_crashes_only_that_submission(graded):
    rows = graded["by"]["protocol_bomb"]
    assert {r.status for r in rows} == {"crashed"} and "protocol" in rows[0].message


def test_malformed_json_and_another_assignment_are_invalid(graded):
    for student in ("malformed", "other_assignment"):
        rows = graded["by"][student]
        assert {r.status for r in rows} == {"invalid notebook"} and total(graded, student) == 0
    assert "another assignment" in graded["by"]["other_assignment"][0].message


# --------------------------------------------------------------------------- the outputs; re-grading

def test_outputs_csv_feedback_and_gradescope_json(graded):
    out = graded["tmp"] / "out"
    with open(out / "grades.csv", newline="") as f:
        table = list(csv.reader(f))
    assert table[0] == ["student", "grade_id", "score", "max_score", "status", "message"]
    assert len(table) - 1 == len(graded["rows"]) == len(graded["by"]) * len(EXERCISES)
    assert ["solution", "softplus_test", "2", "2", "passed", ""] in table
    for student in graded["by"]:
        page = (out / "feedback" / f"{student}.html").read_text()
        assert page.startswith("<!doctype html>") and f"{total(graded, student):g} / {FULL:g}" in page
    results = json.loads((out / "results.json").read_text())
    assert set(results) == set(graded["by"])
    sol = results["solution"]
    assert sol["score"] == FULL and len(sol["tests"]) == len(EXERCISES)
    assert all(set(t) >= {"name", "score", "max_score", "status", "output"} for t in sol["tests"])
    assert {t["status"] for t in results["handout"]["tests"]} == {"failed"}


def test_regrading_gives_identical_grades(graded, tmp_path):
    """Sequentially this time: the submission after the infinite loop (and the others) is graded just the same."""
    rows = grader.grade(str(graded["source"]), str(graded["subs"]), str(tmp_path / "grades.csv"), LIMITS, jobs=1)
    key = lambda r: (r.student, r.grade_id, r.score, r.max_score, r.status)   # noqa: E731
    changed = [(key(a), a.message, key(b), b.message) for a, b in zip(rows, graded["rows"]) if key(a) != key(b)]
    assert len(rows) == len(graded["rows"]) and not changed, changed
    stable = lambda r: (r.student, r.message) if r.student != "background" else None   # noqa: E731  (pids)
    assert [stable(r) for r in rows] == [stable(r) for r in graded["rows"]]


def test_assign_keep_outputs_for_lessons(graded):
    """A lesson's handout keeps what its teaching cells showed; exercise cells are cleared and tagged for nbval."""
    src = notebook.read(str(graded["source"]))
    teaching = next(c for c in src["cells"] if c["cell_type"] == "code" and not notebook.meta(c))
    teaching["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "shown\n"}]
    teaching["execution_count"] = 1
    hand = notebook.student_version(src, keep_outputs=True)
    for c in hand["cells"]:
        if c["cell_type"] != "code":
            continue
        exercise = notebook.is_solution(c) or notebook.is_grade(c)
        assert ("raises-exception" in c["metadata"].get("tags", [])) == exercise
        if exercise:
            assert c["outputs"] == [] and c["execution_count"] is None
    kept = next(c for c in hand["cells"] if c.get("id") == teaching.get("id") and c["cell_type"] == "code"
                and not notebook.meta(c))
    assert kept["outputs"] == teaching["outputs"]
    assert "BEGIN SOLUTION" not in json.dumps(hand)
