"""Fixes found by compat program 62 (sequence decoding); each compared with PyTorch."""
import warnings

import numpy as np
import pytest

import pedatorch
from conftest import error_of

torch = pytest.importorskip("torch")

LIBS = [pedatorch, torch]


def _no_trace(err):
    return None if err is None else (err[0], err[1].split("\nException raised from")[0])


# ---------------------------------------------------------------- 1: x[byte_mask] = scalar

@pytest.mark.parametrize("case", range(9))
def test_byte_mask_assignment_of_one_value_is_masked_fill(case):
    """One byte-mask index and a one-element value: index_put_ dispatches to masked_fill_, which takes
    bool masks only (an error); more values, more indices or accumulate=True go through index_put_."""
    def run(lib):
        x = lib.zeros(2, 3)
        m = lib.tensor([1, 0], dtype=lib.uint8)
        u8 = lambda *v: lib.tensor(list(v), dtype=lib.uint8)  # noqa: E731
        steps = [
            lambda y: y.__setitem__(m, 1.0),
            lambda y: y.__setitem__(m, lib.tensor([2.0])),
            lambda y: y.__setitem__((m, 1), 3.0),
            lambda y: y.__setitem__(np.array([1, 0], dtype=np.uint8), 4.0),
            lambda y: y.__setitem__(m, lib.ones(3)),                                 # works
            lambda y: y.__setitem__((u8(1, 0), lib.tensor([0, 2])), 5.0),           # works
            lambda y: y.__setitem__(lib.tensor(1, dtype=lib.uint8), 6.0),            # a 0-dim one: works
            lambda y: y.index_put_((m,), lib.tensor(7.0)),
            lambda y: y.index_put_((m,), lib.tensor(8.0), accumulate=True),          # works
        ]
        y = x.clone()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = _no_trace(error_of(lambda: steps[case](y)))
        return e, y.tolist()
    assert run(pedatorch) == run(torch)


# ---------------------------------------------------------------- 2: warnings name the caller's line

def _warning_lines(lib):
    x = lib.zeros(2, 5)
    tok = lib.tensor([[1, 1, 3], [0, 4, 4]])
    src = lib.ones(2, 3)
    calls = [
        lambda: x.scatter(1, tok, src, reduce="add"),
        lambda: lib.scatter(x, dim=1, index=tok, src=src, reduce="multiply"),
        lambda: x.clone().scatter_(1, tok, src, reduce="add"),
        lambda: x.index_reduce(0, lib.tensor([0]), lib.ones(1, 5), "prod"),
        lambda: x.clone().index_reduce_(0, lib.tensor([0]), lib.ones(1, 5), "amax"),
        lambda: x[np.array([1, 0], dtype=np.uint8)],
        lambda: x[lib.tensor([1, 0], dtype=lib.uint8), 1],
    ]
    out = []
    for fn in calls:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            fn()
        out.append({w.filename for w in ws})
    return out


def test_index_op_warnings_point_at_the_callers_line():
    """The deprecation / beta warnings of scatter(reduce=) and index_reduce name this file, not a
    pedatorch wrapper's (PyTorch warns once per process, so only pedatorch is asserted on)."""
    assert all(files == {__file__} for files in _warning_lines(pedatorch))
