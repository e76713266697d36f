"""PyTorch's own beginner material, run unchanged with ``torch`` bound to pedatorch and to PyTorch.

tests/tutorials/tensors.py follows the "Tensors" tutorial (creation, attributes, indexing, joining,
arithmetic, in-place ops, the numpy bridge) plus autograd basics; quickstart.py follows the quickstart's
model/training/evaluation loop on seeded random data.  Everything they print, random numbers, losses
and accuracies included, must be identical (memory addresses aside).
"""
import contextlib
import io
import pathlib
import re

import pytest

import pedatorch

HERE = pathlib.Path(__file__).parent / "tutorials"


def run(lib, name):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile((HERE / name).read_text(), name, "exec"), {"torch": lib, "__name__": "__tutorial__"})
    return re.sub(r" at 0x[0-9a-f]+", " at 0x…", out.getvalue())


@pytest.mark.parametrize("name", ["tensors.py", "quickstart.py"])
def test_tutorial_prints_what_pytorch_prints(torch, name):
    assert run(pedatorch, name) == run(torch, name)


@pytest.mark.parametrize("name", ["tensors.py", "quickstart.py"])
def test_tutorial_runs_without_torch(name):
    assert "tensor(" in run(pedatorch, name)
