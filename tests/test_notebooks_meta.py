"""The lessons' notebooks are fit to ship: run with `pytest --nbval lessons/` (see the Makefile).

These checks read the notebooks' JSON only; they don't start a kernel.
"""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
INSTRUCTOR = ROOT / "instructor"
NOTEBOOKS = sorted(LESSONS.glob("*.ipynb")) + sorted(INSTRUCTOR.glob("*.ipynb"))

# Things that would make a stored output differ between machines or runs.
_VOLATILE = [
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "a memory address"),
    (re.compile(r"(?<![\w.])/(home|root|tmp|work|Users|usr|opt|var)/"), "an absolute path"),
    (re.compile(r"[A-Za-z]:\\\\"), "a Windows path"),
]


def _load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _text(output):
    if "text" in output:
        t = output["text"]
    else:
        t = output.get("data", {}).get("text/plain", "")
    return "".join(t) if isinstance(t, list) else t


def test_there_are_lessons():
    assert NOTEBOOKS, "lessons/ has no notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_executed_and_clean(path):
    nb = _load(path)
    assert nb["nbformat"] == 4
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, "no code cells"
    counts = [c["execution_count"] for c in code]
    if (INSTRUCTOR / path.name).exists() and path.parent == LESSONS:
        # a handout: its exercise cells were cleared (tagged raises-exception), the rest keep the counts of
        # the instructor's run
        exercise = ["raises-exception" in c["metadata"].get("tags", []) for c in code]
        assert all(n is None for n, e in zip(counts, exercise) if e)
        kept = [n for n, e in zip(counts, exercise) if not e]
        assert kept == sorted(kept) and len(set(kept)) == len(kept) and None not in kept, \
            f"handout not made from one top-to-bottom run (execution counts {counts}): make execute-lessons"
    else:
        assert counts == list(range(1, len(code) + 1)), \
            f"cells not executed top to bottom in one run (execution counts {counts}); re-execute the notebook"
    for i, cell in enumerate(code):
        for out in cell["outputs"]:
            assert out["output_type"] != "error", f"code cell {i} stores an error"
            assert not (out["output_type"] == "stream" and out.get("name") == "stderr"), \
                f"code cell {i} stores stderr output"
            text = _text(out)
            for pattern, what in _VOLATILE:
                assert not pattern.search(text), f"code cell {i} output contains {what}: {text!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_uses_pedatorch_as_torch(path):
    nb = _load(path)
    first = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
    assert "import pedatorch as torch" in first
